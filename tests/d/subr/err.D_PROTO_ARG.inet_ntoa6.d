/* inet_ntoa6( ) with an argument of the wrong type */
BEGIN { trace(inet_ntoa6("a")); }
