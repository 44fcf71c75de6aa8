/*
 * test_ft_uprobe.c: the uprobe backend (fasttrap/ft_uprobe.c) on the
 * trigger programs: exact hit counts, arguments (the stack ones from the
 * sample), return values, 8 threads, fork, grab and release of a running
 * program (its text restored), with a tiny ring, hits == records + lost
 * exactly, and a process let go at an exec (fo_execok) that hits
 * nothing after it.  Skipped when the kernel or our rights do not allow BPF
 * uprobe_multi links.
 *
 * The scaffolding (a launcher process, held starts, counting callbacks)
 * is ft_harness.h, shared with test_ft_ptrace.c.
 */
#include "ft_harness.h"

static size_t ringsize = 1 << 22;

/* Move the process to the uprobe backend. */
static int
touprobe(struct ctx *c)
{
	char err[256];

	if (ft_proc_setbackend(c->c_proc, FT_BACKEND_UPROBE, ringsize, err,
	    sizeof(err)) == -1) {
		printf("# uprobe: %s\n", err);
		return -1;
	}
	return ft_proc_backend(c->c_proc) == FT_BACKEND_UPROBE ? 0 : -1;
}

/*
 * fo_execok says no at the exec, which comes after the fact under
 * uprobes: no fo_exec, no hit of the new image in libc (the capture
 * program's gate is shut; printf is called once by each image), and the
 * process runs to its end untraced.
 */
static void
test_execletgo(void)
{
	char *argv[] = { NULL, "20", NULL, "30", "5", NULL };
	char out0[256], out[256];
	struct target t;
	struct ctx c;
	int st0, st, i;

	argv[0] = trigger("execer");
	argv[2] = trigger("loop");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	c.c_letgo = 2;	/* the hold's exec is the first */
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "let go at exec: held");
		return;
	}
	tap_ok(touprobe(&c) == 0, "let go at exec: uprobe backend");
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "let go at exec: f:entry");
	tap_is(probe(&c, "libc", "printf", 1, 0), 1,
	    "let go at exec: libc's printf");
	tap_is(ft_proc_sync(c.c_proc), 0, "let go at exec: sites linked");
	ft_proc_run(c.c_proc);
	st = finish(&t, out, sizeof(out));
	/* the drain thread hears of the exec after the fact */
	for (i = 0; i < 3000 && c.c_execoks < 2; i++)
		usleep(10000);
	tap_is(c.c_execoks, 2, "let go at exec: asked at both execs");
	tap_is(c.c_execs, 0, "let go at exec: no fo_exec");
	tap_ok(!ft_proc_alive(c.c_proc), "let go at exec: no longer ours");
	ft_proc_release(c.c_proc);
	tap_is(c.c_hits[0], 20, "let go at exec: execer's f N times");
	tap_is(c.c_hits[1], 1, "let go at exec: printf of the first image");
	tap_is(st, 5, "let go at exec: the new image's exit status");
	tap_is(st, st0, "let go at exec: exit status unchanged");
	tap_str(out, out0, "let go at exec: output unchanged");
}

