/* @@args: -x cpu=0 */
#pragma D option quiet
#pragma D option bufsize=56
/*
 * commit() copies a speculation into the principal buffer in one piece,
 * as illumos does: its 3 records (48 bytes) do not fit in the 40 bytes
 * left after "0" (16 bytes), so they are one drop; exit()'s record (16)
 * still fits.
 */
BEGIN { s = speculation(); }
BEGIN { speculate(s); printf("%d\n", 1); }
BEGIN { speculate(s); printf("%d\n", 2); }
BEGIN { speculate(s); printf("%d\n", 3); }
BEGIN { printf("%d\n", 0); }
BEGIN { commit(s); }
BEGIN { exit(0); }
