BEGIN { trace(args[10]); }
