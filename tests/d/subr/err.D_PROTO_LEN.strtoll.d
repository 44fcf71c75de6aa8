/* strtoll( ) with wrong number of arguments */
BEGIN { trace(strtoll("1", 10, 2)); }
