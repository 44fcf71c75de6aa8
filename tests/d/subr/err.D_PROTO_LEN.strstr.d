/* strstr( ) with wrong number of arguments */
BEGIN { trace(strstr("a")); }
