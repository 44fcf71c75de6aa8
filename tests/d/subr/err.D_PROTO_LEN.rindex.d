/* rindex( ) with wrong number of arguments */
BEGIN { trace(rindex("a", "b", 0, 1)); }
