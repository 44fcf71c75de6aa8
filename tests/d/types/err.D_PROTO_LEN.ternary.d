/* an action inside ?: still has its arguments checked first */
BEGIN { v = timestamp > 0 ? exit() : 2; }
