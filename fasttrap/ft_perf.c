/*
 * ft_perf.c: perf sampling as a capture source.  A sampler is one CPU's
 * perf ring of cpu-clock samples, each with the sampled thread's user
 * registers (at kernel entry, for a sample taken in the kernel), the
 * top FT_PERF_STACK bytes of its user stack and, where the caller asks
 * for kernel frames, the kernel's call chain of a sample taken in the
 * kernel, and with perf's side-band records: an executable mmap, an
 * exec, an exit.  It is opened in the mode perf allows:
 *  - CPU (ft_perf_open_cpu): root, CAP_PERFMON or a permissive
 *    perf_event_paranoid.  The CPU's event samples whatever runs there.
 *  - task (ft_perf_open_task): where perf_event_paranoid is 2 or less,
 *    the caller's processes only: an event per thread of each process
 *    ft_perf_follow() is given, inherited by the threads and processes
 *    they create, all writing into the CPU's ring (a dummy event of our
 *    own); at paranoid 2 user mode only.
 * The ring makes its descriptor (ft_perf_fd) readable only when half
 * full: the caller drains it on a timer too (ft_perf_drain), which
 * hands each sample (ft_perfhit_t) and each side-band record to the
 * caller and says how many samples there were, lost ones included.
 *
 * A sample's memory accessor (ft_perf_read) serves the stack copied at
 * the sample where the range lies in it, else the process's memory now
 * (later than the sample) through an observed ft_proc_t, with the
 * copied bytes laid over what it overlaps: snapshot, then live.  A hit
 * of another capture source in the same shape (a system call's, with
 * the memory it names copied too: ph_cap) is served the same way.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ft.h"

/* The perf ring of one CPU: 2^n data pages (16 samples with stacks). */
#define	FT_PERF_RINGPAGES	64

/*
 * The user registers a sample carries: perf's x86-64 numbering, all
 * but the data segment selectors (refused): ax bx cx dx si di bp sp ip
 * flags cs ss r8 ... r15.
 */
#define	FT_PERF_REGMASK		0xff0fffull
#define	FT_PERF_NPREGS		20

/* Task mode: the events of one process on one CPU (one per thread). */
typedef struct ft_perftask {
	pid_t		pk_pid;
	int		*pk_fds;
	uint32_t	pk_nfds;
} ft_perftask_t;

struct ft_perf {
	int		pf_cpu;
	uint64_t	pf_ns;		/* the sampling period */
	uint32_t	pf_kframes;	/* kernel frames a sample carries */
	int		pf_task;	/* task mode */
	int		pf_nokernel;	/* task mode: exclude_kernel */
	int		pf_fd;		/* the ring's event, or -1 */
	void		*pf_ring;	/* its mapping */
	size_t		pf_ringlen;
	uint8_t		*pf_rec;	/* a record that wraps */
	ft_perftask_t	*pf_tasks;	/* task mode: processes sampled */
	uint32_t	pf_ntasks;
};

/*
 * The most kernel frames a sample may carry: the kernel's
 * perf_event_max_stack (127 by default), which an event may not exceed.
 */
static uint32_t
ft_perf_maxstack(void)
{
	unsigned long v = 0;
	FILE *f;

	if ((f = fopen("/proc/sys/kernel/perf_event_max_stack", "re")) ==
	    NULL)
		return 127;
	if (fscanf(f, "%lu", &v) != 1)
		v = 127;
	fclose(f);
	return v > UINT16_MAX ? UINT16_MAX : (uint32_t)v;
}

/*
 * The attributes of a sampling event: cpu-clock every ns, with the user
 * registers and FT_PERF_STACK bytes of user stack in each sample, and
 * the side-band records that say when a process's modules change
 * (executable mmaps, exec) or it exits.  With kframes, the kernel's
 * call chain too, at most kframes deep: kernel frames only (the user
 * stack is unwound from the copy), asked for only when wanted, since
 * the kernel walks it at every sample.
 */
static void
ft_perf_attr(struct perf_event_attr *a, uint64_t ns, uint32_t kframes)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (kframes > 0) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 1;
		a->sample_max_stack = (uint16_t)kframes;
	}
	a->sample_regs_user = FT_PERF_REGMASK;
	a->sample_stack_user = FT_PERF_STACK;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
}

