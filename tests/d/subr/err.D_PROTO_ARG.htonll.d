/* htonll( ) with an argument of the wrong type */
BEGIN { trace(htonll("a")); }
