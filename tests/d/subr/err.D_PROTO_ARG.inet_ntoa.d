/* inet_ntoa( ) with an argument of the wrong type */
BEGIN { trace(inet_ntoa("a")); }