static void
test_loop(void)
{
	char *argv[] = { NULL, "1000", NULL }, out0[256], out[256];
	struct target t;
	struct found fd;
	struct ctx c;
	int st0, st, n;

	argv[0] = trigger("loop");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "loop: held at its entry point");
		return;
	}
	tap_ok(touprobe(&c) == 0, "loop: moved to the uprobe backend");
	/*
	 * The return address and no more of the stack: 2000 records of
	 * some 290 bytes fit the 4 MiB ring however late the drain thread
	 * runs on a loaded machine (with the whole copy, some 6 KiB each,
	 * they did not: hits were lost).
	 */
	tap_is(ft_proc_stack(c.c_proc, 64), 0, "loop: a 64-byte stack copy");
	lost = 0;
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "f:entry enabled");
	tap_is(probe(&c, "loop", "f", 1, 0), 1, "f:entry again (shared)");
	n = probe(&c, "a.out", "f", 2, 1);
	tap_ok(n >= 1, "f:return enabled (%d sites)", n);
	tap_is(probe(&c, "libc", "getpid", 3, 0), 1, "libc:getpid:entry");
	if (find(c.c_proc, "a.out", "f", &fd) == 0) {
		c.c_textlo = fd.fd_mod->fm_lo;
		c.c_texthi = fd.fd_mod->fm_hi;
	}
	tap_is(ft_proc_sync(c.c_proc), 0, "sync: every site linked");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "loop: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));

	tap_is(lost, 0, "loop: nothing lost");
	tap_is(c.c_hits[0], 1000, "f:entry hit exactly N times");
	tap_is(c.c_hits[1], 1000, "second user at f:entry: N times too");
	tap_is(c.c_sum[0], 999 * 1000 / 2, "f's arg0 (%%rdi) sums to N(N-1)/2");
	tap_is(c.c_hits[2], 1000, "f:return hit exactly N times");
	tap_is(c.c_sum[2], 1000 * 1000, "f's return value (%%rax) sums to N*N");
	tap_is(c.c_hits[3], 0, "getpid never called");
	tap_is(c.c_other, 0, "every hit from the target");
	tap_is(c.c_badregs, 0, "rip is the site; the CPU is known");
	tap_is(c.c_badret, 0,
	    "f:entry: *%%rsp, read from the sample's stack, returns into a.out");
	/*
	 * Not its wait status: without ptrace it is read from the zombie,
	 * which the launcher reaps at once (tests/daemon/uprobe.sh checks
	 * it under dtrace -c, where the client reaps after the report).
	 */
	tap_is(st, st0, "exit status unchanged by tracing (%d)", st0);
	tap_str(out, out0, "output unchanged by tracing");
}

static void
test_threads(void)
{
	char *argv[] = { NULL, "2000", NULL }, out0[256], out[256];
	struct target t;
	struct ctx c;
	int st0, st;

	argv[0] = trigger("threads");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	/*
	 * A ring that holds all 32000 records (some 4.6 KiB each: a
	 * thread's stack up to its top), as tests/daemon/uprobe.sh sizes
	 * it: the counts must be exact even when a loaded machine keeps
	 * the drain thread from running.
	 */
	ringsize = 1 << 28;
	lost = 0;
	if (start_held(&c, &t, argv) == NULL || touprobe(&c) == -1) {
		tap_ok(0, "threads: held, uprobe backend");
		ringsize = 1 << 22;
		return;
	}
	ringsize = 1 << 22;
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "threads: f:entry");
	tap_ok(probe(&c, "a.out", "f", 1, 1) >= 1, "threads: f:return");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "threads: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_is(lost, 0, "threads: nothing lost");
	tap_is(c.c_hits[0], 8 * 2000,
	    "8 threads made after the attach: f:entry exactly 8*N times");
	tap_is(c.c_sum[0], 36 * 2000, "8 threads: arguments as called");
	tap_is(c.c_hits[1], 8 * 2000, "8 threads: f:return exactly 8*N times");
	tap_is(c.c_sum[1], 36 * 2000, "8 threads: return values");
	tap_is(st, st0, "threads: exit status unchanged");
	tap_str(out, out0, "threads: output unchanged");
}

static void
test_fork(void)
{
	char *argv[] = { NULL, "50", "30", NULL }, out0[256], out[256];
	struct target t;
	struct ctx c;
	int st0, st;

	argv[0] = trigger("forker");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	if (start_held(&c, &t, argv) == NULL || touprobe(&c) == -1) {
		tap_ok(0, "forker: held, uprobe backend");
		return;
	}
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "forker: f:entry");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "forker: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_is(c.c_hits[0], 100, "fork: the parent's calls only (2N)");
	tap_is(c.c_other, 0, "fork: no hit from the child");
	tap_str(out, "child exited 3\n", "fork: the child ran unharmed");
	tap_is(st, st0, "fork: exit status unchanged");
}

