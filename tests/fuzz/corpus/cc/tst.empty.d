#pragma D option quiet

BEGIN
{
}

BEGIN
{
	;
	exit(0)
}
