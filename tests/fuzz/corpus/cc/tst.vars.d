#pragma D option quiet

BEGIN
{
	s = "str";
	n = -42;
	printf("%s=%d %s\n", s, n, s == "str" ? "same" : "diff");
	exit(0);
}
