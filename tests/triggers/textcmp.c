/*
 * textcmp: compare the executable mappings of a process's own program
 * (/proc/PID/exe) with the bytes of its file, to check that a tracer
 * left no patch behind.  Exits 0 when they are the same, or prints the
 * first differing address and exits 1; 2 on errors.
 *
 *	textcmp PID
 */
#include <sys/types.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char path[64], exe[PATH_MAX], line[PATH_MAX + 128], *name;
	unsigned long lo, hi, off;
	unsigned char a[4096], b[4096];
	char perms[8];
	int memfd, filefd, nmaps = 0;
	ssize_t n;
	FILE *fp;

	if (argc != 2) {
		fprintf(stderr, "usage: textcmp PID\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%s/exe", argv[1]);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) == -1) {
		perror(path);
		return 2;
	}
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%s/mem", argv[1]);
	if ((memfd = open(path, O_RDONLY)) == -1) {
		perror(path);
		return 2;
	}
	if ((filefd = open(exe, O_RDONLY)) == -1) {
		perror(exe);
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%s/maps", argv[1]);
	if ((fp = fopen(path, "r")) == NULL) {
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		unsigned long at;

		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perms, &off) != 4)
			continue;
		if ((name = strchr(line, '/')) == NULL)
			continue;
		name[strcspn(name, "\n")] = '\0';
		if (strcmp(name, exe) != 0 || perms[2] != 'x')
			continue;
		nmaps++;
		for (at = lo; at < hi; at += sizeof(a)) {
			size_t len = hi - at < sizeof(a) ? hi - at : sizeof(a);
			ssize_t fn, mn;
			size_t i;

			mn = pread(memfd, a, len, (off_t)at);
			fn = pread(filefd, b, len, (off_t)(off + (at - lo)));
			if (mn <= 0)
				break;
			/* the last page may run past the end of the file */
			if (fn < mn)
				mn = fn < 0 ? 0 : fn;
			for (i = 0; i < (size_t)mn; i++) {
				if (a[i] != b[i]) {
					printf("differ at 0x%lx\n", at + i);
					return 1;
				}
			}
		}
	}
	fclose(fp);
	if (nmaps == 0) {
		fprintf(stderr, "textcmp: no executable mapping of %s\n", exe);
		return 2;
	}
	return 0;
}
