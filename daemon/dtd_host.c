/*
 * dtd_host.c: what DIF sees of a probe firing (dif_host_t).  Built-in
 * variables come from the hit; what a hit does not carry (execname,
 * ppid, uid, gid of a traced process) is read from /proc once per firing
 * and only when a program asks for it.  ustackdepth and ucaller walk
 * the stack through the hit's dh_ustack; copyout() writes through its
 * dh_uwrite, for a consumer allowed destructive actions.  progenyof()
 * walks the parents of the firing process through /proc.  __psinfo[]
 * (procfs.d's curpsinfo and curlwpsinfo) reads /proc likewise, a group
 * of values on the first use of one of them in the firing, but for the
 * arguments and data model a target keeps per image.  errno is
 * the hitting thread's C errno, read through the hit's dh_errno.
 * dtd_host_status() reads one field of /proc/PID/status for the rest of
 * the daemon (the pid provider's targets, profile samples).
 */
#include <sys/syscall.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtd.h"
#include "ft.h"

static int	dtd_host_builtin(void *, uint32_t, uint64_t, uint64_t *);
static int	dtd_host_uread(void *, uint64_t, void *, size_t);
static int	dtd_host_speculation(void *, uint64_t *);
static int	dtd_host_uwrite(void *, uint64_t, const void *, size_t);
static int	dtd_host_progenyof(void *, uint64_t, uint64_t *);

const dif_host_t dtd_host = {
	.dh_builtin = dtd_host_builtin,
	.dh_uread = dtd_host_uread,
	.dh_speculation = dtd_host_speculation,
	.dh_uwrite = dtd_host_uwrite,
	.dh_progenyof = dtd_host_progenyof,
};

static void
dtd_host_region(dif_mstate_t *ms, const void *p, size_t size)
{
	if (ms->dm_nregions >= DIF_MAXREGIONS)
		fatalx("%s: too many regions", __func__);
	ms->dm_regions[ms->dm_nregions].dr_base = (uintptr_t)p;
	ms->dm_regions[ms->dm_nregions].dr_size = size;
	ms->dm_nregions++;
}

/*
 * Set up a firing's host state.  The strings the by-ref built-ins
 * return are made loadable here: the probe's names and the buffers in f.
 */
void
dtd_host_init(dtd_fire_t *f, const dtd_hit_t *h, const dtd_ecb_t *e,
    dif_mstate_t *ms)
{
	const dtd_probe_t *p = h->dh_probe;

	f->df_hit = h;
	f->df_ecb = e;
	f->df_execdone = 0;
	f->df_procdone = 0;
	f->df_psdone = 0;
	f->df_pssubj = 0;
	memset(f->df_execname, 0, sizeof(f->df_execname));
	memcpy(f->df_zonename, "global", sizeof("global"));
	dtd_host_region(ms, p->dpr_prov->dpv_name,
	    strlen(p->dpr_prov->dpv_name) + 1);
	dtd_host_region(ms, p->dpr_mod, strlen(p->dpr_mod) + 1);
	dtd_host_region(ms, p->dpr_func, strlen(p->dpr_func) + 1);
	dtd_host_region(ms, p->dpr_name, strlen(p->dpr_name) + 1);
	dtd_host_region(ms, f->df_execname, sizeof(f->df_execname));
	dtd_host_region(ms, f->df_zonename, sizeof(f->df_zonename));
	dtd_host_region(ms, &f->df_psstr, sizeof(f->df_psstr));
	if (h->dh_argmem != NULL)
		dtd_host_region(ms, h->dh_argmem, h->dh_argmemlen);
	/*
	 * arg0..arg9 and args[]: the VM reads them in place, but for 6 to
	 * 9 when they are still on the traced stack (dh_argsp)
	 */
	ms->dm_args = h->dh_args;
	ms->dm_nargs = h->dh_argsp != 0 ? 6 : 10;
}

