/* id 0 is never a speculation, yet speculate/commit/discard accept it */
#pragma D option quiet

BEGIN { speculate(0); printf("lost\n"); }
BEGIN { commit(0); }
BEGIN { discard(0); }
BEGIN { printf("done\n"); exit(0); }
