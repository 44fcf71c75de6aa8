/* a pointer is not a uintptr_t without a cast */
BEGIN { trace(copyinstr(alloca(4))); }
