/*
 * test_ft_uprobe.c: the uprobe backend (fasttrap/ft_uprobe.c) on the
 * trigger programs: exact hit counts, arguments (the stack ones from the
 * sample), return values, 8 threads, fork, grab and release of a running
 * program (its text restored), and with a tiny ring, hits == records +
 * lost exactly.  Skipped when the kernel or our rights do not allow BPF
 * uprobe_multi links.
 *
 * The scaffolding (a launcher process, held starts) is test_ft_ptrace's:
 * held programs are held under ptrace until ft_proc_run().
 */
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ft.h"
#include "tap.h"

#define	NUSERS	16

struct ctx;

struct tuser {
	struct ctx	*u_ctx;
	int		u_idx;
	int		u_ret;		/* a return site: sum %rax, not %rdi */
};

struct ctx {
	ft_proc_t	*c_proc;
	pid_t		c_pid;
	volatile int	c_held;
	volatile int	c_exited;
	volatile int	c_execs;
	int		c_mods;		/* fo_modules calls */
	int		c_mlive;	/* the dl test's probe is in place */
	int		c_wstatus;
	long		c_hits[NUSERS];
	long		c_sum[NUSERS];
	long		c_other;	/* hits not from the process's pid */
	long		c_badregs;	/* rip != site, or no CPU */
	uint64_t	c_textlo, c_texthi;	/* a.out's text, for c_badret */
	long		c_badret;	/* entry: *%rsp not a return into a.out */
	struct tuser	c_user[NUSERS];
	void		(*c_onexec)(struct ctx *);
	void		(*c_onmods)(struct ctx *);
};

struct target {
	pid_t		t_launcher;
	pid_t		t_pid;
	int		t_go;
	int		t_out;
};

static char trig[256];

/* The path of a trigger program (one static buffer per name used). */
static char *
trigger(const char *name)
{
	static char paths[4][300];
	static int next;
	char *b = paths[next++ % 4];

	snprintf(b, sizeof(paths[0]), "%s/%s", trig, name);
	return b;
}

static void
ctx_init(struct ctx *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < NUSERS; i++) {
		c->c_user[i].u_ctx = c;
		c->c_user[i].u_idx = i;
	}
}

static void
on_hit(void *arg, ft_proc_t *p, const ft_hit_t *h, void *const *users,
    int nusers)
{
	struct ctx *c = arg;
	int i;

	if (h->fh_tid != c->c_pid && h->fh_pid != c->c_pid)
		c->c_other++;
	if (h->fh_regs.rip != h->fh_addr || h->fh_cpu < 0)
		c->c_badregs++;
	/* at an entry, *%rsp is the return address (from the sample) */
	if (c->c_texthi != 0 && users[0] == &c->c_user[0]) {
		uint64_t ra = 0;

		if (ft_proc_read(p, h->fh_regs.rsp, &ra, sizeof(ra)) != 0 ||
		    ra < c->c_textlo || ra >= c->c_texthi)
			c->c_badret++;
	}
	for (i = 0; i < nusers; i++) {
		struct tuser *u = users[i];

		c->c_hits[u->u_idx]++;
		c->c_sum[u->u_idx] += u->u_ret ? (long)h->fh_regs.rax :
		    (long)h->fh_regs.rdi;
	}
}

static void
on_exited(void *arg, ft_proc_t *p, int st)
{
	struct ctx *c = arg;

	c->c_wstatus = st;
	__atomic_store_n(&c->c_exited, 1, __ATOMIC_RELEASE);
}

static void
on_exec(void *arg, ft_proc_t *p)
{
	struct ctx *c = arg;

	c->c_execs++;
	if (c->c_onexec != NULL)
		c->c_onexec(c);
}

static void
on_modules(void *arg, ft_proc_t *p)
{
	struct ctx *c = arg;

	c->c_mods++;
	if (c->c_onmods != NULL)
		c->c_onmods(c);
}

static void
on_held(void *arg, ft_proc_t *p)
{
	struct ctx *c = arg;

	__atomic_store_n(&c->c_held, 1, __ATOMIC_RELEASE);
}

static long lost;

static void
on_lost(void *arg, ft_proc_t *p, int cpu, uint64_t n)
{
	(void)arg;
	(void)p;
	(void)cpu;
	lost += (long)n;
}

static const ft_ops_t ops = { on_hit, on_exited, on_exec, on_modules,
    on_held, on_lost };

static size_t ringsize = 1 << 22;

/* Move the process to the uprobe backend. */
static int
touprobe(struct ctx *c)
{
	char err[256];

	if (ft_proc_uprobe(c->c_proc, ringsize, err, sizeof(err)) == -1) {
		printf("# uprobe: %s\n", err);
		return -1;
	}
	return ft_proc_backend(c->c_proc) == FT_BACKEND_UPROBE ? 0 : -1;
}

