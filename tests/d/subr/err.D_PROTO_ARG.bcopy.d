/*
 * bcopy( ) with an argument of the wrong type: an integer other than 0
 * is no pointer (a string is, an array of char)
 */
BEGIN { bcopy(1, alloca(1), 1); }
