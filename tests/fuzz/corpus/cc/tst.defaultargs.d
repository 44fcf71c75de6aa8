/* @@args: -x defaultargs */
#pragma D option quiet

BEGIN
{
	printf("%d [%s]\n", $1, $$1);
	exit(0);
}
