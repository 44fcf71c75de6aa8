/* kernel symbols do not exist for user-space tracing */
BEGIN { trace(`max_ncpus); }
