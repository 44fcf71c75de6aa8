/*
 * A predicate may declare a variable by assigning it before it reads it,
 * in evaluation order: here the first firing declares and sets v.
 */
#pragma D option quiet
BEGIN /(k++ == 0) ? v = 7 : v/ { printf("%d %d\n", k, v); }
BEGIN { exit(0); }
