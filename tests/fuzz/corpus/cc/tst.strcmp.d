#pragma D option quiet

BEGIN
{
	s = "abc";
	printf("%d %d %d %d\n", s == "abc", s != "abc", s < "abd", s > "abd");
	printf("%d\n", probename == "BEGIN");
	exit(0);
}
