/* no arithmetic on a void pointer: operands of incompatible types */
BEGIN { trace(alloca(8) + 1); }
