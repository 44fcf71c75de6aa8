/* stack( ) argument #1 is a uint32_t */
BEGIN { stack("deep"); }
