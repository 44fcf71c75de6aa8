/* strchr( ) with an argument of the wrong type */
BEGIN { trace(strchr(1, 'c')); }
