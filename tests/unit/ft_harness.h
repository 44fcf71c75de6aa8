/*
 * ft_harness.h: what the fasttrap backend tests share (test_ft_ptrace.c,
 * test_ft_uprobe.c): the hit callbacks that count per probe user and sum
 * arguments or return values, targets started through a launcher process
 * and held at their entry point (or another hold point), probes by
 * module and function, and the check that a target's text is its file's
 * again.  Included once per
 * test program; everything is static.
 *
 * A target is started through a launcher process (its real parent), so
 * that the test is only its tracer: a parent in the tracer's thread group
 * could reap the tracer's ptrace stops with its own waitpid().  Under the
 * uprobe backend a held program stays held under ptrace until
 * ft_proc_run().  c_textlo/c_texthi, when a test sets them, make every
 * entry hit of user 0 check that *%rsp returns into a.out (c_badret).
 */
#ifndef FT_HARNESS_H
#define FT_HARNESS_H

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
	int		c_letgo;	/* fo_execok says -1 at exec n */
	int		c_execoks;	/* fo_execok calls */
	volatile int	c_stall;	/* fo_hit waits while it is set */
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

	/* a drain thread held up: the ring fills */
	while (__atomic_load_n(&c->c_stall, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (h->fh_tid != c->c_pid && h->fh_pid != c->c_pid)
		c->c_other++;
	/* the CPU: in the hit (uprobe), or read when asked (ptrace) */
	if (h->fh_regs.rip != h->fh_addr || (h->fh_cpu < 0 &&
	    ft_proc_cpu(p, h->fh_tid) < 0))
		c->c_badregs++;
	/* at an entry, *%rsp is the return address (from the sample) */
	if (c->c_texthi != 0 && users[0] == &c->c_user[0]) {
		uint64_t ra = 0;

		if (ft_hit_read(h, h->fh_regs.rsp, &ra, sizeof(ra)) != 0 ||
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

/* May the new image be traced?  Not the c_letgo-th (the hold's is 1st). */
static int
on_execok(void *arg, ft_proc_t *p)
{
	struct ctx *c = arg;

	(void)p;
	return ++c->c_execoks == c->c_letgo ? -1 : 0;
}

static const ft_ops_t ops = { on_hit, on_exited, on_exec, on_modules,
    on_held, on_lost, on_execok };

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

/* Start argv held at holdat (FT_HOLD_*). */
static ft_proc_t *
start_held_at(struct ctx *c, struct target *t, char *const argv[],
    int holdat)
{
	char err[256];

	if (launch(t, argv) == -1)
		return NULL;
	c->c_pid = t->t_pid;
	c->c_proc = ft_proc_hold(t->t_pid, -1, &ops, c, holdat, err,
	    sizeof(err));
	if (c->c_proc == NULL) {
		printf("# hold: %s\n", err);
		kill(t->t_pid, SIGKILL);
		return NULL;
	}
	go(t);
	if (!waitfor(&c->c_held)) {
		printf("# never reached its hold point\n");
		ft_proc_kill(c->c_proc);
		return NULL;
	}
	return c->c_proc;
}

/* Start argv held at its entry point. */
static ft_proc_t *
start_held(struct ctx *c, struct target *t, char *const argv[])
{
	return start_held_at(c, t, argv, FT_HOLD_POSTINIT);
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

/* -1 with errno ENOENT when fn is not found (not an earlier call's) */
static int
find(ft_proc_t *p, const char *mod, const char *fn, struct found *fd)
{
	int rc;

	memset(fd, 0, sizeof(*fd));
	if ((rc = ft_proc_func_iter(p, mod, fn, found_cb, fd)) == 1)
		return 0;
	if (rc == 0)
		errno = ENOENT;
	return -1;
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

#endif /* FT_HARNESS_H */
