/* uregs[] is indexed by a constant naming a register, never a variable */
BEGIN
{
	r = R_RIP;
	trace(uregs[r]);
	exit(0);
}
