/* inline constants and expressions, converted to their declared type. */
#pragma D option quiet

inline int MAX = 10;
inline string GREETING = "hello";
inline int TWICE = MAX * 2;
inline uint8_t SMALL = 300;
inline int NEXTPID = pid + 1;
enum { LOW = 1, HIGH = 3 };
inline int SPAN = HIGH - LOW;

BEGIN
{
	printf("%d %s %d %d %d %d %d\n", MAX, GREETING, TWICE, SMALL,
	    MAX + MAX, NEXTPID == pid + 1, SPAN);
	a[MAX] = GREETING;
	printf("%s %d\n", a[10], sizeof (SMALL));
	exit(0);
}
