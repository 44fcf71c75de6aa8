#pragma D option quiet

/*
 * A string variable never assigned is NULL, as in illumos: compared it
 * reads as "", and recording it is the fault "invalid address (0x0)",
 * which the ERROR clause sees as arg4 (DTRACEFLT_BADADDR) and arg5.
 */
self string s;
string m[string];

BEGIN
{
	printf("%d %d\n", self->s == "", m["none"] == NULL);
}

BEGIN
{
	printf("%s\n", m["none"]);
	printf("not reached\n");
}

ERROR
{
	printf("fault %d at %d\n", arg4, arg5);
}

BEGIN
{
	trace(self->s);
}

BEGIN
{
	exit(0);
}
