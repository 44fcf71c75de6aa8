/*
 * rawuprobe: the floor for a uprobe sampler.  It runs a command with one
 * perf uprobe event (the uprobe PMU, pid = the command, enabled at its
 * exec) on one function, sampling what the uprobe backend captures (tid,
 * time, CPU, the user registers and 256 bytes of user stack) into a
 * perf ring with watermark wakeups, and counts the samples and the lost
 * ones.  pidbench.sh measures dtraced's uprobe backend against it.
 *
 *	rawuprobe ADDR cmd [args...]
 *
 * ADDR is the function's address as nm(1) prints it (hex), in the
 * command's executable; it is turned into a file offset here.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/perf_event.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	RING_PAGES	1024	/* 4 MiB of data */

static void
rawuprobe_die(const char *what)
{
	fprintf(stderr, "rawuprobe: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* The file offset of link-time address vaddr in the ELF file at path. */
static uint64_t
rawuprobe_offset(const char *path, uint64_t vaddr)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	FILE *fp;
	int i;

	if ((fp = fopen(path, "r")) == NULL)
		rawuprobe_die(path);
	if (fread(&eh, sizeof(eh), 1, fp) != 1)
		rawuprobe_die(path);
	for (i = 0; i < eh.e_phnum; i++) {
		if (fseek(fp, (long)(eh.e_phoff + i * eh.e_phentsize),
		    SEEK_SET) == -1 || fread(&ph, sizeof(ph), 1, fp) != 1)
			rawuprobe_die(path);
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz) {
			fclose(fp);
			return vaddr - ph.p_vaddr + ph.p_offset;
		}
	}
	fprintf(stderr, "rawuprobe: %#" PRIx64 " is not in %s\n", vaddr,
	    path);
	exit(2);
}

static int
rawuprobe_type(void)
{
	FILE *fp;
	int t;

	if ((fp = fopen("/sys/bus/event_source/devices/uprobe/type",
	    "r")) == NULL || fscanf(fp, "%d", &t) != 1)
		rawuprobe_die("/sys/bus/event_source/devices/uprobe/type");
	fclose(fp);
	return t;
}

/* Read every record in the ring; count samples and lost ones. */
static void
rawuprobe_drain(struct perf_event_mmap_page *mp, uint64_t *nsamp,
    uint64_t *nlost)
{
	uint8_t *data = (uint8_t *)mp + mp->data_offset;
	uint64_t size = mp->data_size, head, tail = mp->data_tail;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail % size, lost;

		/* a header may wrap: copy it out byte by byte */
		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(off + i) % size];
		if (h.type == PERF_RECORD_SAMPLE) {
			(*nsamp)++;
		} else if (h.type == PERF_RECORD_LOST) {
			for (size_t i = 0; i < 8; i++)
				((uint8_t *)&lost)[i] =
				    data[(off + sizeof(h) + 8 + i) % size];
			*nlost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

int
main(int argc, char **argv)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *mp;
	uint64_t nsamp = 0, nlost = 0;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int go[2], fd, st;
	char b;
	pid_t c;

	if (argc < 3) {
		fprintf(stderr, "usage: rawuprobe ADDR cmd [args...]\n");
		return 2;
	}
	if (pipe(go) == -1)
		rawuprobe_die("pipe");
	if ((c = fork()) == 0) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(126);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	close(go[0]);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)rawuprobe_type();
	a.config1 = (uint64_t)(uintptr_t)argv[2];	/* uprobe_path */
	a.config2 = rawuprobe_offset(argv[2],
	    strtoull(argv[1], NULL, 16));		/* probe_offset */
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	/* x86-64: every register but ds, es, fs, gs (12-15), which it refuses */
	a.sample_regs_user = ((1ULL << 24) - 1) & ~(0xfULL << 12);
	a.sample_stack_user = 256;
	a.enable_on_exec = 1;
	a.disabled = 1;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(RING_PAGES * pg / 2);
	if ((fd = (int)syscall(SYS_perf_event_open, &a, c, -1, -1,
	    PERF_FLAG_FD_CLOEXEC)) == -1)
		rawuprobe_die("perf_event_open");
	if ((mp = mmap(NULL, (RING_PAGES + 1) * pg, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0)) == MAP_FAILED)
		rawuprobe_die("mmap");
	(void)!write(go[1], "g", 1);
	close(go[1]);
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };

		(void)poll(&pfd, 1, 10);
		rawuprobe_drain(mp, &nsamp, &nlost);
		if (waitpid(c, &st, WNOHANG) == c)
			break;
	}
	rawuprobe_drain(mp, &nsamp, &nlost);
	printf("rawuprobe: %" PRIu64 " hits, %" PRIu64 " lost\n", nsamp,
	    nlost);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
