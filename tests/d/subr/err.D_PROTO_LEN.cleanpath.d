/* cleanpath( ) with wrong number of arguments */
BEGIN { trace(cleanpath("a", "b")); }
