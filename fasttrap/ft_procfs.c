/*
 * ft_procfs.c: what fasttrap reads of /proc about a traced process: the
 * lines of /proc/PID/maps, the fields of /proc/PID/stat (parsers apart
 * from their reading, so that tests/fuzz/fuzz_procfs can feed them
 * anything), and the files the process has mapped, opened as the
 * process has them.
 *
 * A path in /proc/PID/maps names the mapped file only while nothing
 * changes: the user may have renamed another file over it (the line
 * then ends in " (deleted)"), mounted another file over it, or swapped a
 * directory or a symbolic link on the way between our read of the line
 * and our open; and it may name a file in a mount namespace the daemon
 * does not share.  So a root daemon never opens it: it opens
 * /proc/PID/map_files/LO-HI, the very file of that mapping (which takes
 * CAP_SYS_ADMIN, or CAP_CHECKPOINT_RESTORE).  A daemon without either (a
 * private one run by a user) opens the path, through /proc/PID/root,
 * without following a FIFO's or device's open protocol, and keeps the
 * file only if its device and inode are those /proc/PID/maps gives for
 * the mapping; a file that is not is refused, and the reason is logged
 * (ft_procfs_setwarn).  Every part of fasttrap that reads a traced
 * process's files (symbols, build-ids, load bias, the unwinder's CFI,
 * uprobe links) comes through here.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

static void	(*ft_procfs_warnfn)(const char *, ...);

/* Where refusals are reported (the daemon's log); NULL: nowhere. */
void
ft_procfs_setwarn(void (*fn)(const char *, ...))
{
	ft_procfs_warnfn = fn;
}

static int
ft_procfs_hex(const char **sp, uint64_t *vp)
{
	const char *s = *sp;
	uint64_t v = 0;
	int n = 0;

	for (;; s++, n++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (n == 16)		/* more than 64 bits */
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -1;
	*sp = s;
	*vp = v;
	return 0;
}

static int
ft_procfs_dec(const char **sp, uint64_t *vp)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*sp = s;
	*vp = v;
	return 0;
}

static int
ft_procfs_sep(const char **sp, char c)
{
	if (**sp != c)
		return -1;
	(*sp)++;
	return 0;
}

/*
 * One line of /proc/PID/maps ("LO-HI PERM OFF MAJ:MIN INO   PATH"), its
 * newline stripped or not, into *me; me_path points into line (its
 * newline, if any, is cut off there), "" for an anonymous mapping.
 * 0, or -1 for a line that is not one.
 */
int
ft_procfs_mapline(char *line, ft_mapent_t *me)
{
	const char *s = line;
	uint64_t maj, mnr;
	char *nl;
	int i;

	memset(me, 0, sizeof(*me));
	if (ft_procfs_hex(&s, &me->me_lo) == -1 ||
	    ft_procfs_sep(&s, '-') == -1 ||
	    ft_procfs_hex(&s, &me->me_hi) == -1 || me->me_hi < me->me_lo ||
	    ft_procfs_sep(&s, ' ') == -1)
		return -1;
	for (i = 0; i < 4; i++) {
		if (s[i] == '\0' || s[i] == ' ' || s[i] == '\n')
			return -1;
		me->me_perm[i] = s[i];
	}
	s += 4;
	if (ft_procfs_sep(&s, ' ') == -1 ||
	    ft_procfs_hex(&s, &me->me_off) == -1 ||
	    ft_procfs_sep(&s, ' ') == -1 ||
	    ft_procfs_hex(&s, &maj) == -1 || ft_procfs_sep(&s, ':') == -1 ||
	    ft_procfs_hex(&s, &mnr) == -1 || maj > 0xfff || mnr > 0xfffff ||
	    ft_procfs_sep(&s, ' ') == -1 ||
	    ft_procfs_dec(&s, &me->me_ino) == -1)
		return -1;
	me->me_dev = makedev((unsigned int)maj, (unsigned int)mnr);
	while (*s == ' ')
		s++;
	me->me_path = s;
	if ((nl = strchr(line + (s - line), '\n')) != NULL)
		*nl = '\0';
	return 0;
}

