/*
 * test_ft_ptrace.c: the fasttrap target model and ptrace backend on the
 * trigger programs: exact hit counts, arguments and return values, threads,
 * %rip-relative and tail-call and jump-table functions, fork, exec, grab
 * and release of a running program (its text restored byte for byte),
 * the hold points of a program started held (FT_HOLD_*),
 * and the targets' output and exit status unchanged by tracing; a process
 * let go at an exec (fo_execok); the kernel's verdict on who may ptrace
 * what (ft_proc_mayptrace), asked with borrowed credentials that are
 * given back.
 * The scaffolding (a launcher process, held starts, counting callbacks)
 * is ft_harness.h, shared with test_ft_uprobe.c.
 */
#include <sys/prctl.h>

#include "ft_harness.h"

static int
mod_cb(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	char *names = arg;

	strcat(names, m->fm_name);
	strcat(names, " ");
	return 0;
}

static void
test_loop(void)
{
	char *argv[] = { NULL, "1000", NULL }, out0[256], out[256], names[4096];
	struct target t;
	struct ctx c;
	int st0, st, n;

	argv[0] = trigger("loop");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "loop: held at its entry point");
		return;
	}
	tap_ok(1, "loop: held at its entry point");

	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, NULL, mod_cb, names);
	tap_ok(strncmp(names, "loop ", 5) == 0,
	    "modules: the executable first, named as it was run");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "a.out", mod_cb, names);
	tap_str(names, "loop ", "modules: \"a.out\" names the executable");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "libc", mod_cb, names);
	tap_str(names, "libc.so.6 ", "modules: \"libc\" matches libc.so.6");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "libc.so", mod_cb, names);
	tap_str(names, "libc.so.6 ", "modules: \"libc.so\" matches libc.so.6");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "libc.so.6", mod_cb, names);
	tap_str(names, "libc.so.6 ", "modules: by full basename");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "libc.s*", mod_cb, names);
	tap_str(names, "libc.so.6 ", "modules: a glob, by the whole name");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "lib", mod_cb, names);
	tap_str(names, "", "modules: \"lib\" is no prefix up to a '.'");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "libc.s", mod_cb, names);
	tap_str(names, "", "modules: nor is \"libc.s\"");
	names[0] = '\0';
	ft_proc_mod_iter(c.c_proc, "a.ou*", mod_cb, names);
	tap_str(names, "", "modules: \"a.out\" only as itself, not a glob's");

	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "f:entry enabled");
	tap_is(probe(&c, "loop", "f", 1, 0), 1, "f:entry again (shared)");
	n = probe(&c, "a.out", "f", 2, 1);
	tap_ok(n >= 1, "f:return enabled (%d sites)", n);
	tap_is(probe(&c, "libc", "getpid", 3, 0), 1, "libc:getpid:entry");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "loop: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));

	tap_is(c.c_hits[0], 1000, "f:entry hit exactly N times");
	tap_is(c.c_hits[1], 1000, "second user at f:entry: N times too");
	tap_is(c.c_sum[0], 999 * 1000 / 2, "f's arg0 (%%rdi) sums to N(N-1)/2");
	tap_is(c.c_hits[2], 1000, "f:return hit exactly N times");
	tap_is(c.c_sum[2], 1000 * 1000, "f's return value (%%rax) sums to N*N");
	tap_is(c.c_hits[3], 0, "getpid never called");
	tap_is(c.c_other, 0, "every hit from the target");
	tap_is(c.c_badregs, 0, "rip is the site; the CPU is known");
	tap_ok(WIFEXITED(c.c_wstatus) && WEXITSTATUS(c.c_wstatus) == 7,
	    "exit reported with its status (%#x)", c.c_wstatus);
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
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "threads: held");
		return;
	}
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "threads: f:entry");
	tap_ok(probe(&c, "a.out", "f", 1, 1) >= 1, "threads: f:return");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "threads: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_is(c.c_hits[0], 8 * 2000, "8 threads: f:entry exactly 8*N times");
	tap_is(c.c_sum[0], 36 * 2000, "8 threads: arguments as called");
	tap_is(c.c_hits[1], 8 * 2000, "8 threads: f:return exactly 8*N times");
	tap_is(c.c_sum[1], 36 * 2000, "8 threads: return values");
	tap_is(st, st0, "threads: exit status unchanged");
	tap_str(out, out0, "threads: output unchanged");
}

