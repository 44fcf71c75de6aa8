/* inet_ntop( ) with wrong number of arguments */
BEGIN { trace(inet_ntop(2)); }
