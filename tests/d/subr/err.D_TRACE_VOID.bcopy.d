/* a void result cannot be traced */
BEGIN { trace(bcopy(alloca(1), alloca(1), 1)); }