static void
test_shapes(void)
{
	char *argv[] = { NULL, "100", NULL }, out0[256], out[256];
	static const char *cases[] = { "sw0", "sw1", "sw2", "sw3", "sw4",
	    "sw5", "sw6", "sw7" };
	struct target t;
	struct found fd;
	struct ctx c;
	ft_fn_t ff;
	size_t i;
	int st0, st, k, nins = 0;

	argv[0] = trigger("shapes");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "shapes: held");
		return;
	}
	tap_is(probe(&c, "a.out", "rec", 0, 0), 1, "rec:entry");
	tap_ok(probe(&c, "a.out", "rec", 1, 1) >= 1, "rec:return");
	tap_is(probe(&c, "a.out", "ripfn", 2, 0), 1,
	    "ripfn:entry (%%rip-relative first instruction)");
	tap_is(probe(&c, "a.out", "ripfn", 3, 1), 1, "ripfn:return");
	tap_is(probe(&c, "a.out", "tailer", 4, 0), 1, "tailer:entry");
	tap_is(probe(&c, "a.out", "tailer", 5, 1), 1,
	    "tailer:return is its tail call");
	tap_is(probe(&c, "a.out", "sw", 6, 0), 1, "sw:entry (jump table)");
	for (k = 0; k < 8; k++)
		probe(&c, "a.out", cases[k], 7 + k, 0);
	/* every instruction of ripfn is an offset probe too */
	if (find(c.c_proc, "a.out", "ripfn", &fd) == 0 &&
	    ft_proc_func_sites(c.c_proc, fd.fd_mod, fd.fd_sym, &ff) == 0) {
		for (i = 1; i < ff.ff_ninsn; i++)
			nins += ft_proc_site_add(c.c_proc, fd.fd_addr +
			    ff.ff_insn[i], &c.c_user[15]) == 0;
		ft_isa_function_free(&ff);
	}
	tap_is(nins, 3, "ripfn: an offset probe on each later instruction");
	if (find(c.c_proc, "a.out", "sw", &fd) == 0 &&
	    ft_proc_func_sites(c.c_proc, fd.fd_mod, fd.fd_sym, &ff) == 0) {
		printf("# sw: jump table %d, %zu return sites\n",
		    ff.ff_jumptable, ff.ff_nret);
		ft_isa_function_free(&ff);
	}
	errno = 0;
	tap_ok(find(c.c_proc, "a.out", "trapfn", &fd) == 0 &&
	    ft_proc_site_add(c.c_proc, fd.fd_addr, &c.c_user[0]) == -1 &&
	    errno == EBUSY, "an int3 already there is refused (EBUSY)");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "shapes: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_is(c.c_hits[0], 600, "rec:entry: 6 per rec(5), N times");
	tap_is(c.c_hits[1], 600, "rec:return: as many");
	tap_is(c.c_sum[1], 100 * 15 + 100 * (10 + 6 + 3 + 1), "rec's returns");
	tap_is(c.c_hits[2], 100, "ripfn:entry N times");
	tap_is(c.c_hits[3], 100, "ripfn:return N times");
	tap_is(c.c_sum[3], 99L * 100 * 101 / 6,
	    "ripfn's returns: its running total, read and written out of line");
	tap_is(c.c_hits[15], 300, "ripfn's offset probes: 3 x N");
	tap_is(c.c_hits[4], 100, "tailer:entry N times");
	tap_is(c.c_hits[5], 100, "tailer:return (the tail jmp) N times");
	tap_is(c.c_hits[6], 100, "sw:entry N times");
	for (k = 0; k < 8; k++)
		tap_is(c.c_hits[7 + k], k < 4 ? 13 : 12,
		    "jump table case %s hit as often as called", cases[k]);
	tap_is(st, st0, "shapes: exit status unchanged");
	tap_str(out, out0, "shapes: output unchanged (%%rip-relative code "
	    "ran right out of line)");
}


