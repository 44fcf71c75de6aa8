/* lltostr( ) with an argument of the wrong type */
BEGIN { trace(lltostr("a")); }
