/* A global of 64 KiB, the most a variable holds, is traced whole. */
#pragma D option quiet
int v[16384];

BEGIN
{
	v[0] = 1;
	v[16383] = 2;
	printf("%d %d %d\n", v[0], v[8000], v[16383]);
	exit(0);
}
