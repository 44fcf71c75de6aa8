/* a kernel subroutine is refused, but its argument count is checked first */
BEGIN { x = rw_read_held(1, 2); }
