#pragma D option quiet

BEGIN
{
	x = 1 + 2;
	s = "hello";
	printf("%d %s\n", x, s);
}

BEGIN
{
	x = x * 2;
	s = "world";
	printf("%d %s\n", x, s);
	exit(0);
}
