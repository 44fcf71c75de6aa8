#pragma D option quiet

BEGIN
{
	t = 1;
	f = 0;
	printf("%d %d %d %d\n", t && f, t || f, f || f, t && t);
	printf("%d %d %d %d\n", t ^^ f, t ^^ t, f ^^ f, 7 ^^ 0);
	printf("%d %d\n", !t, !f);
	exit(0);
}
