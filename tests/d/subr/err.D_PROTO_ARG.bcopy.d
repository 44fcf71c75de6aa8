/* bcopy( ) with an argument of the wrong type: an integer destination */
BEGIN { bcopy(alloca(2), 7, 1); }
