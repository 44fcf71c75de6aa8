/* system( ) needs a command format */
BEGIN { system(); }