static void
test_grab(void)
{
	char *argv[] = { NULL, "spin", NULL }, out[256], err[256];
	struct target t;
	struct found fd;
	struct ctx c;
	int i, st, cycles = 0, enabled = 1;
	long total = 0;

	argv[0] = trigger("loop");
	if (launch(&t, argv) == -1)
		return;
	go(&t);
	usleep(50000);
	/* grab, probe, release, again and again, while f runs hot */
	for (i = 0; i < 20; i++) {
		ctx_init(&c);
		c.c_pid = t.t_pid;
		c.c_proc = ft_proc_grab(t.t_pid, -1, &ops, &c, err, sizeof(err));
		if (c.c_proc == NULL) {
			printf("# grab: %s\n", err);
			break;
		}
		if (probe(&c, "a.out", "f", 0, 0) != 1 ||
		    probe(&c, "a.out", "f", 1, 1) < 1)
			enabled = 0;
		while (c.c_hits[1] < 500 && !c.c_exited)
			usleep(1000);
		total += c.c_hits[0];
		find(c.c_proc, "a.out", "f", &fd);
		ft_proc_release(c.c_proc);
		cycles++;
	}
	tap_is(cycles, 20, "grab and release a running program 20 times");
	tap_ok(enabled, "f:entry and f:return enabled each time");
	tap_ok(total >= 20 * 500, "hits while running (%ld)", total);
	tap_ok(text_restored(t.t_pid, argv[0], "f", fd.fd_addr),
	    "after release, f's text in /proc/PID/mem equals the file's");
	tap_ok(kill(t.t_pid, 0) == 0, "the program still runs");
	usleep(20000);
	kill(t.t_pid, SIGTERM);
	st = finish(&t, out, sizeof(out));
	tap_is(st, 0, "it computed right all along (exit 0)");
	tap_str(out, "spun well\n", "its output");
}

/*
 * The daemon's way out: a consumer's sites are removed first, while the
 * program keeps hitting them, then the process is released.  A SIGTRAP
 * from an int3 executed just before its removal may reach the tracer
 * only later, even during the release: it must be swallowed, never
 * passed on (it would kill the program).
 */
static void
test_remove_release(void)
{
	char *argv[] = { NULL, "spin", NULL }, out[256], err[256];
	struct target t;
	struct found fd;
	struct ctx c;
	int i, st, cycles = 0;

	argv[0] = trigger("loop");
	if (launch(&t, argv) == -1)
		return;
	go(&t);
	usleep(50000);
	for (i = 0; i < 100; i++) {
		ctx_init(&c);
		c.c_pid = t.t_pid;
		c.c_proc = ft_proc_grab(t.t_pid, -1, &ops, &c, err, sizeof(err));
		if (c.c_proc == NULL) {
			printf("# grab: %s\n", err);
			break;
		}
		if (probe(&c, "a.out", "f", 0, 0) != 1 ||
		    find(c.c_proc, "a.out", "f", &fd) == -1) {
			ft_proc_release(c.c_proc);
			break;
		}
		while (c.c_hits[0] < 50 && !c.c_exited)
			usleep(200);
		ft_proc_site_remove(c.c_proc, fd.fd_addr, &c.c_user[0]);
		if (i % 2)
			usleep(i % 7 * 100);
		ft_proc_release(c.c_proc);
		cycles++;
	}
	tap_is(cycles, 100, "remove the sites, then release, 100 times");
	tap_ok(kill(t.t_pid, 0) == 0, "the program still runs");
	kill(t.t_pid, SIGTERM);
	st = finish(&t, out, sizeof(out));
	tap_is(st, 0, "no trap reached it, it computed right (exit 0)");
	tap_str(out, "spun well\n", "its output");
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
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "forker: held");
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
	tap_str(out, out0, "fork: output unchanged");
}

static void
exec_probe(struct ctx *c)
{
	probe(c, "a.out", "f", 1, 0);
	probe(c, "a.out", "f", 2, 1);
}

