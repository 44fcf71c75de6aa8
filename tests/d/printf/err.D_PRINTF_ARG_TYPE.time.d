BEGIN { printf("%Y", "now"); }
