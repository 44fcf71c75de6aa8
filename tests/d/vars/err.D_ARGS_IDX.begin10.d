/* BEGIN has no typed arguments: even args[10] is out of its range */
BEGIN { trace(args[10]); }
