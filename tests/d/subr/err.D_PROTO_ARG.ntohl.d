/* ntohl( ) with an argument of the wrong type */
BEGIN { trace(ntohl("a")); }
