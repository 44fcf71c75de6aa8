/* a compound assignment of a string to an integer */
BEGIN { n = 1; n *= "two"; }
