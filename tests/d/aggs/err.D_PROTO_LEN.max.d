/* max( ) takes one value */
BEGIN { @a = max(1, 2); }
