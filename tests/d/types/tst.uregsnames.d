/*
 * The i386 register names are the 64-bit registers they grew into, as
 * illumos maps them on amd64, and the trap number and error code, which
 * Linux keeps out of a thread's user registers, read 0 anywhere.
 */
#pragma D option quiet
BEGIN
{
	printf("%d %d %d %d\n", R_EAX == R_RAX, R_EBX == R_RBX,
	    R_ECX == R_RCX, R_EDX == R_RDX);
	printf("%d %d %d %d\n", R_ESI == R_RSI, R_EDI == R_RDI,
	    R_EBP == R_RBP, R_ESP == R_RSP);
	printf("%d %d %d %d\n", R_EIP == R_RIP, R_EFL == R_RFL,
	    R_UESP == R_RSP, R_PC == R_EIP);
	printf("%d %d %d\n", uregs[R_TRAPNO], uregs[R_ERR],
	    R_TRAPNO != R_ERR);
	exit(0);
}
