/*
 * commit() and discard() may be repeated in a clause, on one
 * speculation or several; data may follow discard() (not commit()).
 */
#pragma D option quiet
#pragma D option nspec=2
BEGIN { a = speculation(); b = speculation(); }
BEGIN { speculate(a); printf("kept %d\n", a); }
BEGIN { speculate(b); printf("dropped %d\n", b); }
BEGIN { discard(b); discard(b); printf("after discard\n"); }
BEGIN { commit(a); commit(a); discard(a); }
BEGIN { exit(0); }
