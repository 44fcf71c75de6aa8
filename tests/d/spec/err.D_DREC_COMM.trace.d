BEGIN { discard(1); trace(1); }
