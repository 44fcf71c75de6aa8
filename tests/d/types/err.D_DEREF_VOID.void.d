/* a void pointer has nothing to load */
BEGIN { trace(*alloca(8)); }
