/* lltostr( ) with wrong number of arguments */
BEGIN { trace(lltostr(1, 10, 2)); }
