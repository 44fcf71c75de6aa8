/* rindex( ) with an argument of the wrong type */
BEGIN { trace(rindex("a", 2)); }
