#pragma D option quiet

/*
 * this-> variables live for one firing: set in one clause, seen by the
 * next clauses of the same firing, and gone at the next firing.  Sums
 * over three firings, printed from END.
 */
BEGIN
{
	this->v = 0;
	this->s = "";
	i = 0;
	before = 0;
	sbefore = 0;
	after = 0;
	safter = 0;
}

tick-1ms
{
	before += this->v;
	sbefore += this->s == "" ? 0 : 1;
	this->v = ++i * 10;
	this->s = "set";
}

tick-1ms
{
	after += this->v;
	safter += this->s == "set" ? 1 : 0;
	this->v++;
}

tick-1ms
/this->v == 31/
{
	exit(0);
}

END
{
	printf("%d %d %d %d %d\n", i, before, sbefore, after, safter);
}
