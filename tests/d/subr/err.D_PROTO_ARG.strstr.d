/* strstr( ) with an argument of the wrong type */
BEGIN { trace(strstr("a", 1)); }
