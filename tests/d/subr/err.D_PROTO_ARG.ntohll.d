/* ntohll( ) with an argument of the wrong type */
BEGIN { trace(ntohll("a")); }
