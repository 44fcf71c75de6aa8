/* min( ) takes one value */
BEGIN { @a = min(); }
