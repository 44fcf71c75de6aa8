/*
 * A declaration takes no storage until the variable is used: externs
 * naming large objects of the traced program, and a global too big for
 * a variable that no clause reads or writes, compile and run.
 */
#pragma D option quiet
extern int e1[200][300];
extern long e2[100][100][100], e3[5];
int unused[100000];

BEGIN
{
	printf("%d\n", sizeof (e2) / sizeof (e2[0][0][0]));
	exit(0);
}
