/* a thread-local may not have a function type: a pointer may */
self int f(int);
BEGIN { exit(0); }
