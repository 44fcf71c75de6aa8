/* @@args: -C */
/* cpp fails: dtrace fails */
#error stop here
BEGIN { exit(0); }
