/* Linux keeps no per-thread last system call error: errno is refused */
BEGIN { trace(errno); }
