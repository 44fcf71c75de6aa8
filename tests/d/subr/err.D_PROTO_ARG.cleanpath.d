/* cleanpath( ) with an argument of the wrong type */
BEGIN { trace(cleanpath(1)); }
