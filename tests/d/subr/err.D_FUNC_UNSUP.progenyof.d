/* the VM has no progenyof() yet: refused, never pretended */
BEGIN { trace(progenyof(1)); }
