/* raise( ) takes an integer */
BEGIN { raise("a"); }
