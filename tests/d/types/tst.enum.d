/* Enumerators are integer constants of their enum type. */
#pragma D option quiet

enum color { RED, GREEN = 5, BLUE, BLACK = -2, WHITE };

BEGIN
{
	c = BLUE;
	printf("%d %d %d %d %d %d\n", RED, GREEN, BLUE, BLACK, WHITE,
	    sizeof (enum color));
	printf("%d %d\n", c == BLUE, c + GREEN * 2);
	exit(0);
}