/*
 * A sampler of cpu, with nothing open yet, its samples kframes kernel
 * frames deep at most (0: none); NULL if out of memory.
 */
static ft_perf_t *
ft_perf_new(int cpu, int task, uint64_t ns, uint32_t kframes)
{
	ft_perf_t *s;
	uint32_t max;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if ((s->pf_rec = malloc(UINT16_MAX + 1)) == NULL) {
		free(s);
		return NULL;
	}
	s->pf_cpu = cpu;
	s->pf_task = task;
	s->pf_ns = ns;
	if (kframes > 0 && kframes > (max = ft_perf_maxstack()))
		kframes = max;
	s->pf_kframes = kframes;
	s->pf_fd = -1;
	return s;
}

/*
 * Open event a of process pid (0: this one, -1: any) on s's CPU, to
 * make the descriptor readable when its ring is half full, and map the
 * ring: 0, or -1 with nothing left open.
 */
static int
ft_perf_openring(ft_perf_t *s, struct perf_event_attr *a, pid_t pid)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;
	int fd;

	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(FT_PERF_RINGPAGES * page / 2);
	if ((fd = (int)syscall(SYS_perf_event_open, a, pid, s->pf_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1)
		return -1;
	m = mmap(NULL, (1 + FT_PERF_RINGPAGES) * page,
	    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -1;
	}
	s->pf_fd = fd;
	s->pf_ring = m;
	s->pf_ringlen = (1 + FT_PERF_RINGPAGES) * page;
	return 0;
}

/*
 * Sample what cpu runs every ns, with kframes kernel frames at most (0:
 * none): a perf cpu-clock event of the CPU, its ring mapped.  NULL if
 * perf refuses (try task mode).
 */
ft_perf_t *
ft_perf_open_cpu(int cpu, uint64_t ns, uint32_t kframes)
{
	struct perf_event_attr a;
	ft_perf_t *s;

	if ((s = ft_perf_new(cpu, 0, ns, kframes)) == NULL)
		return NULL;
	ft_perf_attr(&a, ns, s->pf_kframes);
	if (ft_perf_openring(s, &a, -1) == -1) {
		ft_perf_close(s);
		return NULL;
	}
	return s;
}

/*
 * Task mode: a sampler of chosen processes on cpu every ns, if we may
 * sample a process of our own there.  Tried on ourselves; the kernel too
 * if perf_event_paranoid allows it and *nokernel is 0, else user mode
 * alone (*nokernel becomes 1, for the caller's other CPUs).  Then the
 * ring: a dummy event of the CPU, which the processes' events write
 * into.  NULL if perf refuses this too.
 */
ft_perf_t *
ft_perf_open_task(int cpu, uint64_t ns, uint32_t kframes, int *nokernel)
{
	struct perf_event_attr a;
	ft_perf_t *s;
	int fd;

	if ((s = ft_perf_new(cpu, 1, ns, kframes)) == NULL)
		return NULL;
	/* user mode alone: no sample is in the kernel, none has its frames */
	if ((s->pf_nokernel = *nokernel) != 0)
		s->pf_kframes = 0;
	ft_perf_attr(&a, s->pf_ns, s->pf_kframes);
	a.exclude_kernel = s->pf_nokernel;
	a.exclude_hv = 1;
	a.disabled = 1;
	if ((fd = (int)syscall(SYS_perf_event_open, &a, 0, s->pf_cpu, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1 && errno == EACCES &&
	    !s->pf_nokernel) {
		*nokernel = s->pf_nokernel = 1;
		s->pf_kframes = 0;
		ft_perf_attr(&a, s->pf_ns, 0);
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.disabled = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, s->pf_cpu, -1,
		    PERF_FLAG_FD_CLOEXEC);
	}
	if (fd == -1)
		goto fail;
	close(fd);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	if (ft_perf_openring(s, &a, 0) == -1)
		goto fail;
	return s;

fail:
	ft_perf_close(s);
	return NULL;
}

/* Task mode: close the events of process k. */
static void
ft_perf_task_close(ft_perftask_t *k)
{
	uint32_t i;

	for (i = 0; i < k->pk_nfds; i++)
		close(k->pk_fds[i]);
	free(k->pk_fds);
	k->pk_fds = NULL;
	k->pk_nfds = 0;
}

/*
 * Task mode: sample process k on s's CPU: an event on each of its
 * threads, inherited by the threads (and processes) they create from
 * then on, writing into s's ring.  0, or -1 (none could be).
 */
static int
ft_perf_task_open(ft_perf_t *s, ft_perftask_t *k)
{
	struct perf_event_attr a;
	struct dirent *de;
	char path[64];
	int fd, *nfds;
	pid_t tid;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)k->pk_pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	ft_perf_attr(&a, s->pf_ns, s->pf_kframes);
	a.inherit = 1;
	a.exclude_kernel = s->pf_nokernel;
	a.exclude_hv = 1;
	while ((de = readdir(d)) != NULL) {
		if ((tid = (pid_t)strtol(de->d_name, NULL, 10)) <= 0)
			continue;
		if ((nfds = reallocarray(k->pk_fds, k->pk_nfds + 1,
		    sizeof(*nfds))) == NULL)
			break;
		k->pk_fds = nfds;
		if ((fd = (int)syscall(SYS_perf_event_open, &a, tid,
		    s->pf_cpu, -1, PERF_FLAG_FD_CLOEXEC)) == -1)
			continue;	/* gone already, or not ours */
		/* a thread whose samples could not reach the ring: unsampled */
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->pf_fd) == -1) {
			close(fd);
			continue;
		}
		k->pk_fds[k->pk_nfds++] = fd;
	}
	closedir(d);
	return k->pk_nfds > 0 ? 0 : -1;
}

