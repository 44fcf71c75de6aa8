#pragma D option quiet

BEGIN
/1 == 2/
{
	printf("no\n");
}

BEGIN
/2 / 2 == 1/
{
	printf("yes\n");
}

BEGIN
{
	x = 5;
}

BEGIN
/x > 4 && probename == "BEGIN"/
{
	printf("x=%d\n", x);
	exit(0);
}
