/* strchr( ) with wrong number of arguments */
BEGIN { trace(strchr("a")); }
