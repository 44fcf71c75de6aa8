#pragma D option quiet

/*
 * A string is an array of char: bcopy()'s void * source takes it, as in
 * illumos; and illumos's D casts a pointer to a string.
 */
BEGIN
{
	b = (char *)alloca(8);
	bcopy(probename, b, 3);
	b[3] = '\0';
	bcopy("xyz", b + 1, 2);
	printf("[%s]\n", stringof(b));
}

/* and a pointer cast to string is the string at it, stringof() */
BEGIN
{
	c = (char *)alloca(4);
	c[0] = 'o'; c[1] = 'k'; c[2] = '\0';
	v = (void *)c;
	printf("[%s] [%s]\n", (string)v, (string)c);
}

BEGIN
{
	exit(0);
}
