/* htonll( ) with wrong number of arguments */
BEGIN { trace(htonll(1, 2)); }
