/* a function may not return a function */
BEGIN { trace(sizeof (int (*)(int)(long))); }
