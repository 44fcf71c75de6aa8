BEGIN { trace(curthread); }