/* h's process's name, cut to fit len bytes with its NUL ("" unknown) */
static void
dtd_host_comm(const dtd_hit_t *h, char *buf, size_t len)
{
	char path[64];
	size_t n;
	FILE *fp;

	memset(buf, 0, len);
	if (h->dh_execname != NULL) {
		strncpy(buf, h->dh_execname, len - 1);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)h->dh_pid);
	if ((fp = fopen(path, "re")) == NULL)
		return;
	n = fread(buf, 1, len - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* execname: the firing hit's, read once */
static void
dtd_host_execname(dtd_fire_t *f)
{
	const dtd_hit_t *h = f->df_hit;

	if (f->df_execdone)
		return;
	f->df_execdone = 1;
	dtd_host_comm(h, f->df_execname, sizeof(f->df_execname));
}

static void
dtd_host_proc(dtd_fire_t *f)
{
	const dtd_hit_t *h = f->df_hit;
	char path[64], line[256];
	unsigned long v;
	FILE *fp;

	if (f->df_procdone)
		return;
	f->df_procdone = 1;
	f->df_ppid = h->dh_ppid;
	f->df_uid = h->dh_uid;
	f->df_gid = h->dh_gid;
	if (f->df_ppid != -1 && f->df_uid != (uid_t)-1)
		return;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)h->dh_pid);
	if ((fp = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (f->df_ppid == -1 && sscanf(line, "PPid: %lu", &v) == 1)
			f->df_ppid = (pid_t)v;
		else if (f->df_uid == (uid_t)-1 &&
		    sscanf(line, "Uid: %lu", &v) == 1)
			f->df_uid = (uid_t)v;
		else if (f->df_gid == (gid_t)-1 &&
		    sscanf(line, "Gid: %lu", &v) == 1)
			f->df_gid = (gid_t)v;
	}
	fclose(fp);
}

/* The groups of __psinfo[] values, each read by one look in /proc. */
#define DTD_PS_STAT	0x1	/* the thread's stat */
#define DTD_PS_IDS	0x2	/* status: the effective ids */
#define DTD_PS_ARGS	0x4	/* cmdline, unless the target keeps it */
#define DTD_PS_MODEL	0x8	/* the executable's ELF class, likewise */
#define DTD_PS_STACK	0x10	/* argc, argv, envp: stat, then memory */
#define DTD_PS_PSTAT	0x20	/* the process's stat and statm */
#define DTD_PS_FNAME	0x40	/* execname, as a char[16] */

/* ps(1)'s names of the scheduling policies, by number */
static const char *const dtd_host_clnames[] = {
	"TS", "FF", "RR", "B", "ISO", "IDL", "DLN"
};

/*
 * A start time in clock ticks after boot as a time of day, and a CPU
 * time in ticks, as timestruc_t's: the boot time is /proc/stat's btime,
 * in seconds, as ps(1) counts a start time from it.
 */
static void
dtd_host_ticks(int64_t *ts, long long ticks, int since_boot)
{
	static long long btime = -1;
	long hz = sysconf(_SC_CLK_TCK);
	char line[128];
	FILE *fp;

	if (hz <= 0)
		hz = 100;
	if (since_boot && btime < 0 && (fp = fopen("/proc/stat", "re")) !=
	    NULL) {
		while (fgets(line, sizeof(line), fp) != NULL) {
			if (sscanf(line, "btime %lld", &btime) == 1)
				break;
		}
		fclose(fp);
	}
	ts[0] = ticks / hz + (since_boot && btime > 0 ? btime : 0);
	ts[1] = ticks % hz * (1000000000 / hz);
}

/*
 * The numbers of a /proc stat file after the name (in parentheses, it
 * may hold anything: they follow its last ")") and the state: v[i] is
 * field i + 4 of proc(5); the state's letter in *state (if not NULL).
 * How many of at most max were read, or -1.
 */
