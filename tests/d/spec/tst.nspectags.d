/* @@args: -x droptags */
/* nspec=1: the second and third speculation() find no free buffer */
#pragma D option quiet
#pragma D option nspec=1

BEGIN
{
	a = speculation();
	b = speculation();
	c = speculation();
	printf("%d %d %d\n", a, b, c);
	exit(0);
}
