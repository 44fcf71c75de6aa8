/*
 * String subroutines on constant inputs, illumos semantics: substr with
 * negative indexes and lengths, index/rindex with and without a start,
 * not found as -1, strchr/strrchr/strstr returning the rest of the string.
 */
#pragma D option quiet

BEGIN
{
	printf("strlen: %d %d\n", strlen(""), strlen("hello"));
	printf("strjoin: [%s] [%s]\n", strjoin("foo", "bar"), strjoin("", ""));
	printf("substr: [%s] [%s] [%s] [%s]\n", substr("hello", 1),
	    substr("hello", 1, 3), substr("hello", -2), substr("hello", -3, 2));
	printf("substr: [%s] [%s] [%s] [%s]\n", substr("hello", 10),
	    substr("hello", -10), substr("hello", -10, 7),
	    substr("hello", 1, -2));
	printf("index: %d %d %d %d %d\n", index("hello", "l"),
	    index("hello", "z"), index("hello", "l", 3), index("hello", ""),
	    index("hello", "lo", -5));
	printf("rindex: %d %d %d %d\n", rindex("hello", "l"),
	    rindex("hello", "z"), rindex("hello", "l", 2),
	    rindex("hello", "h", -1));
	printf("strchr: [%s] [%s]\n", strchr("a.b.c", '.'),
	    strrchr("a.b.c", '.'));
	printf("strstr: [%s] [%s]\n", strstr("abcabc", "ca"),
	    strstr("abc", "abc"));
	printf("case: [%s] [%s]\n", toupper("MiXeD 12 case"),
	    tolower("MiXeD 12 case"));
	exit(0);
}
