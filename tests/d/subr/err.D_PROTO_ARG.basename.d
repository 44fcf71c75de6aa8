/* basename( ) with an argument of the wrong type */
BEGIN { trace(basename(1)); }