/*
 * Task mode, on s's thread: sample the processes want[0, nwant), the
 * new ones from now on, and stop sampling those no longer there.
 * Nothing for a CPU sampler.
 */
void
ft_perf_follow(ft_perf_t *s, const pid_t *want, uint32_t nwant)
{
	ft_perftask_t *nk;
	uint32_t i, j;

	if (!s->pf_task)
		return;
	for (i = 0; i < s->pf_ntasks; ) {
		for (j = 0; j < nwant; j++)
			if (want[j] == s->pf_tasks[i].pk_pid)
				break;
		if (j < nwant) {
			i++;
			continue;
		}
		ft_perf_task_close(&s->pf_tasks[i]);
		s->pf_tasks[i] = s->pf_tasks[--s->pf_ntasks];
	}
	for (j = 0; j < nwant; j++) {
		for (i = 0; i < s->pf_ntasks; i++)
			if (want[j] == s->pf_tasks[i].pk_pid)
				break;
		if (i < s->pf_ntasks)
			continue;
		if ((nk = reallocarray(s->pf_tasks, s->pf_ntasks + 1,
		    sizeof(*nk))) == NULL)
			break;
		s->pf_tasks = nk;
		nk = &s->pf_tasks[s->pf_ntasks];
		memset(nk, 0, sizeof(*nk));
		nk->pk_pid = want[j];
		if (ft_perf_task_open(s, nk) == 0)
			s->pf_ntasks++;
		else
			ft_perf_task_close(nk);
	}
}

/* Close s (NULL: nothing) once its thread no longer drains it. */
void
ft_perf_close(ft_perf_t *s)
{
	if (s == NULL)
		return;
	if (s->pf_ring != NULL)
		munmap(s->pf_ring, s->pf_ringlen);
	while (s->pf_ntasks > 0)
		ft_perf_task_close(&s->pf_tasks[--s->pf_ntasks]);
	free(s->pf_tasks);
	if (s->pf_fd != -1)
		close(s->pf_fd);
	free(s->pf_rec);
	free(s);
}

/* What s's thread polls: readable when its ring is half full. */
int
ft_perf_fd(const ft_perf_t *s)
{
	return s->pf_fd;
}

/*
 * The user registers of a sample, in perf's order for FT_PERF_REGMASK,
 * into struct user_regs_struct's.  perf gives no orig_rax, fs_base,
 * gs_base nor the data segment selectors: those read 0.
 */
