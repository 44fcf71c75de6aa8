/*
 * firsttouch: open the path FILE holds, from a mapping of FILE that
 * nothing has read before the call (the page is not in memory when the
 * call starts; the kernel reads it in during the call); exit 0 whether
 * the open works or not.
 *
 *	firsttouch FILE
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct stat st;
	char *path;
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_RDONLY)) == -1 ||
	    fstat(fd, &st) == -1) {
		fprintf(stderr, "usage: firsttouch FILE\n");
		return 1;
	}
	/* a private mapping: its page is read in at the first touch */
	if ((path = mmap(NULL, (size_t)st.st_size + 1, PROT_READ, MAP_PRIVATE,
	    fd, 0)) == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	fd = openat(AT_FDCWD, path, O_RDONLY);
	if (fd != -1)
		close(fd);
	return 0;
}
