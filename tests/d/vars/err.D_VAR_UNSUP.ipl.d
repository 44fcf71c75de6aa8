/* ipl is kernel-only */
BEGIN { trace(ipl); }
