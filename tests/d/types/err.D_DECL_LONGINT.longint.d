/* illumos names this type specifier combination */
long string s;
