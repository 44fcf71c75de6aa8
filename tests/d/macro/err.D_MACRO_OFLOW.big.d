/* @@args: 0x123456789abcdef012 */
/* a number too big for 64 bits is no macro argument */
BEGIN { trace($1); exit(0); }
