BEGIN { trace(progenyof()); }
