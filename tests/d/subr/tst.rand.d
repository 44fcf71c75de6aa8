/* rand() is an int: its values stay within the int range. */
#pragma D option quiet

BEGIN
{
	this->r = rand();
	printf("%d\n", this->r >= -2147483648 && this->r <= 2147483647);
	printf("%d\n", sizeof (rand()));
	exit(0);
}
