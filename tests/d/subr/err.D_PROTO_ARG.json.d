/* json( )'s path is a string */
BEGIN { trace(json("{\"a\": 1}", 1)); }
