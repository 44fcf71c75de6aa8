/* with the right count, a kernel subroutine is refused */
BEGIN { x = getminor(1); }
