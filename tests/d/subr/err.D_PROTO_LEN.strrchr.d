/* strrchr( ) with wrong number of arguments */
BEGIN { trace(strrchr("a", 'c', 1)); }
