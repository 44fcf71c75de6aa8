/*
 * setid: a program for tests of set-id execs (tests/daemon/setid.sh),
 * installed set-uid, set-gid or with file capabilities by the test.
 *
 *	setid [-d saved|full] [-w FILE] [-e FILE] [-o OUT] N SECRET STATUS
 *
 * -d saved drops the effective uid to the real one and keeps the saved
 * uid (it could take its privilege back); -d full drops every uid and
 * gid to the real ones and marks itself dumpable again.  With -w, it
 * then prints "setid waits for FILE" and waits until FILE exists (a
 * test attaches meanwhile).  It reads SECRET (a file only its
 * privilege can read), calls atoi() on what it read N times, with -e
 * waits until that FILE exists (its memory stays there to be read after
 * the fact), writes
 * "setid euid=E calls=N read=yes|no done" to OUT (default: stdout) and
 * exits with STATUS.
 */
#include <sys/prctl.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* called through a volatile pointer: never folded, never inlined */
static int	(*volatile conv)(const char *) = atoi;

int
main(int argc, char **argv)
{
	const char *drop = NULL, *wait = NULL, *out = NULL, *end = NULL;
	char buf[128] = "unreadable";
	long n, i;
	ssize_t got;
	FILE *fp;
	uid_t r;
	gid_t g;
	int c, fd;

	while ((c = getopt(argc, argv, "d:w:e:o:")) != -1) {
		switch (c) {
		case 'd':
			drop = optarg;
			break;
		case 'w':
			wait = optarg;
			break;
		case 'e':
			end = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: setid [-d saved|full] [-w FILE] "
		    "[-e FILE] [-o OUT] N SECRET STATUS\n");
		return 2;
	}
	r = getuid();
	g = getgid();
	if (drop != NULL && strcmp(drop, "saved") == 0) {
		if (setresuid(r, r, -1) == -1)
			return 3;
	} else if (drop != NULL) {
		if (setresgid(g, g, g) == -1 || setresuid(r, r, r) == -1 ||
		    prctl(PR_SET_DUMPABLE, 1) == -1)
			return 3;
	}
	if (wait != NULL) {
		printf("setid waits for %s\n", wait);
		fflush(stdout);
		while (access(wait, F_OK) != 0)
			usleep(10000);
	}
	n = atol(argv[optind]);
	if ((fd = open(argv[optind + 1], O_RDONLY)) != -1) {
		if ((got = read(fd, buf, sizeof(buf) - 1)) > 0)
			buf[got] = '\0';
		close(fd);
	}
	for (i = 0; i < n; i++)
		(void)conv(buf);
	while (end != NULL && access(end, F_OK) != 0)
		usleep(10000);
	fp = out != NULL ? fopen(out, "w") : stdout;
	if (fp == NULL)
		return 4;
	fprintf(fp, "setid euid=%d calls=%ld read=%s done\n", (int)geteuid(),
	    n, fd != -1 ? "yes" : "no");
	fclose(fp);
	return atoi(argv[optind + 2]);
}