static void
test_grab(void)
{
	char *argv[] = { NULL, "spin", NULL }, out[256], err[256];
	struct target t;
	struct found fd;
	struct ctx c;
	int i, n, st, cycles = 0, enabled = 1;
	long total = 0;

	argv[0] = trigger("loop");
	if (launch(&t, argv) == -1)
		return;
	go(&t);
	usleep(50000);
	/* grab, probe, remove, release, again, while f runs hot */
	for (i = 0; i < 5; i++) {
		ctx_init(&c);
		c.c_pid = t.t_pid;
		c.c_proc = ft_proc_grab(t.t_pid, -1, &ops, &c, err, sizeof(err));
		if (c.c_proc == NULL) {
			printf("# grab: %s\n", err);
			break;
		}
		if (touprobe(&c) == -1)
			enabled = 0;
		else if ((n = probe(&c, "a.out", "f", 0, 0)) != 1) {
			printf("# cycle %d: f:entry: %d (%s)\n", i, n,
			    strerror(errno));
			enabled = 0;
		} else if ((n = probe(&c, "a.out", "f", 1, 1)) < 1) {
			printf("# cycle %d: f:return: %d (%s)\n", i, n,
			    strerror(errno));
			enabled = 0;
		} else if ((n = ft_proc_sync(c.c_proc)) != 0) {
			printf("# cycle %d: sync: %d (%s)\n", i, n,
			    strerror(errno));
			enabled = 0;
		}
		while (c.c_hits[1] < 500 && !c.c_exited && enabled)
			usleep(1000);
		find(c.c_proc, "a.out", "f", &fd);
		ft_proc_site_remove(c.c_proc, fd.fd_addr, &c.c_user[0]);
		total += c.c_hits[0];
		ft_proc_release(c.c_proc);
		cycles++;
	}
	tap_is(cycles, 5, "grab and release a running program 5 times");
	tap_ok(enabled, "f:entry and f:return enabled each time");
	tap_ok(total >= 5 * 500, "hits while running (%ld)", total);
	/* the links close in the background: wait for the grace period */
	for (i = 0; i < 100 && !text_restored(t.t_pid, argv[0], "f",
	    fd.fd_addr); i++)
		usleep(10000);
	tap_ok(text_restored(t.t_pid, argv[0], "f", fd.fd_addr),
	    "after release, f's text in /proc/PID/mem equals the file's");
	tap_ok(kill(t.t_pid, 0) == 0, "the program still runs");
	kill(t.t_pid, SIGTERM);
	st = finish(&t, out, sizeof(out));
	tap_is(st, 0, "it computed right all along (exit 0)");
	tap_str(out, "spun well\n", "its output");
}

/* A ring of one page: most samples are lost, and every one is counted. */
static void
test_lost(void)
{
	char *argv[] = { NULL, "20000", NULL }, out[256];
	struct target t;
	struct ctx c;

	argv[0] = trigger("loop");
	ringsize = 4096;
	lost = 0;
	ctx_init(&c);
	if (start_held(&c, &t, argv) == NULL || touprobe(&c) == -1) {
		tap_ok(0, "lost: held, uprobe backend");
		ringsize = 1 << 22;
		return;
	}
	ringsize = 1 << 22;
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "lost: f:entry");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "lost: exited");
	ft_proc_release(c.c_proc);
	finish(&t, out, sizeof(out));
	printf("# %ld records, %ld lost\n", c.c_hits[0], lost);
	tap_ok(lost > 0, "a one-page ring loses samples");
	tap_is(c.c_hits[0] + lost, 20000, "records + lost == hits, exactly");
}

/*
 * What a ring of 1 MiB holds with the stack copy bounded to stk bytes
 * (ft_proc_stack; SIZE_MAX: the default, the whole copy), then to stk2
 * (SIZE_MAX: not called again): the drain
 * thread is held at the first hit until `loop 20000' has exited, so the
 * ring keeps what fits and counts the rest as lost.  The records kept,
 * or -1.
 */
