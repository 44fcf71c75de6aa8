BEGIN { printf("x"); commit(1); }
