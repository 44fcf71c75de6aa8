/* illumos names this type specifier combination */
BEGIN { x = (long char)1; }
