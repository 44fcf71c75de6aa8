BEGIN { trace(progenyof("1")); }
