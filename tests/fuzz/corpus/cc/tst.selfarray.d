#pragma D option quiet

/* A thread-local associative array: self->a[k]. */
BEGIN
{
	self->a["one"] = 1;
	self->a["two"] = 2;
	self->a["two"] *= 21;
}

END
{
	printf("%d %d %d\n", self->a["one"], self->a["two"], self->a["six"]);
}

BEGIN
{
	exit(0);
}