static void
ft_perf_regs(const uint64_t *pr, struct user_regs_struct *r)
{
	memset(r, 0, sizeof(*r));
	r->rax = pr[0];
	r->rbx = pr[1];
	r->rcx = pr[2];
	r->rdx = pr[3];
	r->rsi = pr[4];
	r->rdi = pr[5];
	r->rbp = pr[6];
	r->rsp = pr[7];
	r->rip = pr[8];
	r->eflags = pr[9];
	r->cs = pr[10];
	r->ss = pr[11];
	r->r8 = pr[12];
	r->r9 = pr[13];
	r->r10 = pr[14];
	r->r11 = pr[15];
	r->r12 = pr[16];
	r->r13 = pr[17];
	r->r14 = pr[18];
	r->r15 = pr[19];
}

/*
 * The kernel frames of a call chain of n entries: those after the
 * kernel's context marker, up to the next marker.  The first is the
 * sampled PC itself.
 */
static void
ft_perf_kchain(const uint64_t *ips, uint64_t n, ft_perfhit_t *h)
{
	uint64_t i, j;

	for (i = 0; i < n; i++) {
		if (ips[i] != PERF_CONTEXT_KERNEL)
			continue;
		for (j = i + 1; j < n && ips[j] < PERF_CONTEXT_MAX; j++)
			;
		h->ph_kpcs = ips + i + 1;
		h->ph_nkpcs = (uint32_t)(j - i - 1);
		return;
	}
}

/*
 * One PERF_RECORD_SAMPLE of s, len bytes after its header (8-byte
 * aligned, as perf lays records out), to ops.
 */
static void
ft_perf_sample(const ft_perf_t *s, const ft_perfops_t *ops, void *arg,
    const uint8_t *p, size_t len)
{
	struct {
		uint64_t	ip;
		uint32_t	pid, tid;
		uint64_t	time;
		uint32_t	cpu, res;
	} smp;
	uint64_t pregs[FT_PERF_NPREGS];
	uint64_t stksize = 0, dynsize = 0, nr, abi;
	size_t off = sizeof(smp);
	ft_perfhit_t h;

	if (len < sizeof(smp))
		return;
	memcpy(&smp, p, sizeof(smp));
	memset(&h, 0, sizeof(h));
	if (s->pf_kframes > 0) {
		if (len < off + 8)
			return;
		memcpy(&nr, p + off, 8);
		off += 8;
		if (nr > (len - off) / 8)
			return;
		ft_perf_kchain((const uint64_t *)(const void *)(p + off), nr,
		    &h);
		off += nr * 8;
	}
	if (len < off + 8)
		return;
	memcpy(&abi, p + off, 8);
	off += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if (len < off + FT_PERF_NPREGS * 8)
			return;
		memcpy(pregs, p + off, FT_PERF_NPREGS * 8);
		off += FT_PERF_NPREGS * 8;
		ft_perf_regs(pregs, &h.ph_regs);
		h.ph_user = 1;
	}
	if (len >= off + 8) {
		memcpy(&stksize, p + off, 8);
		off += 8;
		if (stksize > 0 && len >= off + stksize + 8) {
			memcpy(&dynsize, p + off + stksize, 8);
			h.ph_stack = p + off;
			h.ph_stklen = dynsize < stksize ? dynsize : stksize;
		}
	}
	h.ph_pid = (pid_t)smp.pid;
	h.ph_tid = (pid_t)smp.tid;
	h.ph_cpu = (int)smp.cpu;
	h.ph_time = smp.time;
	h.ph_ip = smp.ip;
	h.ph_sp = h.ph_regs.rsp;
	ops->po_sample(arg, &h);
}

/*
 * On s's thread: hand each sample in s's ring to ops->po_sample and
 * each side-band record to ops->po_event; returns how many samples
 * there were (lost ones included).
 */
