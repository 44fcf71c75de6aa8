#pragma D option quiet
/* register is the parameter's one storage class, as in C */
int check(register int, register const char *);
int pairs[register int, string];

BEGIN
{
	pairs[3, "x"] = 4;
	printf("%d\n", pairs[3, "x"]);
	exit(0);
}
