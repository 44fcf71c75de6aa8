/* min( ) of a string */
BEGIN { @a = min("a"); }
