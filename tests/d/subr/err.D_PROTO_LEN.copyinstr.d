/* too many for optional arguments: "at most" */
BEGIN { trace(copyinstr(arg0, 1, 2)); }
