/* alloca( ) with an argument of the wrong type */
BEGIN { trace(alloca("a")); }
