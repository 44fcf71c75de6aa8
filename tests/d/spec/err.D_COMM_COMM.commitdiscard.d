BEGIN { commit(1); discard(1); }
