/* strtok( ) with wrong number of arguments */
BEGIN { trace(strtok("a", "b", "c")); }
