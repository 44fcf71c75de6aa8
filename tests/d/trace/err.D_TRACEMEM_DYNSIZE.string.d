BEGIN { tracemem(0, 4, "x"); }
