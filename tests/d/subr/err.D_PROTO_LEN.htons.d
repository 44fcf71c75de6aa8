/* htons( ) with wrong number of arguments */
BEGIN { trace(htons()); }
