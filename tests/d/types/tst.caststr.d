#pragma D option quiet
/* (string) of a pointer to D memory: the string there */
BEGIN
{
	p = (char *)alloca(4);
	p[0] = 'o';
	p[1] = 'k';
	p[2] = '\0';
	s = (string)p;
	printf("%s %d\n", s, strlen((string)(p + 1)));
	exit(0);
}
