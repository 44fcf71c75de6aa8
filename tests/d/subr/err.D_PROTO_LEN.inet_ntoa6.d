/* inet_ntoa6( ) with wrong number of arguments */
BEGIN { trace(inet_ntoa6(0, 1)); }