static int
dtd_host_statfields(const char *path, long long *v, int max, char *state)
{
	char buf[1024], *p, *end;
	size_t n;
	FILE *fp;
	int i;

	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	for (p++; *p == ' '; p++)
		;
	if (state != NULL)
		*state = *p;
	while (*p != '\0' && *p != ' ')	/* the state */
		p++;
	for (i = 0; i < max; i++, p = end) {
		v[i] = strtoll(p, &end, 10);
		if (end == p)
			break;
	}
	return i;
}
/*
 * /proc/PID/stat and statm: the start, CPU time (user and system, of
 * every thread) and size of the process, as illumos's psinfo_t has
 * them, its sizes in Kbytes.
 */
static void
dtd_host_ps_pstat(dtd_fire_t *f)
{
	const dtd_hit_t *h = f->df_hit;
	unsigned long long size, rss;
	long long kpp = sysconf(_SC_PAGESIZE) / 1024;
	char path[64];
	long long v[20];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)h->dh_pid);
	if ((fp = fopen(path, "re")) != NULL) {
		if (fscanf(fp, "%llu %llu", &size, &rss) == 2) {
			f->df_ps[DIF_PSINFO_SIZE] = (int64_t)(size * kpp);
			f->df_ps[DIF_PSINFO_RSSIZE] = (int64_t)(rss * kpp);
		}
		fclose(fp);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)h->dh_pid);
	/* utime 14, stime 15, start 22 */
	if (dtd_host_statfields(path, v, 20, NULL) < 20)
		return;
	dtd_host_ticks(f->df_psstr.dfs_time, v[10] + v[11], 0);
	dtd_host_ticks(f->df_psstr.dfs_start, v[18], 1);
}

/*
 * /proc/PID/task/TID/stat: the process group, session, tty and number
 * of threads of the process, the priority, policy, start and CPU time
 * of the thread.
 */
static void
dtd_host_ps_stat(dtd_fire_t *f)
{
	const dtd_hit_t *h = f->df_hit;
	char path[96], st = '\0';
	long long v[40];

	f->df_ps[DIF_PSINFO_TTYDEV] = -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)h->dh_pid,
	    (int)h->dh_tid);
	if (dtd_host_statfields(path, v, 40, &st) < 38)
		return;
	/*
	 * illumos's state of a thread a probe's argument names (the one
	 * that fired the probe is SONPROC, running it): Linux's running or
	 * runnable is SRUN, its sleeps (S, D, I) SSLEEP, stopped or traced
	 * SSTOP, a zombie SZOMB
	 */
	switch (st) {
	case 'R':
		f->df_ps[DIF_PSINFO_STATE] = 2;		/* SRUN */
		f->df_ps[DIF_PSINFO_SNAME] = 'R';
		break;
	case 'T': case 't':
		f->df_ps[DIF_PSINFO_STATE] = 4;		/* SSTOP */
		f->df_ps[DIF_PSINFO_SNAME] = 'T';
		break;
	case 'Z': case 'X':
		f->df_ps[DIF_PSINFO_STATE] = 3;		/* SZOMB */
		f->df_ps[DIF_PSINFO_SNAME] = 'Z';
		break;
	default:
		f->df_ps[DIF_PSINFO_STATE] = 1;		/* SSLEEP */
		f->df_ps[DIF_PSINFO_SNAME] = 'S';
		break;
	}
	f->df_ps[DIF_PSINFO_PGID] = v[1];
	f->df_ps[DIF_PSINFO_SID] = v[2];
	if (v[3] != 0)
		f->df_ps[DIF_PSINFO_TTYDEV] = v[3];
	f->df_ps[DIF_PSINFO_PRI] = v[14] + 100;	/* the kernel's prio */
	f->df_ps[DIF_PSINFO_ARGV] = v[24];	/* startstack, for now */
	f->df_ps[DIF_PSINFO_NLWP] = v[16];
	dtd_host_ticks(f->df_psstr.dfs_ltime, v[10] + v[11], 0);
	dtd_host_ticks(f->df_psstr.dfs_lstart, v[18], 1);
	if (v[37] >= 0 && v[37] < (long long)(sizeof(dtd_host_clnames) /
	    sizeof(dtd_host_clnames[0])))
		strcpy(f->df_psstr.dfs_clname, dtd_host_clnames[v[37]]);
}

