/* strrchr( ) with an argument of the wrong type */
BEGIN { trace(strrchr(1, 'c')); }
