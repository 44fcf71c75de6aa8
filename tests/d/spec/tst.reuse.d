/* committing from the CPU that speculated frees the buffer at once */
#pragma D option quiet
#pragma D option nspec=1

BEGIN { a = speculation(); speculate(a); printf("first %d\n", a); }
BEGIN { commit(a); }
BEGIN { b = speculation(); speculate(b); printf("second %d\n", b); }
BEGIN { commit(b); }
BEGIN { exit(0); }
