/* stack()'s frame count is checked before the kernel stack is refused */
BEGIN { stack(-4); }
