/* ustack()'s string-table size is a uint32_t: a string is refused */
BEGIN { ustack(5, "big"); }
