/* copyinstr( ) with an argument of the wrong type */
BEGIN { trace(copyinstr("a")); }
