/*
 * fuzz_procfs.c: libFuzzer target for the daemon's parsers of the /proc
 * text it reads about a traced process (fasttrap/ft_procfs.c): each line
 * of the input as a line of /proc/PID/maps (where the process chooses
 * the paths: file names may hold spaces, "(deleted)", anything but a
 * newline), as ft_proc.c, ft_uprobe.c and the unwinder read them, and
 * the whole input as /proc/PID/stat (where it chooses the command name:
 * spaces and parentheses) for every field number, and each line as a
 * line of /proc/PID/status for the keys the daemon asks (as dtd_host.c
 * reads it, 255 bytes at most).  A parsed line must keep its path
 * inside the line and its range in order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ft.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_PROCFS_LINE	(4096 + 128)	/* ft_proc_maps's buffer */
#define FUZZ_PROCFS_STATUS	256		/* dtd_host_status's */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, line[FUZZ_PROCFS_LINE];
	const char *p, *end, *nl;
	static const char *const keys[] = { "Uid", "Gid", "PPid", "Tgid",
	    "CapPrm", "SigPnd" };
	ft_mapent_t me;
	uint64_t v;
	long a, b;
	size_t k;
	size_t n;
	int f;

	/* maps: line by line, as fgets would cut them */
	for (p = (const char *)data, end = p + size; p < end; p = nl) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl != NULL ? nl + 1 : end;
		n = (size_t)(nl - p);
		if (n > sizeof(line) - 1)
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (ft_procfs_mapline(line, &me) == -1)
			continue;
		if (me.me_lo > me.me_hi || me.me_path < line ||
		    me.me_path > line + n || strchr(me.me_path, '\n') != NULL)
			abort();
	}

	/* status: line by line, in dtd_host_status's buffer */
	for (p = (const char *)data, end = p + size; p < end; p = nl) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl != NULL ? nl + 1 : end;
		n = (size_t)(nl - p);
		if (n > FUZZ_PROCFS_STATUS - 1)
			n = FUZZ_PROCFS_STATUS - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (ft_procfs_statusline(line, keys[k], &a, &b) == 1 &&
			    b != -1 && b != a)
				abort();
	}

	/* stat: the whole input, as one read(2) of it */
	if ((buf = malloc(size + 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (f = 0; f < 64; f++)
		(void)ft_procfs_stat(buf, f, &v);
	free(buf);
	return 0;
}
