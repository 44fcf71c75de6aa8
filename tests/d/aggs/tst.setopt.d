/*
 * setopt() changes consumer options while tracing: the sort order of the
 * aggregations printed at exit, and quiet for the records that follow.
 * An option that does not exist, or one that cannot change once tracing
 * has started, is an error on the enabled probe, and tracing goes on.
 */
BEGIN
{
	@[1] = count();
	@[2] = count();
	@[2] = count();
	@[3] = count();
	setopt("aggsortrev");
	setopt("aggsortkey", "1");
	setopt("quiet");
	setopt("nosuchoption");
	setopt("bufsize", "8m");
}

BEGIN
{
	printf("quiet now\n");
	exit(0);
}
