/* curcpu is kernel-only */
BEGIN { trace(curcpu); }
