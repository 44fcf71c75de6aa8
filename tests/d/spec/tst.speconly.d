/*
 * A clause of only speculate( ) stores nothing, nor does one of only
 * discard( ): neither prints a line, as in illumos.
 */
BEGIN { s = speculation(); }
BEGIN { speculate(s); }
BEGIN { discard(s); }
BEGIN { exit(0); }
