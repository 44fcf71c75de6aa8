/* kernel stacks do not exist in user-space tracing */
BEGIN { printf("%k", 1); }
