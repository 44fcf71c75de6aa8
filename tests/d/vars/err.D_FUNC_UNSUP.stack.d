/* stack( ) is a kernel stack */
BEGIN { stack(); }