/* /proc/PID/status: the effective uid and gid, the second of each line */
static void
dtd_host_ps_ids(dtd_fire_t *f)
{
	const dtd_hit_t *h = f->df_hit;
	char path[64], line[256];
	unsigned long r, e;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)h->dh_pid);
	if ((fp = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2)
			f->df_ps[DIF_PSINFO_EUID] = (int64_t)e;
		else if (sscanf(line, "Gid: %lu %lu", &r, &e) == 2) {
			f->df_ps[DIF_PSINFO_EGID] = (int64_t)e;
			break;
		}
	}
	fclose(fp);
}

/*
 * pr_psargs as illumos makes it: the arguments joined by spaces, cut
 * to size - 1 bytes.  A process with no arguments (a kernel thread)
 * has "".
 */
void
dtd_host_psargs(pid_t pid, char *a, size_t size)
{
	char path[64];
	size_t n = 0, i;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fp = fopen(path, "re")) != NULL) {
		n = fread(a, 1, size - 1, fp);
		fclose(fp);
	}
	while (n > 0 && a[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++) {
		if (a[i] == '\0')
			a[i] = ' ';
	}
	a[n] = '\0';
}

/*
 * pr_dmodel: the class of the executable the process runs,
 * PR_MODEL_ILP32 (1) or PR_MODEL_LP64 (2); 0 if it cannot be read.
 */
int
dtd_host_dmodel(pid_t pid)
{
	unsigned char ident[5];
	char path[64];
	FILE *fp;
	int model = 0;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	if (fread(ident, 1, sizeof(ident), fp) == sizeof(ident) &&
	    memcmp(ident, "\177ELF", 4) == 0)
		model = ident[4] == 1 ? 1 : 2;
	fclose(fp);
	return model;
}

/*
 * pr_argc, pr_argv, pr_envp: the start of the stack (stat's startstack)
 * is where the exec put argc, then argv[], a null, envp[], in words of
 * the process's data model.  Read from its memory, as illumos reads
 * them from the process's start.
 */
static void
dtd_host_ps_stack(dtd_fire_t *f)
{
	const dtd_hit_t *h = f->df_hit;
	uint64_t sp = (uint64_t)f->df_ps[DIF_PSINFO_ARGV], argc = 0;
	int w;

	f->df_ps[DIF_PSINFO_ARGV] = 0;
	if (sp == 0 || h->dh_uread == NULL)
		return;
	w = f->df_ps[DIF_PSINFO_DMODEL] == 1 ? 4 : 8;
	if (h->dh_uread(h->dh_uarg, sp, &argc, (size_t)w) != 0)
		return;
	f->df_ps[DIF_PSINFO_ARGC] = (int64_t)argc;
	f->df_ps[DIF_PSINFO_ARGV] = (int64_t)(sp + w);
	f->df_ps[DIF_PSINFO_ENVP] = (int64_t)(sp + w * (argc + 2));
}

