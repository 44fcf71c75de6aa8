/* a struct inline takes a value of that struct type, not an integer */
struct pair {
	int lo;
	int hi;
};
inline struct pair p = 3;
BEGIN
{
	exit(0);
}
