/* stddev( ) of a string */
BEGIN { @a = stddev("a"); }
