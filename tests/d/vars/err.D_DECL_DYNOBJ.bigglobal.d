/*
 * A global variable holds what one DIF variable carries, as a dynamic
 * one does: a bigger one is refused when compiled, not by the daemon
 * when enabled (fuzz_cc).
 */
int big[43666666];

BEGIN
{
	trace(big[4]);
	exit(0);
}
