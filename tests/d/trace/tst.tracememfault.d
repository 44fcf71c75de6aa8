#pragma D option quiet

/* tracemem() of memory DIF may not load is a fault, as in illumos;
 * the clause's record is dropped and tracing goes on. */
BEGIN
{
	printf("not printed\n");
	tracemem(0, 16);
}

BEGIN
{
	printf("done\n");
	exit(0);
}