static void
test_exec(void)
{
	char *argv[] = { NULL, "20", NULL, "30", "5", NULL }, out0[256], out[256];
	struct target t;
	struct ctx c;
	int st0, st;

	argv[0] = trigger("execer");
	argv[2] = trigger("loop");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	c.c_onexec = exec_probe;
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "execer: held");
		return;
	}
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "execer: f:entry");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "execer: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_is(c.c_execs, 1, "exec reported once");
	tap_is(c.c_hits[0], 20, "before exec: execer's f N times");
	tap_is(c.c_hits[1], 30, "after exec: loop's f, probed from fo_exec");
	tap_is(c.c_sum[2], 900, "after exec: loop's f returns");
	tap_is(st, 5, "exec: the new image's exit status");
	tap_is(st, st0, "exec: exit status unchanged");
	tap_str(out, out0, "exec: output unchanged");
}

/*
 * fo_execok says no at the exec: the process is let go at the exec stop,
 * before the new image runs; no fo_exec, no hit of the new image (its
 * f was to be probed from fo_exec), and it runs to its end untraced.
 */
static void
test_execletgo(void)
{
	char *argv[] = { NULL, "20", NULL, "30", "5", NULL };
	char out0[256], out[256];
	struct target t;
	struct ctx c;
	int st0, st;

	argv[0] = trigger("execer");
	argv[2] = trigger("loop");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	c.c_onexec = exec_probe;
	c.c_letgo = 2;	/* the hold's exec is the first */
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "let go at exec: held");
		return;
	}
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "let go at exec: f:entry");
	ft_proc_run(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_is(c.c_execoks, 2, "let go at exec: asked at both execs");
	tap_is(c.c_execs, 0, "let go at exec: no fo_exec");
	tap_ok(!ft_proc_alive(c.c_proc), "let go at exec: no longer ours");
	ft_proc_release(c.c_proc);
	tap_is(c.c_hits[0], 20, "let go at exec: execer's f N times");
	tap_is(c.c_hits[1] + c.c_hits[2], 0, "let go at exec: no hit after");
	tap_ok(!c.c_exited, "let go at exec: its exit is not ours");
	tap_is(st, 5, "let go at exec: the new image's exit status");
	tap_is(st, st0, "let go at exec: exit status unchanged");
	tap_str(out, out0, "let go at exec: output unchanged");
}

/* From fo_modules: probe libm's cbrt whenever libm is (again) loaded. */
static void
dl_probe(struct ctx *c)
{
	struct found fd;

	if (find(c->c_proc, "libm", "cbrt", &fd) == -1) {
		c->c_mlive = 0;
		return;
	}
	if (!c->c_mlive && ft_proc_site_add(c->c_proc, fd.fd_addr,
	    &c->c_user[0]) == 0)
		c->c_mlive = 1;
}

static void
test_dl(void)
{
	char *argv[] = { NULL, "25", NULL }, out0[256], out[256];
	struct target t;
	struct ctx c;
	int st0, st;

	argv[0] = trigger("dl");
	st0 = untraced(argv, out0, sizeof(out0));
	ctx_init(&c);
	c.c_onmods = dl_probe;
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "dl: held");
		return;
	}
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "dl: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_is(c.c_mods, 4, "dlopen, dlclose, dlopen, dlclose: 4 module changes");
	tap_is(c.c_hits[0], 50, "libm's cbrt probed on each load: 2N hits");
	tap_is(st, st0, "dl: exit status unchanged");
	tap_str(out, out0, "dl: output unchanged");
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The floor: a minimal tracer doing one stop per hit, emulating g's push
 * %rbp by hand.  Returns hits per second, or 0.
 */
