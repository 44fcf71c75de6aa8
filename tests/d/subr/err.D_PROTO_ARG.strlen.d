/* an int where a string is expected */
BEGIN { trace(strlen(1)); }
