/*
 * dt_pscan.c: the USDT providers of the processes running now, for a
 * probe description whose provider is a glob (python*:::function-entry):
 * illumos matches such a glob against the providers of every process
 * that registered its probes; here a process's USDT probes exist once
 * it is a target, so the processes whose providers the glob matches are
 * found first and grabbed (dt_proc.c) like one a description names.
 *
 * A process's providers are those of the <sys/sdt.h> notes
 * (.note.stapsdt) of the files it has mapped executable, read from
 * /proc/PID/maps and the files themselves, as the user running dtrace
 * may read them (the daemon checks again what the user may trace).
 * Each file is read once a scan (by device and inode).  The probes of a
 * process are provider + pid (python1234), as the daemon names them.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

#define DT_PSCAN_NT_STAPSDT	3	/* <sys/sdt.h>'s note type */

/* A file's provider names, NUL-separated, ended by an empty one. */
typedef struct dt_pscan_file {
	dev_t		pf_dev;
	ino_t		pf_ino;
	char		*pf_provs;
	struct dt_pscan_file *pf_next;
} dt_pscan_file_t;

/* Add name to the list at *provs (of *len bytes) unless it is there. */
static void
dt_pscan_addprov(char **provs, size_t *len, const char *name)
{
	const char *p;
	size_t n = strlen(name);
	char *np;

	for (p = *provs; p != NULL && *p != '\0'; p += strlen(p) + 1)
		if (strcmp(p, name) == 0)
			return;
	if (n == 0 || (np = realloc(*provs, *len + n + 2)) == NULL)
		return;
	memcpy(np + (*len > 0 ? *len - 1 : 0), name, n + 1);
	*len = (*len > 0 ? *len - 1 : 0) + n + 1;
	np[(*len)++] = '\0';
	*provs = np;
}

/*
 * The provider names of the file open on fd (its .note.stapsdt notes:
 * three addresses, then provider, name and arguments), or NULL.
 */
static char *
dt_pscan_provs(int fd)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, len = 0, off, noff, doff;
	Elf_Data *d;
	GElf_Nhdr nh;
	const char *sname, *desc;
	char *provs = NULL;
	int w;

	elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return NULL;
	w = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		elf_end(elf);
		return NULL;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE ||
		    (sname = elf_strptr(elf, shstrndx, sh.sh_name)) == NULL ||
		    strcmp(sname, ".note.stapsdt") != 0 ||
		    (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (off = 0; (noff = gelf_getnote(d, off, &nh, &off, &doff)) >
		    0; off = noff) {
			desc = (const char *)d->d_buf + doff;
			if (nh.n_type != DT_PSCAN_NT_STAPSDT ||
			    nh.n_descsz <= (size_t)3 * w ||
			    memchr(desc + 3 * w, '\0', nh.n_descsz - 3 * w) ==
			    NULL)
				continue;
			dt_pscan_addprov(&provs, &len, desc + 3 * w);
		}
	}
	elf_end(elf);
	return provs;
}

/* The provider names of the file at path (read once), or NULL. */
static const char *
dt_pscan_file(dt_pscan_file_t **files, const char *path)
{
	dt_pscan_file_t *f;
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return NULL;
	}
	for (f = *files; f != NULL; f = f->pf_next)
		if (f->pf_dev == st.st_dev && f->pf_ino == st.st_ino) {
			close(fd);
			return f->pf_provs;
		}
	if ((f = calloc(1, sizeof(*f))) == NULL) {
		close(fd);
		return NULL;
	}
	f->pf_dev = st.st_dev;
	f->pf_ino = st.st_ino;
	f->pf_provs = dt_pscan_provs(fd);
	f->pf_next = *files;
	*files = f;
	close(fd);
	return f->pf_provs;
}

/* Has process pid a provider whose probes' provider glob matches? */
static int
dt_pscan_match(dt_pscan_file_t **files, pid_t pid, const char *glob)
{
	char path[64], line[PATH_MAX + 128], name[DTRACE_PROVNAMELEN + 16];
	const char *provs, *p, *file;
	char perms[8];
	FILE *fp;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%*x-%*x %7s", perms) != 1 ||
		    strchr(perms, 'x') == NULL ||
		    (file = strchr(line, '/')) == NULL)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if ((provs = dt_pscan_file(files, file)) == NULL)
			continue;
		for (p = provs; *p != '\0' && !found; p += strlen(p) + 1) {
			snprintf(name, sizeof(name), "%s%d", p, (int)pid);
			found = fnmatch(glob, name, 0) == 0;
		}
	}
	fclose(fp);
	return found;
}

/*
 * Call fn for each process (but dtrace itself and the daemon, dpid)
 * with a USDT provider whose probes the provider glob matches; stop at
 * the first that returns non-zero and return that.
 */
int
dt_pscan(const char *glob, pid_t dpid, int (*fn)(void *, pid_t), void *arg)
{
	dt_pscan_file_t *files = NULL, *f;
	struct dirent *de;
	DIR *dir;
	char *end;
	long pid;
	int rv = 0;

	if ((dir = opendir("/proc")) == NULL)
		return 0;
	while (rv == 0 && (de = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid > INT32_MAX ||
		    (pid_t)pid == getpid() || (pid_t)pid == dpid)
			continue;
		if (dt_pscan_match(&files, (pid_t)pid, glob))
			rv = fn(arg, (pid_t)pid);
	}
	closedir(dir);
	while ((f = files) != NULL) {
		files = f->pf_next;
		free(f->pf_provs);
		free(f);
	}
	return rv;
}
