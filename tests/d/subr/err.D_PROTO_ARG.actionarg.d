/* an action passed to a subroutine is of type void */
BEGIN { x = strlen(printf("%d", 3)); }
