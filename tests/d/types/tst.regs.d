/* The R_* names index uregs[] in Linux's struct user_regs_struct order. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d %d %d %d\n", R_PC, R_SP, R_FP, R_PS, R_R0,
	    R_R1, R_RIP, R_RSP);
	printf("%d %d %d %d %d %d %d %d\n", R_RAX, R_RBX, R_RCX, R_RDX,
	    R_RSI, R_RDI, R_R8, R_R15);
	printf("%d %d %d %d %d %d\n", R_CS, R_SS, R_DS, R_ES, R_FS, R_GS);
	printf("%d %d %d\n", R_RFL, R_FSBASE, R_GSBASE);
	exit(0);
}