static int
waitfor(volatile int *flag)
{
	int i;

	for (i = 0; i < 3000; i++) {
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Start argv through a launcher; the target waits for a byte on t_go. */
static int
launch(struct target *t, char *const argv[])
{
	int info[2], go[2], out[2];
	pid_t c;

	if (pipe(info) == -1 || pipe(go) == -1 || pipe(out) == -1)
		return -1;
	fflush(stdout);
	if ((t->t_launcher = fork()) == 0) {
		if ((c = fork()) == 0) {
			char b;

			dup2(out[1], 1);
			close(out[0]);
			close(out[1]);
			close(go[1]);
			close(info[0]);
			close(info[1]);
			if (read(go[0], &b, 1) != 1 || b != 'g')
				_exit(126);
			close(go[0]);
			execv(argv[0], argv);
			_exit(127);
		}
		int st;

		close(out[1]);
		(void)!write(info[1], &c, sizeof(c));
		if (waitpid(c, &st, 0) != c)
			_exit(125);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	close(info[1]);
	close(go[0]);
	close(out[1]);
	if (read(info[0], &t->t_pid, sizeof(t->t_pid)) != sizeof(t->t_pid))
		return -1;
	close(info[0]);
	t->t_go = go[1];
	t->t_out = out[0];
	return 0;
}

static void
go(struct target *t)
{
	(void)!write(t->t_go, "g", 1);
	close(t->t_go);
	t->t_go = -1;
}

/* Wait for the target; its output into out, its exit status returned. */
static int
finish(struct target *t, char *out, size_t len)
{
	size_t n = 0;
	ssize_t r;
	int st;

	if (t->t_go >= 0)
		close(t->t_go);
	while (n + 1 < len && (r = read(t->t_out, out + n, len - n - 1)) > 0)
		n += r;
	out[n] = '\0';
	close(t->t_out);
	if (waitpid(t->t_launcher, &st, 0) != t->t_launcher)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
untraced(char *const argv[], char *out, size_t len)
{
	struct target t;

	if (launch(&t, argv) == -1)
		return -1;
	go(&t);
	return finish(&t, out, len);
}

/* Start argv held at its entry point. */
static ft_proc_t *
start_held(struct ctx *c, struct target *t, char *const argv[])
{
	char err[256];

	if (launch(t, argv) == -1)
		return NULL;
	c->c_pid = t->t_pid;
	c->c_proc = ft_proc_hold(t->t_pid, -1, &ops, c, err, sizeof(err));
	if (c->c_proc == NULL) {
		printf("# hold: %s\n", err);
		kill(t->t_pid, SIGKILL);
		return NULL;
	}
	go(t);
	if (!waitfor(&c->c_held)) {
		printf("# never reached its entry point\n");
		ft_proc_kill(c->c_proc);
		return NULL;
	}
	return c->c_proc;
}

struct found {
	uint64_t	fd_addr;
	ft_mod_t	*fd_mod;
	const ft_sym_t	*fd_sym;
};

static int
found_cb(void *arg, ft_mod_t *m, const ft_sym_t *s, uint64_t addr)
{
	struct found *fd = arg;

	fd->fd_addr = addr;
	fd->fd_mod = m;
	fd->fd_sym = s;
	return 1;
}

static int
find(ft_proc_t *p, const char *mod, const char *fn, struct found *fd)
{
	memset(fd, 0, sizeof(*fd));
	return ft_proc_func_iter(p, mod, fn, found_cb, fd) == 1 ? 0 : -1;
}

/* Add user idx at fn's entry (ret == 0) or at all its return sites. */
static int
probe(struct ctx *c, const char *mod, const char *fn, int idx, int ret)
{
	struct found fd;
	ft_fn_t ff;
	size_t i;
	int n = 0;

	if (find(c->c_proc, mod, fn, &fd) == -1)
		return -1;
	c->c_user[idx].u_ret = ret;
	if (!ret)
		return ft_proc_site_add(c->c_proc, fd.fd_addr,
		    &c->c_user[idx]) == 0 ? 1 : -1;
	if (ft_proc_func_sites(c->c_proc, fd.fd_mod, fd.fd_sym, &ff) == -1)
		return -1;
	for (i = 0; i < ff.ff_nret; i++)
		if (ft_proc_site_add(c->c_proc, fd.fd_addr + ff.ff_ret[i],
		    &c->c_user[idx]) == 0)
			n++;
	ft_isa_function_free(&ff);
	return n;
}

/* The bytes of the target's text at addr equal the file's at sym? */
static int
text_restored(pid_t pid, const char *file, const char *fn, uint64_t addr)
{
	char path[64], err[256];
	uint8_t a[256], b[256];
	const ft_sym_t *s;
	ft_elf_t *fe;
	size_t len;
	int fd, ok = 0;

	if ((fe = ft_elf_open(file, err, sizeof(err))) == NULL)
		return 0;
	if ((s = ft_elf_lookup(fe, fn)) != NULL) {
		len = s->fs_size < sizeof(a) ? s->fs_size : sizeof(a);
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		if ((fd = open(path, O_RDONLY)) != -1) {
			ok = pread(fd, a, len, (off_t)addr) == (ssize_t)len &&
			    ft_elf_read(fe, s->fs_addr, b, len) == 0 &&
			    memcmp(a, b, len) == 0;
			close(fd);
		}
	}
	ft_elf_close(fe);
	return ok;
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
	if (start_held(&c, &t, argv) == NULL || touprobe(&c) == -1) {
		tap_ok(0, "threads: held, uprobe backend");
		return;
	}
	tap_is(probe(&c, "a.out", "f", 0, 0), 1, "threads: f:entry");
	tap_ok(probe(&c, "a.out", "f", 1, 1) >= 1, "threads: f:return");
	ft_proc_run(c.c_proc);
	tap_ok(waitfor(&c.c_exited), "threads: exited");
	ft_proc_release(c.c_proc);
	st = finish(&t, out, sizeof(out));
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
	int i, st, cycles = 0, enabled = 1;
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
		if (touprobe(&c) == -1 || probe(&c, "a.out", "f", 0, 0) != 1 ||
		    probe(&c, "a.out", "f", 1, 1) < 1 ||
		    ft_proc_sync(c.c_proc) != 0)
			enabled = 0;
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

int
main(void)
{
	const char *top = getenv("top_builddir");
	char why[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(trig, sizeof(trig), "%s/tests/triggers", top ? top : ".");
	if (ft_proc_uprobe_ok(why, sizeof(why)) == -1) {
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
	return tap_done();
}
