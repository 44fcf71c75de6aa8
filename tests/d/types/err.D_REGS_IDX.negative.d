/* a register index below 0 is refused when the program is compiled */
BEGIN
{
	trace(uregs[R_RAX - 11]);
	exit(0);
}
