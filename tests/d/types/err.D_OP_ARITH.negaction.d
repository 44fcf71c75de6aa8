/* an action has no value: unary minus has no arithmetic operand */
BEGIN { v = 1 - -exit(0); }
