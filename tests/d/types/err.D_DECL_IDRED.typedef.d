/* a typedef name may not be a variable name too */
int foo;
typedef long foo;
