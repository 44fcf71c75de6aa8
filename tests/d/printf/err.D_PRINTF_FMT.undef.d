BEGIN { printf("%q", 1); }