static double
raw_rate(char *const argv[], long n)
{
	struct user_regs_struct r;
	struct target t;
	char path[64], out[256], err[256], line[512];
	unsigned long lo = 0;
	uint64_t g = 0;
	uint8_t int3 = 0xcc;
	double t0, t1;
	long hits = 0;
	ft_elf_t *fe;
	FILE *f;
	int st, fd;

	if (launch(&t, argv) == -1)
		return 0;
	if (ptrace(PTRACE_SEIZE, t.t_pid, 0, (void *)PTRACE_O_TRACEEXEC) == -1) {
		kill(t.t_pid, SIGKILL);
		finish(&t, out, sizeof(out));
		return 0;
	}
	go(&t);
	while (waitpid(t.t_pid, &st, __WALL) == t.t_pid && WIFSTOPPED(st) &&
	    (st >> 16) != PTRACE_EVENT_EXEC)
		ptrace(PTRACE_CONT, t.t_pid, 0, 0);
	/* the address of g: its symbol plus the executable's first mapping */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)t.t_pid);
	if ((fe = ft_elf_open(path, err, sizeof(err))) != NULL) {
		const ft_sym_t *s = ft_elf_lookup(fe, "g");

		snprintf(path, sizeof(path), "/proc/%d/maps", (int)t.t_pid);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(line, sizeof(line), f) != NULL)
				sscanf(line, "%lx", &lo);
			fclose(f);
		}
		if (s != NULL)
			g = s->fs_addr + (ft_elf_is_pie(fe) ? lo : 0);
		ft_elf_close(fe);
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t.t_pid);
	if (g == 0 || (fd = open(path, O_RDWR)) == -1 ||
	    pwrite(fd, &int3, 1, (off_t)g) != 1) {
		kill(t.t_pid, SIGKILL);
		ptrace(PTRACE_CONT, t.t_pid, 0, 0);
		finish(&t, out, sizeof(out));
		return 0;
	}
	close(fd);
	t0 = now();
	ptrace(PTRACE_CONT, t.t_pid, 0, 0);
	while (waitpid(t.t_pid, &st, __WALL) == t.t_pid) {
		if (!WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0) {
			ptrace(PTRACE_GETREGS, t.t_pid, 0, &r);
			r.rsp -= 8;
			ptrace(PTRACE_POKEDATA, t.t_pid, (void *)r.rsp,
			    (void *)r.rbp);
			r.rip = g + 1;
			ptrace(PTRACE_SETREGS, t.t_pid, 0, &r);
			hits++;
			ptrace(PTRACE_CONT, t.t_pid, 0, 0);
		} else {
			ptrace(PTRACE_CONT, t.t_pid, 0,
			    (void *)(long)((st >> 16) ? 0 : WSTOPSIG(st)));
		}
	}
	t1 = now();
	st = finish(&t, out, sizeof(out));
	return hits == n && st == 0 ? hits / (t1 - t0) : 0;
}

static void
test_bench(void)
{
	char *argv[] = { NULL, "bench", "100000", NULL }, out[256];
	struct target t;
	struct ctx c;
	double t0, t1, ours, raw;
	int st;

	argv[0] = trigger("loop");
	ctx_init(&c);
	if (start_held(&c, &t, argv) == NULL) {
		tap_ok(0, "bench: held");
		return;
	}
	probe(&c, "a.out", "g", 0, 0);
	t0 = now();
	ft_proc_run(c.c_proc);
	waitfor(&c.c_exited);
	t1 = now();
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
	tap_ok(c.c_hits[0] == 100000 && st == 0,
	    "bench: 100000 hits on g, target correct");
	ours = c.c_hits[0] / (t1 - t0);
	raw = raw_rate(argv, 100000);
	printf("# hits/s: fasttrap %.0f, raw ptrace floor %.0f, "
	    "time per hit fasttrap/floor %.2f\n", ours, raw,
	    raw > 0 ? raw / ours : 0.0);
}

/* Where a stopped process is: the last field of /proc/PID/syscall. */
static uint64_t
held_pc(pid_t pid)
{
	char path[64], buf[512], *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if ((s = strrchr(buf, ' ')) == NULL)
		return 0;
	return strtoull(s + 1, NULL, 0);
}

static uint64_t
auxv_entry(pid_t pid)
{
	uint64_t av[2], entry = 0;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return 0;
	while (read(fd, av, sizeof(av)) == (ssize_t)sizeof(av) &&
	    av[0] != AT_NULL)
		if (av[0] == AT_ENTRY)
			entry = av[1];
	close(fd);
	return entry;
}

