/* strtok( ) with an argument of the wrong type */
BEGIN { trace(strtok("a", 1)); }
