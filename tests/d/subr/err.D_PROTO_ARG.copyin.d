/* copyin( ) with an argument of the wrong type */
BEGIN { trace(copyin("a", 1)); }
