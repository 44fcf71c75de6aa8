/* bcopy( ) with wrong number of arguments */
BEGIN { bcopy(0, 0); }
