BEGIN { speculate(1); commit(1); }
