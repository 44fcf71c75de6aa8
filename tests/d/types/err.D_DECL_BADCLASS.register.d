register char *a, b;
