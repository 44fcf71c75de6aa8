/* too many arguments for a one-argument subroutine */
BEGIN { trace(strlen("a", "b")); }
