/* dirname( ) with an argument of the wrong type */
BEGIN { trace(dirname(1)); }
