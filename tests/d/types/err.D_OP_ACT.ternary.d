/* an action is no value for either side of ?: */
BEGIN { v = timestamp > 0 ? 1 : exit(0); }
