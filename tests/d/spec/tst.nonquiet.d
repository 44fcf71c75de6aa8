/*
 * Without -q a commit( ) clause stores no data, so it prints no line of
 * its own: only the committed record's line and exit( )'s.
 */
BEGIN { s = speculation(); }
BEGIN { speculate(s); trace(42); }
BEGIN { commit(s); }
BEGIN { exit(0); }
