BEGIN { commit(1); commit(1); }