/* __psinfo[ndx]: a string's value is its address in f->df_psstr */
static int
dtd_host_psinfo(dtd_fire_t *f, uint64_t ndx, uint64_t *valp)
{
	int grp;

	switch (ndx) {
	case DIF_PSINFO_EUID:
	case DIF_PSINFO_EGID:
		grp = DTD_PS_IDS;
		break;
	case DIF_PSINFO_PSARGS:
		grp = DTD_PS_ARGS;
		break;
	case DIF_PSINFO_DMODEL:
		grp = DTD_PS_MODEL;
		break;
	case DIF_PSINFO_ARGC:
	case DIF_PSINFO_ARGV:
	case DIF_PSINFO_ENVP:
		grp = DTD_PS_STACK;
		break;
	case DIF_PSINFO_STATE:
	case DIF_PSINFO_SNAME:
		/* the firing thread is running the probe: SONPROC, 'O' */
		if (f->df_pssubj == 0) {
			*valp = ndx == DIF_PSINFO_STATE ? 6 : 'O';
			return 0;
		}
		grp = DTD_PS_STAT;
		break;
	case DIF_PSINFO_PGID:
	case DIF_PSINFO_SID:
	case DIF_PSINFO_NLWP:
	case DIF_PSINFO_PRI:
	case DIF_PSINFO_CLNAME:
	case DIF_PSINFO_TTYDEV:
	case DIF_PSINFO_LSTART:
	case DIF_PSINFO_LTIME:
		grp = DTD_PS_STAT;
		break;
	case DIF_PSINFO_START:
	case DIF_PSINFO_TIME:
	case DIF_PSINFO_SIZE:
	case DIF_PSINFO_RSSIZE:
		grp = DTD_PS_PSTAT;
		break;
	case DIF_PSINFO_FNAME:
		grp = DTD_PS_FNAME;
		break;
	case DIF_PSINFO_PID:
		*valp = (uint64_t)(int64_t)f->df_hit->dh_pid;
		return 0;
	case DIF_PSINFO_TID:
		*valp = (uint64_t)(int64_t)f->df_hit->dh_tid;
		return 0;
	case DIF_PSINFO_PPID:
		dtd_host_proc(f);
		*valp = (uint64_t)(int64_t)f->df_ppid;
		return 0;
	case DIF_PSINFO_UID:
		dtd_host_proc(f);
		*valp = (uint64_t)f->df_uid;
		return 0;
	case DIF_PSINFO_GID:
		dtd_host_proc(f);
		*valp = (uint64_t)f->df_gid;
		return 0;
	case DIF_PSINFO_ONPRO:
		*valp = f->df_hit->dh_cpu >= 0 || f->df_hit->dh_getcpu != NULL ?
		    (uint64_t)(int64_t)dtd_ecb_hitcpu(f->df_hit) :
		    (uint64_t)-1;
		return 0;
	default:
		return DIF_FLT_ILLOP;
	}
	if (!(f->df_psdone & grp)) {
		if (f->df_psdone == 0) {
			memset(f->df_ps, 0, sizeof(f->df_ps));
			memset(&f->df_psstr, 0, sizeof(f->df_psstr));
		}
		/* the stack's words: where from stat, how wide from exe */
		if (grp == DTD_PS_STACK) {
			(void)dtd_host_psinfo(f, DIF_PSINFO_PGID, valp);
			(void)dtd_host_psinfo(f, DIF_PSINFO_DMODEL, valp);
		}
		f->df_psdone |= grp;
		switch (grp) {
		case DTD_PS_STACK:
			dtd_host_ps_stack(f);
			break;
		case DTD_PS_STAT:
			dtd_host_ps_stat(f);
			break;
		case DTD_PS_IDS:
			dtd_host_ps_ids(f);
			break;
		case DTD_PS_PSTAT:
			dtd_host_ps_pstat(f);
			break;
		case DTD_PS_FNAME:
			/* execname's first 15 bytes, the rest 0 */
			dtd_host_comm(f->df_hit, f->df_psstr.dfs_fname,
			    sizeof(f->df_psstr.dfs_fname));
			break;
		case DTD_PS_ARGS:
			if (f->df_hit->dh_psargs != NULL)
				strncpy(f->df_psstr.dfs_psargs,
				    f->df_hit->dh_psargs,
				    sizeof(f->df_psstr.dfs_psargs) - 1);
			else
				dtd_host_psargs(f->df_hit->dh_pid,
				    f->df_psstr.dfs_psargs,
				    sizeof(f->df_psstr.dfs_psargs));
			break;
		case DTD_PS_MODEL:
			f->df_ps[DIF_PSINFO_DMODEL] =
			    f->df_hit->dh_dmodel != 0 ? f->df_hit->dh_dmodel :
			    dtd_host_dmodel(f->df_hit->dh_pid);
			break;
		}
	}
	if (ndx == DIF_PSINFO_PSARGS)
		*valp = (uintptr_t)f->df_psstr.dfs_psargs;
	else if (ndx == DIF_PSINFO_CLNAME)
		*valp = (uintptr_t)f->df_psstr.dfs_clname;
	else if (ndx == DIF_PSINFO_START)
		*valp = (uintptr_t)f->df_psstr.dfs_start;
	else if (ndx == DIF_PSINFO_TIME)
		*valp = (uintptr_t)f->df_psstr.dfs_time;
	else if (ndx == DIF_PSINFO_LSTART)
		*valp = (uintptr_t)f->df_psstr.dfs_lstart;
	else if (ndx == DIF_PSINFO_LTIME)
		*valp = (uintptr_t)f->df_psstr.dfs_ltime;
	else if (ndx == DIF_PSINFO_FNAME)
		*valp = (uintptr_t)f->df_psstr.dfs_fname;
	else
		*valp = (uint64_t)f->df_ps[ndx];
	return 0;
}

