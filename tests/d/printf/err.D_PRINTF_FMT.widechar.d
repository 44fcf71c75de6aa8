BEGIN { printf("%wc", 65); }
