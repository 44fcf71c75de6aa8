BEGIN { speculate(speculation()); @a = count(); }
