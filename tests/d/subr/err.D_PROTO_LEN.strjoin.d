/* strjoin( ) with wrong number of arguments */
BEGIN { trace(strjoin("a", "b", "c")); }
