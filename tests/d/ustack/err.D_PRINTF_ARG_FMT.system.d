/* system( ) takes a string constant format */
BEGIN { system(1); }