struct inmod {
	uint64_t	im_pc;
	char		im_name[64];
};

static int
inmod_cb(void *arg, ft_proc_t *p, ft_mod_t *m)
{
	struct inmod *im = arg;

	(void)p;
	if (im->im_pc < m->fm_lo || im->im_pc >= m->fm_hi)
		return 0;
	snprintf(im->im_name, sizeof(im->im_name), "%s", m->fm_name);
	return 1;
}

/*
 * Hold points: exec (in the dynamic linker, libc not mapped yet),
 * preinit (in the linker, at its hook, libc mapped), postinit (the
 * entry point), main (main's first instruction).  From each, the
 * program runs on with every call of f seen, its output and status
 * unchanged, and nothing of ours left in its text.
 */
static void
test_holdat(void)
{
	static const struct {
		int		holdat;
		const char	*name;
	} modes[] = {
		{ FT_HOLD_EXEC, "exec" },
		{ FT_HOLD_PREINIT, "preinit" },
		{ FT_HOLD_POSTINIT, "postinit" },
		{ FT_HOLD_MAIN, "main" },
	};
	char *argv[] = { NULL, "20", NULL }, out0[256], out[256], names[4096];
	struct found fd;
	struct inmod im;
	struct target t;
	struct ctx c;
	uint64_t pc;
	size_t i;
	int st0, st;

	argv[0] = trigger("loop");
	st0 = untraced(argv, out0, sizeof(out0));
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const char *mn = modes[i].name;

		ctx_init(&c);
		if (start_held_at(&c, &t, argv, modes[i].holdat) == NULL) {
			tap_ok(0, "%s: held", mn);
			continue;
		}
		tap_ok(1, "%s: held", mn);
		pc = held_pc(c.c_pid);
		memset(&im, 0, sizeof(im));
		im.im_pc = pc;
		ft_proc_mod_iter(c.c_proc, NULL, inmod_cb, &im);
		names[0] = '\0';
		ft_proc_mod_iter(c.c_proc, "libc.so.6", mod_cb, names);
		switch (modes[i].holdat) {
		case FT_HOLD_EXEC:
			tap_ok(strncmp(im.im_name, "ld-linux", 8) == 0,
			    "exec: in the dynamic linker (%s)", im.im_name);
			tap_str(names, "", "exec: libc not mapped yet");
			break;
		case FT_HOLD_PREINIT:
			tap_ok(find(c.c_proc, "ld-linux*", "_dl_debug_state",
			    &fd) == 0 && pc == fd.fd_addr,
			    "preinit: at the linker's hook (%s)", im.im_name);
			tap_str(names, "libc.so.6 ", "preinit: libc mapped");
			break;
		case FT_HOLD_POSTINIT:
			tap_ok(pc != 0 && pc == auxv_entry(c.c_pid),
			    "postinit: at the entry point (%#llx)",
			    (unsigned long long)pc);
			tap_str(names, "libc.so.6 ", "postinit: libc mapped");
			break;
		case FT_HOLD_MAIN:
			tap_ok(find(c.c_proc, "a.out", "main", &fd) == 0 &&
			    pc == fd.fd_addr, "main: at main (%#llx)",
			    (unsigned long long)pc);
			tap_str(names, "libc.so.6 ", "main: libc mapped");
			break;
		}
		tap_is(probe(&c, "a.out", "f", 0, 0), 1, "%s: f:entry", mn);
		ft_proc_run(c.c_proc);
		tap_ok(waitfor(&c.c_exited), "%s: exited", mn);
		ft_proc_release(c.c_proc);
		st = finish(&t, out, sizeof(out));
		tap_is(c.c_hits[0], 20, "%s: f:entry hit exactly N times", mn);
		tap_is(st, st0, "%s: exit status unchanged (%d)", mn, st0);
		tap_str(out, out0, "%s: output unchanged", mn);
	}
}

