/* the error is reported at the line where the clause ends, as illumos */
int a[2];
BEGIN
/a/
{
	exit(0);
}
