/* toupper( ) with an argument of the wrong type */
BEGIN { trace(toupper(1)); }
