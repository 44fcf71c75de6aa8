/* @@args: -x version=1.0 */
/*
 * Under D 1.0 the names of later subroutines, actions and variables are
 * the program's own, and the libraries' translators still work.
 */
#pragma D option quiet

int toupper, strtoll, print, ucaller, json;

BEGIN
{
	toupper = 1;
	strtoll = toupper + 1;
	print = strtoll * 10;
	ucaller = print + 1;
	json = ucaller + 1;
	printf("%d %d %d %d %d %s\n", toupper, strtoll, print, ucaller, json,
	    curpsinfo->pr_fname);
	exit(0);
}