uint64_t
ft_perf_drain(ft_perf_t *s, const ft_perfops_t *ops, void *arg)
{
	struct perf_event_mmap_page *mp = s->pf_ring;
	const uint8_t *data = (const uint8_t *)s->pf_ring + mp->data_offset;
	uint64_t size = mp->data_size, head, tail, n = 0, lost;
	struct perf_event_header hdr;
	const uint8_t *rec;
	uint32_t pid, tid;
	uint64_t i, o;

	if (mp->data_offset == 0) {	/* kernels before 4.1 */
		data = (const uint8_t *)s->pf_ring + sysconf(_SC_PAGESIZE);
		size = s->pf_ringlen - (size_t)sysconf(_SC_PAGESIZE);
	}
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		for (i = 0; i < sizeof(hdr); i++)
			((uint8_t *)&hdr)[i] = data[(tail + i) % size];
		if (hdr.size < sizeof(hdr) || tail + hdr.size > head)
			break;	/* not ours to make sense of: drop the rest */
		/* in place where it does not wrap around the ring's end */
		o = tail % size;
		if (o + hdr.size <= size)
			rec = data + o;
		else {
			for (i = 0; i < hdr.size; i++)
				s->pf_rec[i] = data[(tail + i) % size];
			rec = s->pf_rec;
		}
		tail += hdr.size;
		rec += sizeof(hdr);
		switch (hdr.type) {
		case PERF_RECORD_SAMPLE:
			ft_perf_sample(s, ops, arg, rec,
			    hdr.size - sizeof(hdr));
			n++;
			break;
		case PERF_RECORD_LOST:
			if (hdr.size >= sizeof(hdr) + 16) {
				memcpy(&lost, rec + 8, 8);
				n += lost;
			}
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
		case PERF_RECORD_COMM:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_FORK:
			if (hdr.size < sizeof(hdr) + 16)
				break;
			memcpy(&pid, rec, 4);
			memcpy(&tid, rec + (hdr.type == PERF_RECORD_EXIT ||
			    hdr.type == PERF_RECORD_FORK ? 8 : 4), 4);
			if (hdr.type == PERF_RECORD_EXIT ||
			    hdr.type == PERF_RECORD_FORK) {
				/*
				 * a process that exits, or one that a fork
				 * makes with a pid the caller may still know
				 * (its exit was lost): that one is done
				 */
				if (pid == tid)
					ops->po_event(arg, (pid_t)pid,
					    FT_PERF_EXIT);
			} else if (hdr.type != PERF_RECORD_COMM)
				ops->po_event(arg, (pid_t)pid, FT_PERF_MODS);
			else if (hdr.misc & PERF_RECORD_MISC_COMM_EXEC)
				ops->po_event(arg, (pid_t)pid, FT_PERF_EXEC);
			break;
		}
	}
	if (tail < head)
		tail = head;
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/*
 * The stack as sample h saw it, for the unwinder: its copy and nothing
 * else (past its end, memory of a later moment).  0, or -1.
 */
int
ft_perf_stackread(const ft_perfhit_t *h, uint64_t addr, void *buf,
    size_t len)
{
	return ft_hit_stackcopy(h->ph_sp, h->ph_stack, h->ph_stklen, addr,
	    buf, len);
}

/*
 * Memory as sample h sees it: the stack copied at the sample where the
 * range is in it, else the memory of p now (later than the sample;
 * NULL: none), with the copied bytes laid over what it overlaps.  0,
 * or -1.
 */
int
ft_perf_read(const ft_perfhit_t *h, ft_proc_t *p, uint64_t addr, void *buf,
    size_t len)
{
	uint64_t lo = h->ph_sp, hi = h->ph_sp + h->ph_stklen, a, b, off, n;

	/*
	 * Memory copied besides the stack: served from the copy, what lies
	 * past it from the process now; a string copied is all a read
	 * that starts in it needs where the process is gone.
	 */
	if (h->ph_caplen > 0 && addr >= h->ph_capaddr &&
	    (off = addr - h->ph_capaddr) < h->ph_caplen) {
		n = h->ph_caplen - off;
		if (len <= n) {
			memcpy(buf, h->ph_cap + off, len);
			return 0;
		}
		if (p == NULL || ft_proc_read(p, addr, buf, len) != 0) {
			if (!h->ph_capstr ||
			    memchr(h->ph_cap + off, '\0', n) == NULL)
				return -1;
			memset((uint8_t *)buf + n, 0, len - n);
		}
		memcpy(buf, h->ph_cap + off, n);
		return 0;
	}
	if (ft_hit_stackcopy(lo, h->ph_stack, h->ph_stklen, addr, buf,
	    len) == 0)
		return 0;
	if (p == NULL || ft_proc_read(p, addr, buf, len) != 0)
		return -1;
	a = addr > lo ? addr : lo;
	b = addr + len < hi ? addr + len : hi;
	if (a < b)
		memcpy((uint8_t *)buf + (a - addr), h->ph_stack + (a - lo),
		    b - a);
	return 0;
}
