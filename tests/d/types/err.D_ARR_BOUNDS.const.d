/* a constant index past a declared array is refused at compile time */
int v[4];
BEGIN { trace(v[4]); }