/*
 * __psinfo[key]: of the subject key names (dif.h), the firing hit's
 * (0) or a task an argument names.  A subject's values are read with
 * the firing's df_hit set to it for a moment; what the firing caches of
 * its own hit's ppid, uid and gid is read again after that.
 */
static int
dtd_host_psinfo_of(dtd_fire_t *f, uint64_t key, uint64_t *valp)
{
	uint64_t subj = key >> DIF_PSINFO_SUBJSHIFT;
	const dtd_hit_t *h = f->df_hit;
	int rv;

	if (subj > DTD_HIT_NSUBJ || (subj != 0 && h->dh_subj[subj - 1] ==
	    NULL))
		return DIF_FLT_ILLOP;
	if (subj != f->df_pssubj) {
		f->df_psdone = 0;
		f->df_pssubj = subj;
	}
	key &= (1u << DIF_PSINFO_SUBJSHIFT) - 1;
	if (subj == 0)
		return dtd_host_psinfo(f, key, valp);
	f->df_hit = h->dh_subj[subj - 1];
	f->df_procdone = 0;
	rv = dtd_host_psinfo(f, key, valp);
	f->df_hit = h;
	f->df_procdone = 0;
	return rv;
}

/* On-CPU time of the hit's thread, or the timestamp when unknown. */
static uint64_t
dtd_host_vtime(const dtd_hit_t *h)
{
	struct timespec ts;
	char path[96];
	unsigned long long ns;
	FILE *fp;
	int ok;

	if (h->dh_pid == getpid() && h->dh_tid == (pid_t)syscall(SYS_gettid) &&
	    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
	    (int)h->dh_pid, (int)h->dh_tid);
	if ((fp = fopen(path, "re")) == NULL)
		return h->dh_timestamp;
	ok = fscanf(fp, "%llu", &ns) == 1;
	fclose(fp);
	return ok ? ns : h->dh_timestamp;
}

/* Argument ndx (0-9) of the hit: 6 to 9 may be read only now. */
static uint64_t
dtd_host_arg(const dtd_hit_t *h, int ndx)
{
	uint64_t v;

	if (ndx < 6 || h->dh_argsp == 0)
		return h->dh_args[ndx];
	if (h->dh_uread == NULL || h->dh_uread(h->dh_uarg, h->dh_argsp +
	    8 * (uint64_t)(ndx - 6), &v, sizeof(v)) != 0)
		return 0;
	return v;
}

