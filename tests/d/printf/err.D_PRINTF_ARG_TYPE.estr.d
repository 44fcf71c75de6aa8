BEGIN { printf("%S", 1); }
