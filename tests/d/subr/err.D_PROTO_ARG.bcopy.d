/* bcopy( ) with an argument of the wrong type */
BEGIN { bcopy("a", alloca(1), 1); }
