/* copyin( ) with wrong number of arguments */
BEGIN { trace(copyin(0, 1, 2)); }
