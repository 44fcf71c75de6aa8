BEGIN { trace(genunix`max_ncpus); }
