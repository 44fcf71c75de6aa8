/* inet_ntoa( ) with wrong number of arguments */
BEGIN { trace(inet_ntoa()); }
