/* the value lquantize( ) counts must be a number */
BEGIN { @a = lquantize(probename, 0, 10, 1); }
