/* inet_ntop( ) with an argument of the wrong type */
BEGIN { trace(inet_ntop("a", 0)); }
