/* ntohl( ) with wrong number of arguments */
BEGIN { trace(ntohl(1, 2)); }
