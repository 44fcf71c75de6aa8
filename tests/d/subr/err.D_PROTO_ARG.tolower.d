/* tolower( ) with an argument of the wrong type */
BEGIN { trace(tolower(1)); }
