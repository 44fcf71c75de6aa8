/* toupper( ) with wrong number of arguments */
BEGIN { trace(toupper()); }
