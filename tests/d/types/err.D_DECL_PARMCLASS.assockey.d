/* the keys of an associative array are parameters too */
string names[int, auto int];

BEGIN
{
	exit(0);
}
