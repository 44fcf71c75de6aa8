/* ntohll( ) with wrong number of arguments */
BEGIN { trace(ntohll()); }
