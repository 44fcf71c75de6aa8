/* copyoutstr( ) with an argument of the wrong type */
BEGIN { copyoutstr("a", "b", 1); }
