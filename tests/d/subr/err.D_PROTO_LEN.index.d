/* index( ) with wrong number of arguments */
BEGIN { trace(index("a", "b", 0, 1)); }
