/* a scalar array is not indexed as an associative array */
int v[4];
BEGIN { v[0, 1] = 2; }
