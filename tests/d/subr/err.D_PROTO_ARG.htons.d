/* htons( ) with an argument of the wrong type */
BEGIN { trace(htons("a")); }
