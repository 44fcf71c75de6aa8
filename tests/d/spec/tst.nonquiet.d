/*
 * without -q a commit or discard clause shows nothing of its own, not
 * even its probe line: only the committed data shows
 */
BEGIN { s = speculation(); }
BEGIN { speculate(s); trace(42); }
BEGIN { commit(s); }
BEGIN { exit(0); }
