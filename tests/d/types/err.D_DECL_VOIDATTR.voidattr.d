/* illumos names this type specifier combination */
unsigned void v;
