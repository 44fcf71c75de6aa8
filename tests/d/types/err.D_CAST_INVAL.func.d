/* a cast to a function type */
BEGIN { trace((int (int))0); }
