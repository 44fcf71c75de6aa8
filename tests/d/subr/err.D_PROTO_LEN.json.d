/* json( ) takes two arguments */
BEGIN { trace(json("{}")); }
