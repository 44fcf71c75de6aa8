/* a subroutine is not a variable */
BEGIN { trace(strlen); }