/* The calling thread's effective capabilities, fs uid and fs gid. */
static void
creds(uint64_t *eff, long *fsuid, long *fsgid)
{
	char line[256];
	FILE *fp;

	*eff = 0;
	*fsuid = *fsgid = -1;
	if ((fp = fopen("/proc/thread-self/status", "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, "CapEff:", 7) == 0)
			*eff = strtoull(line + 7, NULL, 16);
		else if (strncmp(line, "Uid:", 4) == 0)
			sscanf(line + 4, "%*d %*d %*d %ld", fsuid);
		else if (strncmp(line, "Gid:", 4) == 0)
			sscanf(line + 4, "%*d %*d %*d %ld", fsgid);
	}
	fclose(fp);
}

/*
 * ft_proc_mayptrace: a process of user 65534 (ids all its own) may be
 * ptraced by that user, not by another, not by a group it is not in;
 * a root process by none of them; and the asking thread has its own
 * credentials back each time.  Needs root.
 */
static void
test_mayptrace(void)
{
	uint64_t eff0, eff;
	long fu0, fg0, fu, fg;
	pid_t nob, rt;
	int fd, fatal, fds[4], i, ok = 1;

	if (geteuid() != 0) {
		printf("# mayptrace: not tested, needs root\n");
		return;
	}
	if ((nob = fork()) == 0) {
		if (setresgid(65534, 65534, 65534) == -1 ||
		    setresuid(65534, 65534, 65534) == -1)
			_exit(1);
		prctl(PR_SET_DUMPABLE, 1);
		pause();
		_exit(0);
	}
	if ((rt = fork()) == 0) {
		pause();
		_exit(0);
	}
	usleep(100000);		/* the child has dropped its ids */
	creds(&eff0, &fu0, &fg0);
	fds[0] = ft_proc_mayptrace(nob, 65534, 65534, &fatal);
	ok &= !fatal;
	fds[1] = ft_proc_mayptrace(nob, 65533, 65534, &fatal);
	ok &= !fatal;
	fds[2] = ft_proc_mayptrace(nob, 65534, 65533, &fatal);
	ok &= !fatal;
	fds[3] = ft_proc_mayptrace(rt, 65534, 65534, &fatal);
	ok &= !fatal;
	creds(&eff, &fu, &fg);
	tap_ok(fds[0] >= 0, "mayptrace: a user's own process");
	tap_ok(fds[1] == -1, "mayptrace: not another user's");
	tap_ok(fds[2] == -1, "mayptrace: not with another group");
	tap_ok(fds[3] == -1, "mayptrace: not a root process");
	tap_ok(ok && eff == eff0 && fu == fu0 && fg == fg0,
	    "mayptrace: the thread's own credentials are back");
	fd = fds[0];
	if (fd >= 0) {
		char b;

		/* it reads the process's memory (a fork: same layout) */
		tap_ok(pread(fd, &b, 1, (off_t)(uintptr_t)&eff0) == 1,
		    "mayptrace: its descriptor reads the image");
	} else {
		tap_ok(0, "mayptrace: its descriptor reads the image");
	}
	for (i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	kill(nob, SIGKILL);
	kill(rt, SIGKILL);
	waitpid(nob, NULL, 0);
	waitpid(rt, NULL, 0);
}

int
main(void)
{
	const char *top = getenv("top_builddir");
	pid_t c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(trig, sizeof(trig), "%s/tests/triggers", top ? top : ".");
	/* is ptrace allowed here at all (Yama, seccomp, containers)? */
	if ((c = fork()) == 0) {
		pause();
		_exit(0);
	}
	if (ptrace(PTRACE_SEIZE, c, 0, 0) == -1) {
		char why[128];

		snprintf(why, sizeof(why), "ptrace not permitted: %s",
		    strerror(errno));
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		tap_skip_all(why);
		return 0;
	}
	kill(c, SIGKILL);
	waitpid(c, NULL, __WALL);

	test_loop();
	test_threads();
	test_shapes();
	test_grab();
	test_remove_release();
	test_fork();
	test_exec();
	test_execletgo();
	test_mayptrace();
	test_dl();
	test_holdat();
	test_bench();
	return tap_done();
}
