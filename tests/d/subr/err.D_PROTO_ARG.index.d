/* index( ) with an argument of the wrong type */
BEGIN { trace(index(1, "b")); }
