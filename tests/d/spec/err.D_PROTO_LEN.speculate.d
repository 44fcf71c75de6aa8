/* speculate( ) takes a speculation ID */
BEGIN { speculate(); }
