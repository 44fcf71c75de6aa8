/* strtoll( ) with an argument of the wrong type */
BEGIN { trace(strtoll(1)); }