static int
dtd_host_builtin(void *arg, uint32_t var, uint64_t ndx, uint64_t *valp)
{
	dtd_fire_t *f = arg;
	const dtd_hit_t *h = f->df_hit;
	const dtd_probe_t *p = h->dh_probe;
	struct timespec ts;

	switch (var) {
	case DIF_VAR_ARGS:
		if (ndx >= 10)
			return DIF_FLT_ILLOP;
		*valp = dtd_host_arg(h, (int)ndx);
		return 0;
	case DIF_VAR_UREGS:
		/*
		 * no user thread under the hit (an idle CPU's sample): as
		 * illumos's, an invalid address (0x0); a register there is
		 * not, an illegal operation
		 */
		if (h->dh_regs == NULL)
			return DIF_FLT_BADADDR;
		if (ndx >= h->dh_nregs)
			return DIF_FLT_ILLOP;
		*valp = h->dh_regs[ndx];
		return 0;
	case DIF_VAR_PSINFO:
		return dtd_host_psinfo_of(f, ndx, valp);
	case DIF_VAR_REGS:
	case DIF_VAR_CURTHREAD:
	case DIF_VAR_IPL:
	case DIF_VAR_STACKDEPTH:
	case DIF_VAR_CALLER:
		return DIF_FLT_KPRIV;
	case DIF_VAR_TIMESTAMP:
		*valp = h->dh_timestamp;
		return 0;
	case DIF_VAR_VTIMESTAMP:
		*valp = dtd_host_vtime(h);
		return 0;
	case DIF_VAR_WALLTIMESTAMP:
		clock_gettime(CLOCK_REALTIME, &ts);
		*valp = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
		return 0;
	case DIF_VAR_EPID:
		*valp = f->df_ecb->de_epid;
		return 0;
	case DIF_VAR_ID:
		*valp = p->dpr_id;
		return 0;
	case DIF_VAR_ARG0: case DIF_VAR_ARG1: case DIF_VAR_ARG2:
	case DIF_VAR_ARG3: case DIF_VAR_ARG4: case DIF_VAR_ARG5:
	case DIF_VAR_ARG6: case DIF_VAR_ARG7: case DIF_VAR_ARG8:
	case DIF_VAR_ARG9:
		*valp = dtd_host_arg(h, (int)(var - DIF_VAR_ARG0));
		return 0;
	case DIF_VAR_PROBEPROV:
		*valp = (uintptr_t)p->dpr_prov->dpv_name;
		return 0;
	case DIF_VAR_PROBEMOD:
		*valp = (uintptr_t)p->dpr_mod;
		return 0;
	case DIF_VAR_PROBEFUNC:
		*valp = (uintptr_t)p->dpr_func;
		return 0;
	case DIF_VAR_PROBENAME:
		*valp = (uintptr_t)p->dpr_name;
		return 0;
	case DIF_VAR_PID:
		*valp = (uint64_t)h->dh_pid;
		return 0;
	case DIF_VAR_TID:
		*valp = (uint64_t)h->dh_tid;
		return 0;
	case DIF_VAR_EXECNAME:
		dtd_host_execname(f);
		*valp = (uintptr_t)f->df_execname;
		return 0;
	case DIF_VAR_ZONENAME:
		*valp = (uintptr_t)f->df_zonename;
		return 0;
	case DIF_VAR_PPID:
		dtd_host_proc(f);
		*valp = (uint64_t)(int64_t)f->df_ppid;
		return 0;
	case DIF_VAR_UID:
		dtd_host_proc(f);
		*valp = (uint64_t)f->df_uid;
		return 0;
	case DIF_VAR_GID:
		dtd_host_proc(f);
		*valp = (uint64_t)f->df_gid;
		return 0;
	case DIF_VAR_ERRNO:
		if (h->dh_errno == NULL || h->dh_nothread) {
			*valp = 0;
			return 0;
		}
		return h->dh_errno(h, valp);
	case DIF_VAR_CPU:
		*valp = (uint64_t)dtd_ecb_hitcpu(h);
		return 0;
	case DIF_VAR_USTACKDEPTH:
	case DIF_VAR_UCALLER: {
		uint64_t pcs[DTRACE_USTACK_MAXFRAMES];
		uint32_t max = f->df_ecb->de_consumer->dc_opts.do_maxframes;
		int n = 0;

		/* the depth counts at most maxframes, as a stack records */
		if (max > DTRACE_USTACK_MAXFRAMES)
			max = DTRACE_USTACK_MAXFRAMES;
		if (h->dh_ustack != NULL && !h->dh_nothread)
			n = h->dh_ustack(h, pcs, var == DIF_VAR_UCALLER ? 2 :
			    max);
		if (var == DIF_VAR_USTACKDEPTH)
			*valp = (uint64_t)n;
		else
			*valp = n > 1 ? pcs[1] : 0;
		return 0;
	}
	default:
		return DIF_FLT_ILLOP;
	}
}

