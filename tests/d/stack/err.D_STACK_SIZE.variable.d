/* stack()'s frame count is a constant: a variable's value is refused */
int n;

BEGIN { n = 3; stack(n); }
