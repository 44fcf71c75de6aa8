/* dirname( ) with wrong number of arguments */
BEGIN { trace(dirname()); }
