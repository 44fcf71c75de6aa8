BEGIN { trace(uregs); }
