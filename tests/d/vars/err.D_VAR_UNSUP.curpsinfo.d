/* curpsinfo is not available */
BEGIN { trace(curpsinfo); }
