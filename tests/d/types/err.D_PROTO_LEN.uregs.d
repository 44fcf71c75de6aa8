BEGIN { trace(uregs[1, 2]); }
