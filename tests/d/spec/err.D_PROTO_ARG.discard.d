/* discard( ) takes an integer ID */
BEGIN { discard("a"); }
