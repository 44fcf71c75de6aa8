/* ntohs( ) with an argument of the wrong type */
BEGIN { trace(ntohs("a")); }