static void
ft_procfs_err(char *err, size_t errlen, const char *fmt, ...)
{
	char buf[PATH_MAX + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", buf);
}

/*
 * Open the file of mapping me of process pid, read-only: the file the
 * process has mapped, or none.  Returns a descriptor, or -1 with a
 * reason in err (and, for a file that is not the one mapped, in the
 * log).
 */
int
ft_procfs_mapopen(pid_t pid, const ft_mapent_t *me, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	struct stat st;
	int fd, e;

	if (me->me_path == NULL || me->me_path[0] != '/' || me->me_ino == 0) {
		ft_procfs_err(err, errlen, "pid %d: mapping %llx-%llx is not "
		    "of a file", (int)pid, (unsigned long long)me->me_lo,
		    (unsigned long long)me->me_hi);
		errno = ENOENT;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
	    (unsigned long long)me->me_lo, (unsigned long long)me->me_hi);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1)
		return fd;
	/* gone (or the process is): nothing else to try */
	if (errno != EPERM && errno != EACCES) {
		e = errno;
		ft_procfs_err(err, errlen, "%s: %s", me->me_path,
		    strerror(e));
		errno = e;
		return -1;
	}

	/*
	 * No CAP_SYS_ADMIN: the path, as the process sees it, and then
	 * the proof that it is the file mapped.  O_NONBLOCK: a FIFO put
	 * there must not hang us in open.
	 */
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, me->me_path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) == -1 && (fd = open(me->me_path, O_RDONLY |
	    O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) == -1) {
		e = errno;
		ft_procfs_err(err, errlen, "%s: %s", me->me_path,
		    strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_dev != me->me_dev ||
	    (uint64_t)st.st_ino != me->me_ino) {
		close(fd);
		ft_procfs_err(err, errlen, "pid %d: %s is not the file "
		    "mapped at %llx (device %u:%u inode %llu); not used",
		    (int)pid, me->me_path, (unsigned long long)me->me_lo,
		    major(me->me_dev), minor(me->me_dev),
		    (unsigned long long)me->me_ino);
		if (ft_procfs_warnfn != NULL)
			ft_procfs_warnfn("pid %d: %s is not the file mapped "
			    "at %llx (device %u:%u inode %llu); not used",
			    (int)pid, me->me_path,
			    (unsigned long long)me->me_lo, major(me->me_dev),
			    minor(me->me_dev), (unsigned long long)me->me_ino);
		errno = ESTALE;
		return -1;
	}
	/* the descriptor is read with pread and mmap: blocking is fine */
	(void)fcntl(fd, F_SETFL, 0);
	return fd;
}

/*
 * The mapping of process pid that holds address addr, into *me, with
 * its path copied to buf (len bytes).  0, or -1.
 */
int
ft_procfs_mapfind(pid_t pid, uint64_t addr, ft_mapent_t *me, char *buf,
    size_t len)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (ft_procfs_mapline(line, me) == -1 || addr < me->me_lo ||
		    addr >= me->me_hi)
			continue;
		if (strlen(me->me_path) >= len)
			break;
		memcpy(buf, me->me_path, strlen(me->me_path) + 1);
		me->me_path = buf;
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/*
 * Field field of the text of a /proc/PID/stat file, buf, numbered as
 * proc(5) numbers them (3 on), into *vp.  The command name (field 2) is
 * the process's to choose: it may hold spaces and parentheses, so the
 * fields start after the last ')'.  No allocation, no stdio: the
 * guardian calls it after fork.  0, or -1.
 */
int
ft_procfs_stat(const char *buf, int field, uint64_t *vp)
{
	const char *s;
	int i;

	if (field < 3 || (s = strrchr(buf, ')')) == NULL)
		return -1;
	for (i = 2; i < field && s != NULL; i++)
		s = strchr(s + 1, ' ');
	if (s == NULL)
		return -1;
	*vp = strtoull(s + 1, NULL, 10);
	return 0;
}

/*
 * One line of a /proc/PID/status file: if it is key's ("Uid:\t1000
 * 1000 1000 1000"), its first number into *vp and, with v2p, its second
 * if the rest of the line (the real, effective, saved and file-system
 * ids) all equal it, else -1.  1: key's line, read; 0: another line;
 * -1: key's line, but no number.
 */
int
ft_procfs_statusline(const char *line, const char *key, long *vp,
    long *v2p)
{
	size_t klen = strlen(key);
	long a = 0, b = 0, x = 0, y = 0;

	if (strncmp(line, key, klen) != 0 || line[klen] != ':')
		return 0;
	if (sscanf(line + klen + 1, "%ld %ld %ld %ld", &a, &b, &x, &y) < 1)
		return -1;
	*vp = a;
	if (v2p != NULL)
		*v2p = b != x || b != y || a != b ? -1 : b;
	return 1;
}

/*
 * How many pid namespaces, from the reader's down, number process pid
 * (the fields of its status's NSpid line): 1 for one of the reader's
 * own namespace, more for one in a namespace below it; 0 if unknown.
 */
int
ft_procfs_nsdepth(pid_t pid)
{
	char path[64], line[256], *s, *e;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		for (s = line + 6;; s = e) {
			(void)strtol(s, &e, 10);
			if (e == s)
				break;
			n++;
		}
		break;
	}
	fclose(f);
	return n;
}
