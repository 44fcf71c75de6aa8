/* The #pragma D forms a program may carry. */
int hits;
#pragma D attributes Evolving/Evolving/Common hits
#pragma D attributes Evolving/Evolving/Common provider myprov provider
#pragma D binding "1.0" myvar
#pragma D depends_on provider pid
#pragma D depends_on provider profile
#pragma D line 10
#pragma D option quiet

BEGIN
{
	printf("accepted\n");
	exit(0);
}
