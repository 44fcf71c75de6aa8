/*
 * rawtrace: the floor for a ptrace tracer.  It runs a command, plants an
 * int3 at one function whose first instruction is push %rbp, and on each
 * hit emulates that push and resumes: one stop, one GETREGS, one POKE,
 * one SETREGS and one CONT per hit, with nothing else.  pidbench.sh
 * measures dtraced's pid provider against it.
 *
 *	rawtrace ADDR cmd [args...]
 *
 * ADDR is the function's address as nm(1) prints it (hex): a link-time
 * address, rebased on the executable's load address when it is PIE.
 */
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
rawtrace_die(const char *what)
{
	fprintf(stderr, "rawtrace: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Is the executable PIE (ET_DYN)?  Then ADDR is relative to its base. */
static int
rawtrace_ispie(const char *path)
{
	Elf64_Ehdr eh;
	FILE *fp;
	int pie;

	if ((fp = fopen(path, "r")) == NULL)
		rawtrace_die(path);
	pie = fread(&eh, sizeof(eh), 1, fp) == 1 && eh.e_type == ET_DYN;
	fclose(fp);
	return pie;
}

/* The load base: the lowest mapping of the executable, from offset 0. */
static uint64_t
rawtrace_base(pid_t pid)
{
	char path[64], exe[4096], line[4096 + 128], file[4096];
	uint64_t lo, hi, off, base = 0;
	ssize_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) == -1)
		rawtrace_die(path);
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		rawtrace_die(path);
	while (fgets(line, sizeof(line), fp) != NULL) {
		file[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64
		    " %*s %*s %4095s", &lo, &hi, &off, file) < 3)
			continue;
		if (off == 0 && strcmp(file, exe) == 0) {
			base = lo;
			break;
		}
	}
	fclose(fp);
	if (base == 0) {
		fprintf(stderr, "rawtrace: no mapping of %s\n", exe);
		exit(2);
	}
	return base;
}

int
main(int argc, char **argv)
{
	struct user_regs_struct r;
	uint64_t addr, hits = 0;
	long word;
	pid_t pid;
	int st, sig = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: rawtrace ADDR cmd [args...]\n");
		return 2;
	}
	addr = strtoull(argv[1], NULL, 16);
	if ((pid = fork()) == -1)
		rawtrace_die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == -1)
			rawtrace_die("PTRACE_TRACEME");
		execvp(argv[2], argv + 2);
		rawtrace_die(argv[2]);
	}
	/* stopped at the exec: the executable is mapped, main has not run */
	if (waitpid(pid, &st, 0) == -1 || !WIFSTOPPED(st))
		rawtrace_die("waitpid");
	if (rawtrace_ispie(argv[2][0] == '/' || strchr(argv[2], '/') ?
	    argv[2] : "/proc/self/exe"))
		addr += rawtrace_base(pid);
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno != 0)
		rawtrace_die("PTRACE_PEEKTEXT");
	if ((word & 0xff) != 0x55) {
		fprintf(stderr, "rawtrace: %#" PRIx64 " is not push %%rbp\n",
		    addr);
		kill(pid, SIGKILL);
		return 2;
	}
	if (ptrace(PTRACE_POKETEXT, pid, (void *)addr,
	    (void *)((word & ~0xffL) | 0xcc)) == -1)
		rawtrace_die("PTRACE_POKETEXT");

	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) == -1)
			rawtrace_die("PTRACE_CONT");
		sig = 0;
		if (waitpid(pid, &st, 0) == -1)
			rawtrace_die("waitpid");
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);	/* pass it on */
			continue;
		}
		if (ptrace(PTRACE_GETREGS, pid, NULL, &r) == -1)
			rawtrace_die("PTRACE_GETREGS");
		if (r.rip != addr + 1) {
			fprintf(stderr, "rawtrace: stray trap at %#llx\n",
			    r.rip);
			kill(pid, SIGKILL);
			return 2;
		}
		/*
		 * Emulate push %rbp.  The trap left rip just past the int3,
		 * which is where the 1-byte push ends: rip stays as it is.
		 */
		r.rsp -= 8;
		if (ptrace(PTRACE_POKEDATA, pid, (void *)r.rsp,
		    (void *)r.rbp) == -1)
			rawtrace_die("PTRACE_POKEDATA");
		if (ptrace(PTRACE_SETREGS, pid, NULL, &r) == -1)
			rawtrace_die("PTRACE_SETREGS");
		hits++;
	}
	fprintf(stderr, "rawtrace: %" PRIu64 " hits\n", hits);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
