/* a base equal to the limit leaves no range to divide */
BEGIN { @a = lquantize(5, 20, 20, 5); }
