/*
 * test_ft_procfs: fasttrap/ft_procfs.c.  The /proc/PID/maps line parser
 * on the kernel's forms (a file, "(deleted)", spaces in a path, an
 * anonymous mapping, [vdso]) and on lines that are not, with exact
 * values; the /proc/PID/stat field reader with a command name holding
 * ") "; and ft_procfs_mapopen on this process's own executable mapping:
 * the file it gives is the one mapped (device and inode), and a mapping
 * that is not of a file gives none.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"
#include "tap.h"

static void
test_mapline(void)
{
	char l1[] = "555555554000-555555556000 r-xp 00001000 fe:01 1234567"
	    "                    /usr/bin/a prog (deleted)\n";
	char l2[] = "7ffff7fc5000-7ffff7fc7000 r-xp 00000000 00:00 0"
	    "                          [vdso]\n";
	char l3[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n";
	char l4[] = "7f0000000000-7f0000001000 r-xp 00000000 103:05 42 /x";
	char bad1[] = "7f0000001000-7f0000000000 r-xp 00000000 00:00 0 /x\n";
	char bad2[] = "7f0000000000-7f0000001000 r-x 00000000 00:00 0 /x\n";
	char bad3[] = "10000000000000000-1 r-xp 00000000 00:00 0 /x\n";
	char bad4[] = "1-2 r-xp 0 00:00 99999999999999999999 /x\n";
	char bad5[] = "1-2 r-xp 0 1000:00 1 /x\n";
	char bad6[] = "";
	ft_mapent_t me;

	tap_is(ft_procfs_mapline(l1, &me), 0, "a file's line parses");
	tap_ok(me.me_lo == 0x555555554000ULL && me.me_hi == 0x555555556000ULL,
	    "its range");
	tap_ok(me.me_off == 0x1000 && me.me_ino == 1234567 &&
	    me.me_dev == makedev(0xfe, 1), "its offset, device and inode");
	tap_str(me.me_perm, "r-xp", "its permissions");
	tap_str(me.me_path, "/usr/bin/a prog (deleted)",
	    "its path, spaces and \"(deleted)\" kept, newline cut");
	tap_is(ft_procfs_mapline(l2, &me), 0, "[vdso] parses");
	tap_ok(me.me_ino == 0 && strcmp(me.me_path, "[vdso]") == 0,
	    "[vdso]: no inode, its name");
	tap_is(ft_procfs_mapline(l3, &me), 0, "an anonymous mapping parses");
	tap_str(me.me_path, "", "an anonymous mapping: no path");
	tap_is(ft_procfs_mapline(l4, &me), 0, "a line without its newline");
	tap_ok(me.me_dev == makedev(0x103, 5) && me.me_ino == 42 &&
	    strcmp(me.me_path, "/x") == 0, "major 0x103, inode 42, /x");
	tap_is(ft_procfs_mapline(bad1, &me), -1, "end before start: no");
	tap_is(ft_procfs_mapline(bad2, &me), -1, "3 permission letters: no");
	tap_is(ft_procfs_mapline(bad3, &me), -1, "an address past 64 bits: no");
	tap_is(ft_procfs_mapline(bad4, &me), -1, "an inode past 64 bits: no");
	tap_is(ft_procfs_mapline(bad5, &me), -1, "a major past 12 bits: no");
	tap_is(ft_procfs_mapline(bad6, &me), -1, "an empty line: no");
}

static void
test_status(void)
{
	long a, b;

	tap_is(ft_procfs_statusline("Uid:\t1000\t1000\t1000\t1000\n", "Uid",
	    &a, &b), 1, "status: a Uid line");
	tap_ok(a == 1000 && b == 1000, "status: all four ids 1000");
	tap_is(ft_procfs_statusline("Uid:\t1000\t0\t0\t0\n", "Uid", &a, &b),
	    1, "status: a set-uid process's Uid line");
	tap_ok(a == 1000 && b == -1, "status: real 1000, the others not: -1");
	tap_is(ft_procfs_statusline("Uid:\t7\t7\t7\t8\n", "Uid", &a, &b), 1,
	    "status: fs uid differs");
	tap_is(b, -1, "status: fs uid differs: -1");
	tap_is(ft_procfs_statusline("PPid:\t42\n", "PPid", &a, NULL), 1,
	    "status: PPid");
	tap_is(a, 42, "status: PPid 42");
	tap_is(ft_procfs_statusline("PPid:\t42\n", "Pid", &a, NULL), 0,
	    "status: Pid is not PPid");
	tap_is(ft_procfs_statusline("Uidx:\t1\n", "Uid", &a, NULL), 0,
	    "status: a longer key is another line");
	tap_is(ft_procfs_statusline("Uid:\tnone\n", "Uid", &a, NULL), -1,
	    "status: the key's line without a number");
}

static void
test_stat(void)
{
	const char *s = "4242 (a) b (c) S 17 4242 4242 0 -1 4194560";
	uint64_t v = 0;

	tap_is(ft_procfs_stat(s, 4, &v), 0, "stat: field 4 read");
	tap_is(v, 17, "stat: the ppid after a name with \") \" in it");
	tap_is(ft_procfs_stat(s, 6, &v), 0, "stat: field 6 read");
	tap_is(v, 4242, "stat: field 6");
	tap_is(ft_procfs_stat(s, 40, &v), -1, "stat: a field past the end");
	tap_is(ft_procfs_stat(s, 2, &v), -1, "stat: the name is no number");
	tap_is(ft_procfs_stat("4242 noparen S 1", 4, &v), -1,
	    "stat: no ')' at all");
}

/* This process's mapping that holds this function, and its file. */
static void
test_mapopen(void)
{
	char path[4096];
	ft_mapent_t me, anon;
	struct stat st;
	int fd;

	if (ft_procfs_mapfind(getpid(), (uint64_t)(uintptr_t)test_mapopen,
	    &me, path, sizeof(path)) == -1) {
		tap_ok(0, "mapfind: our own text is mapped");
		return;
	}
	tap_ok(me.me_perm[2] == 'x' && me.me_path[0] == '/',
	    "mapfind: our own text, executable, of a file");
	fd = ft_procfs_mapopen(getpid(), &me, NULL, 0);
	tap_ok(fd != -1 && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_dev == me.me_dev &&
	    (uint64_t)st.st_ino == me.me_ino,
	    "mapopen: the file mapped (device and inode)");
	if (fd != -1)
		close(fd);
	anon = me;
	anon.me_path = "";
	anon.me_ino = 0;
	tap_is(ft_procfs_mapopen(getpid(), &anon, NULL, 0), -1,
	    "mapopen: an anonymous mapping has no file");
}

int
main(void)
{
	test_mapline();
	test_stat();
	test_status();
	test_mapopen();
	return tap_done();
}
