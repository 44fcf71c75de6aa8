BEGIN { printf("%.*d"); }
