/* tracemem() needs a constant size */
BEGIN { x = 16; tracemem(0, x); }
