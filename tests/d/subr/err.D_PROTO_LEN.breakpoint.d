/* breakpoint() is refused, but its argument count is checked first */
BEGIN { breakpoint(3); }
