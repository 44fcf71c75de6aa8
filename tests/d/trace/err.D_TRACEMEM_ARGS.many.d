BEGIN { tracemem(0, 4, 2, 1); }
