/* inet_ntoa6( ) with wrong number of arguments: at most two */
BEGIN { trace(inet_ntoa6(0, 1, 2)); }
