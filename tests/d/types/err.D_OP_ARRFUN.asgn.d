/* an array is not assigned whole, as in C */
int v[2];
int w[2];
BEGIN { w = v; }