/* copyout(), copyoutstr(): a stopped thread, a consumer allowed them */
static int
dtd_host_uwrite(void *arg, uint64_t addr, const void *buf, size_t len)
{
	dtd_fire_t *f = arg;
	const dtd_hit_t *h = f->df_hit;

	if (h->dh_uwrite == NULL || !f->df_ecb->de_consumer->dc_allowdestr)
		return DIF_FLT_UPRIV;
	return h->dh_uwrite(h->dh_uarg, addr, buf, len);
}

static int
dtd_host_uread(void *arg, uint64_t addr, void *buf, size_t len)
{
	dtd_fire_t *f = arg;
	const dtd_hit_t *h = f->df_hit;

	if (h->dh_uread == NULL)
		return DIF_FLT_UPRIV;
	return h->dh_uread(h->dh_uarg, addr, buf, len);
}

/* speculation(): one of the consumer's speculations (dtd_spec.c). */
static int
dtd_host_speculation(void *arg, uint64_t *idp)
{
	dtd_fire_t *f = arg;
	dtd_consumer_t *c = f->df_ecb->de_consumer;

	*idp = c->dc_spec == NULL ? 0 :
	    dtd_spec_alloc(c->dc_spec, f->df_hit->dh_timestamp);
	return 0;
}

/*
 * /proc/PID/status: the first number after a "Key:" line's colon, and
 * with v2p, the second if the rest of the line (the real, effective,
 * saved and filesystem ids) all equal it, else -1.  0, or -1.
 */
int
dtd_host_status(pid_t pid, const char *key, long *vp, long *v2p)
{
	char path[64], line[256];
	FILE *fp;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (rc == 0 && fgets(line, sizeof(line), fp) != NULL)
		rc = ft_procfs_statusline(line, key, vp, v2p);
	fclose(fp);
	return rc == 1 ? 0 : -1;
}

/* The parent of process pid from /proc, or -1. */
static pid_t
dtd_host_parent(pid_t pid)
{
	long v;

	return dtd_host_status(pid, "PPid", &v, NULL) == 0 ? (pid_t)v : -1;
}

/*
 * progenyof(pid): is the firing process pid, or a descendant of it?  As
 * in illumos, up the chain of parents; a process whose parent is gone
 * has been reparented, and its new ancestors are the ones that count.
 */
static int
dtd_host_progenyof(void *arg, uint64_t want, uint64_t *resultp)
{
	dtd_fire_t *f = arg;
	pid_t pid = (pid_t)f->df_hit->dh_pid;
	int depth;

	*resultp = 0;
	if ((int64_t)want <= 0 || want > INT32_MAX)
		return 0;
	dtd_host_proc(f);
	for (depth = 0; pid > 0 && depth < 4096; depth++) {
		if ((uint64_t)pid == want) {
			*resultp = 1;
			return 0;
		}
		/* the record's ancestry as far as it goes, then /proc's */
		if (depth == 0 && f->df_ppid != -1)
			pid = f->df_ppid;
		else if (depth >= 1 && depth - 1 < f->df_hit->dh_nanc &&
		    f->df_hit->dh_anc != NULL &&
		    f->df_hit->dh_anc[depth - 1] != 0)
			pid = (pid_t)f->df_hit->dh_anc[depth - 1];
		else
			pid = dtd_host_parent(pid);
	}
	return 0;
}
