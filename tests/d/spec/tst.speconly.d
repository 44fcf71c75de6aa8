/*
 * A clause of only speculate( ) has a speculative record (here
 * discarded, then committed); one of only discard( ) or commit( )
 * stores none: no line of its own, as in illumos.
 */
BEGIN { s = speculation(); }
BEGIN { speculate(s); }
BEGIN { discard(s); }
BEGIN { t = speculation(); }
BEGIN { speculate(t); }
BEGIN { commit(t); }
BEGIN { exit(0); }
