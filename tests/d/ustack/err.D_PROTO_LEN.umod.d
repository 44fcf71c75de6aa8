/* umod( ) takes one address */
BEGIN { umod(1, 2); }
