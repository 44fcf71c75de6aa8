/* curlwpsinfo is kernel-only */
BEGIN { trace(curlwpsinfo); }
