/* @@args: -C */
/*
 * A clause of 1,280 statements (each one an action, as in illumos) is
 * one program like any other: it compiles, goes to the daemon and runs.
 */
#pragma D option quiet
#define	S1	n++;
#define	S8	S1 S1 S1 S1 S1 S1 S1 S1
#define	S64	S8 S8 S8 S8 S8 S8 S8 S8
#define	S1280	S64 S64 S64 S64 S64 S64 S64 S64 S64 S64 \
		S64 S64 S64 S64 S64 S64 S64 S64 S64 S64
int n;
BEGIN
{
	S1280
	printf("%d\n", n);
	exit(0);
}
