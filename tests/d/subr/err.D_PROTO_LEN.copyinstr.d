/* too many for optional arguments: "no more than" */
BEGIN { trace(copyinstr(arg0, 1, 2)); }