static long
ringfill(size_t stk, size_t stk2, long *lostp, long *badretp)
{
	char *argv[] = { NULL, "20000", NULL }, out[256];
	struct target t;
	struct found fd;
	struct ctx c;

	argv[0] = trigger("loop");
	ringsize = 1 << 20;
	lost = 0;
	ctx_init(&c);
	if (start_held(&c, &t, argv) == NULL || touprobe(&c) == -1) {
		ringsize = 1 << 22;
		return -1;
	}
	ringsize = 1 << 22;
	if ((stk != SIZE_MAX && ft_proc_stack(c.c_proc, stk) == -1) ||
	    (stk2 != SIZE_MAX && ft_proc_stack(c.c_proc, stk2) == -1) ||
	    probe(&c, "a.out", "f", 0, 0) != 1 ||
	    find(c.c_proc, "a.out", "f", &fd) == -1) {
		ft_proc_kill(c.c_proc);
		ft_proc_release(c.c_proc);
		finish(&t, out, sizeof(out));
		return -1;
	}
	/* *%rsp read at each hit, once the process is gone: the copy's */
	c.c_textlo = fd.fd_mod->fm_lo;
	c.c_texthi = fd.fd_mod->fm_hi;
	c.c_stall = 1;
	ft_proc_run(c.c_proc);
	finish(&t, out, sizeof(out));
	__atomic_store_n(&c.c_stall, 0, __ATOMIC_RELEASE);
	waitfor(&c.c_exited);
	ft_proc_release(c.c_proc);
	*lostp = lost;
	*badretp = c.c_badret;
	return c.c_hits[0];
}

/*
 * The stack copy's bound (ft_proc_stack): a record is its header and
 * the copy, so a 1 MiB ring holds exactly 1 MiB / (header + copy + the
 * ring's 8-byte header, to 8 bytes) of them; a bound only raised after
 * it is first set.
 */
static void
test_stackbound(void)
{
	long n, nlost, badret, whole;
	size_t hdr = offsetof(ft_bpfrec_t, br_stack) + 8;
	long n64 = (long)((1 << 20) / ((hdr + 64 + 7) & ~(size_t)7));

	whole = ringfill(SIZE_MAX, SIZE_MAX, &nlost, &badret);
	printf("# whole copy: %ld records in 1 MiB, %ld lost\n", whole, nlost);
	tap_is(whole + nlost, 20000, "whole copy: records + lost == hits");
	tap_ok(whole > 0 && whole < n64 / 4,
	    "whole copy: a quarter of the 64-byte one's at most (%ld)", whole);
	tap_is(badret, 0, "whole copy: *%%rsp from the copy");

	n = ringfill(0, SIZE_MAX, &nlost, &badret);
	printf("# no copy: %ld records in 1 MiB, %ld lost\n", n, nlost);
	tap_is(n, (long)((1 << 20) / ((hdr + 7) & ~(size_t)7)),
	    "no stack copy: 1 MiB / header records");
	tap_is(n + nlost, 20000, "no copy: records + lost == hits");
	tap_is(badret, n, "no copy: *%%rsp unreadable once the process is gone");

	n = ringfill(64, SIZE_MAX, &nlost, &badret);
	printf("# 64-byte copy: %ld records in 1 MiB, %ld lost\n", n, nlost);
	tap_is(n, n64, "64-byte copy: 1 MiB / (header + 64) records");
	tap_is(n + nlost, 20000, "64 bytes: records + lost == hits");
	tap_is(badret, 0, "64 bytes: *%%rsp from the copy");

	n = ringfill(64, 0, &nlost, &badret);
	tap_is(n, n64, "set to 64 bytes, then asked for 0: 64 stays");
	tap_is(badret, 0, "and *%%rsp is in the copy");
}

int
main(void)
{
	const char *top = getenv("top_builddir");
	char why[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(trig, sizeof(trig), "%s/tests/triggers", top ? top : ".");
	if (ft_proc_backend_ok(FT_BACKEND_UPROBE, why, sizeof(why)) == -1) {
		char msg[300];

		snprintf(msg, sizeof(msg), "no uprobe backend here: %s", why);
		tap_skip_all(msg);
		return 0;
	}
	test_loop();
	test_threads();
	test_fork();
	test_grab();
	test_lost();
	test_stackbound();
	test_execletgo();
	return tap_done();
}
