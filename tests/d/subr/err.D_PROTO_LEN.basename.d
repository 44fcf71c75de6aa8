/* basename( ) with wrong number of arguments */
BEGIN { trace(basename("a", "b")); }
