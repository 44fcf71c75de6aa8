BEGIN { printf("%*d", "w", 1); }
