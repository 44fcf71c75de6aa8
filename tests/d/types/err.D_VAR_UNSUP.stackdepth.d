BEGIN { trace(stackdepth); }
