/* specsize=40 holds two 16-byte records: the third and fourth drop */
#pragma D option quiet
#pragma D option specsize=40

BEGIN { s = speculation(); }
BEGIN { speculate(s); printf("%d\n", 1); }
BEGIN { speculate(s); printf("%d\n", 2); }
BEGIN { speculate(s); printf("%d\n", 3); }
BEGIN { speculate(s); printf("%d\n", 4); }
BEGIN { commit(s); }
BEGIN { exit(0); }
