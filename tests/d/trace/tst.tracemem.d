#pragma D option quiet
/*
 * tracemem(): a hex dump of the bytes, 16 to a row; with a third
 * argument, only that many of them.
 */
BEGIN
{
	this->p = (uint64_t *)alloca(40);
	this->p[0] = 0x3736353433323130;	/* "01234567" */
	this->p[1] = 0x6665646362613938;	/* "89abcdef" */
	this->p[2] = 0x6e6d6c6b6a696867;	/* "ghijklmn" */
	this->p[3] = 0x767574737271706f;	/* "opqrstuv" */
	this->p[4] = 0xff7f0a097a797877;	/* "wxyz\t\n\177\377" */
	tracemem(this->p, 40);
	tracemem(this->p, 40, 5);
	tracemem(this->p, 40, 100);
	tracemem(this->p, 1);
	exit(0);
}
