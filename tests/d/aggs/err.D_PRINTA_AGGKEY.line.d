/* the error names the line of the printa( ), not the clause's end */
BEGIN
{
	@one[1, 2] = count();
	@two[1] = count();
	printa("%d %d %@d %@d\n",
	    @one, @two);
	exit(0);
}

END
{
}
