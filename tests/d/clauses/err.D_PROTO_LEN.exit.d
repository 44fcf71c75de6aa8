/* exit( ) takes a status */
BEGIN { exit(); }
