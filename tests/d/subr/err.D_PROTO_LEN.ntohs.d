/* ntohs( ) with wrong number of arguments */
BEGIN { trace(ntohs(1, 2)); }
