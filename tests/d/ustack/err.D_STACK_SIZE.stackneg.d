/* stack()'s frame count must be positive */
BEGIN { stack(-4); }
