/* too few for optional arguments: "at least" */
BEGIN { trace(substr("a")); }
