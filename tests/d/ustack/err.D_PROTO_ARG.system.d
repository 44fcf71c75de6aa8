/* system( ) takes a string format: an int is the wrong type */
BEGIN { system(1); }
