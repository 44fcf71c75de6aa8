#pragma D option quiet

BEGIN
{
	c = (char)127;
	c++;
	i = 2147483647;
	i++;
	u = (unsigned char)0;
	u--;
	printf("%d %d %d\n", c, i, u);
	exit(0);
}
