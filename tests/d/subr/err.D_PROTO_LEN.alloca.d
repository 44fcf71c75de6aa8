/* alloca( ) with wrong number of arguments */
BEGIN { trace(alloca(1, 2)); }
