/* the second description of a clause, named without its provider */
BEGIN, ERROR
/args[2] == 0/
{
	exit(0);
}
