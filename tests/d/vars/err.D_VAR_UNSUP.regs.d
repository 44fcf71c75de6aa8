/* regs[ ] is kernel-only: uregs[ ] is the user one */
BEGIN { trace(regs[0]); }
