/* from D 1.1 on, rindex is a subroutine: it cannot be redeclared */
#pragma D option version=1.1

int rindex;

BEGIN
{
	exit(0);
}
