/* tolower( ) with wrong number of arguments */
BEGIN { trace(tolower("a", "b")); }
