/* basename(), dirname() and cleanpath() on the awkward cases. */
#pragma D option quiet

BEGIN
{
	printf("[%s] [%s]\n", basename("/"), dirname("/"));
	printf("[%s] [%s]\n", basename("a/"), dirname("a/"));
	printf("[%s] [%s]\n", basename("//a//b/"), dirname("//a//b/"));
	printf("[%s] [%s]\n", basename("/usr/lib/libc.so"),
	    dirname("/usr/lib/libc.so"));
	printf("[%s] [%s]\n", basename("file"), dirname("file"));
	printf("[%s] [%s]\n", basename(""), dirname(""));
	printf("[%s] [%s]\n", basename("/a"), dirname("/a"));
	printf("[%s]\n", cleanpath("a/../b/./c"));
	printf("[%s]\n", cleanpath("/foo//bar/./baz/../qux/"));
	printf("[%s]\n", cleanpath("/a/b/.."));
	printf("[%s]\n", cleanpath("/../x/..y/.z"));
	exit(0);
}
