/*
 * dt_lib.c: D libraries.  Before a handle's first compile, every *.d
 * file of the library path (the system directory, then each -L or -x
 * libdir directory in the order given) is compiled, each after the
 * libraries it names with "#pragma D depends_on library NAME", as
 * illumos's dt_load_libs() does: what a library declares (types,
 * typedefs, inlines, translators) stays for the programs compiled after
 * it, and its clauses are checked and dropped.  A library that fails to
 * compile, a dependency on a library that is not in the path and a cycle
 * of dependencies fail that first compile; later compiles go on without
 * the libraries, as in illumos, which tries them once.  -x nolibs skips
 * them all.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"

#ifndef DTRACE_LIBDIR
#define DTRACE_LIBDIR	"/usr/local/lib/dtrace"
#endif

/*
 * The system directory: DTRACE_LIBDIR, or in a build tree, where the
 * build copies the libraries next to our dtrace (as dt_conn.c finds
 * the build's dtraced), so that a dtrace that is not installed does
 * not compile the installed libraries of another version.
 */
static void
dt_lib_sysdir(char *buf, size_t size)
{
	char self[PATH_MAX], *slash;
	struct stat st;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL)
			*slash = '\0';
		snprintf(buf, size, "%s/../libdtrace/lib", self);
		if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
			return;
	}
	snprintf(buf, size, "%s", DTRACE_LIBDIR);
}

/* one library of the path */
typedef struct dt_lib {
	char		*dl_path;	/* DIR/NAME, as errors name it */
	const char	*dl_name;	/* NAME, as dependencies name it */
	char		**dl_deps;	/* the libraries it depends on */
	int		dl_ndeps;
	int		dl_mark;	/* sort: 0 new, 1 on the path, 2 done */
	int		dl_loaded;	/* compiled */
} dt_lib_t;

/* -L DIR, -x libdir=DIR: a directory searched after those before it */
int
dt_lib_adddir(dtrace_hdl_t *dtp, const char *dir)
{
	char **v, *s;

	if (dir == NULL || dir[0] == '\0')
		return dt_set_errno(dtp, EDT_BADOPTVAL);
	if ((s = strdup(dir)) == NULL ||
	    (v = realloc(dtp->dt_libdirs, (dtp->dt_nlibdirs + 1) *
	    sizeof(char *))) == NULL) {
		free(s);
		return dt_set_errno(dtp, EDT_NOMEM);
	}
	v[dtp->dt_nlibdirs++] = s;
	dtp->dt_libdirs = v;
	return 0;
}

static void
dt_lib_free(dt_lib_t *libs, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		free(libs[i].dl_path);
		for (j = 0; j < libs[i].dl_ndeps; j++)
			free(libs[i].dl_deps[j]);
		free(libs[i].dl_deps);
	}
	free(libs);
}

/*
 * The names a library depends on, from its "#pragma D depends_on library
 * NAME" lines, read before anything is compiled so that the libraries
 * can be put in order.
 */
static int
dt_lib_scan(dt_lib_t *dl)
{
	char line[1024], word[5][256];
	char **v;
	FILE *fp;
	int n;

	if ((fp = fopen(dl->dl_path, "r")) == NULL)
		return 0;	/* the compile says why */
	while (fgets(line, sizeof(line), fp) != NULL) {
		n = sscanf(line, " # %255s %255s %255s %255s %255s", word[0],
		    word[1], word[2], word[3], word[4]);
		if (n != 5 || strcmp(word[0], "pragma") != 0 ||
		    strcmp(word[1], "D") != 0 ||
		    strcmp(word[2], "depends_on") != 0 ||
		    strcmp(word[3], "library") != 0)
			continue;
		if ((v = realloc(dl->dl_deps, (dl->dl_ndeps + 1) *
		    sizeof(char *))) == NULL) {
			fclose(fp);
			return -1;
		}
		dl->dl_deps = v;
		if ((v[dl->dl_ndeps] = strdup(word[4])) == NULL) {
			fclose(fp);
			return -1;
		}
		dl->dl_ndeps++;
	}
	fclose(fp);
	return 0;
}

static int
dt_lib_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the *.d files of dir, in name order; a missing dir is skipped. */
static int
dt_lib_readdir(dtrace_hdl_t *dtp, const char *dir, dt_lib_t **libsp,
    int *np)
{
	struct dirent *de;
	char **names = NULL, **v;
	dt_lib_t *libs;
	size_t len;
	int i, n = 0, rv = 0;
	DIR *dp;

	if ((dp = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(dp)) != NULL) {
		len = strlen(de->d_name);
		if (len < 3 || de->d_name[0] == '.' ||
		    strcmp(de->d_name + len - 2, ".d") != 0)
			continue;
		if ((v = realloc(names, (n + 1) * sizeof(char *))) == NULL ||
		    (v[n] = strdup(de->d_name)) == NULL) {
			names = v != NULL ? v : names;
			rv = -1;
			break;
		}
		names = v;
		n++;
	}
	closedir(dp);
	if (rv == 0 && n > 0)
		qsort(names, n, sizeof(char *), dt_lib_cmp);
	for (i = 0; rv == 0 && i < n; i++) {
		dt_lib_t *dl;

		if ((libs = realloc(*libsp, (*np + 1) * sizeof(dt_lib_t))) ==
		    NULL) {
			rv = -1;
			break;
		}
		*libsp = libs;
		dl = &libs[(*np)++];
		memset(dl, 0, sizeof(*dl));
		len = strlen(dir) + strlen(names[i]) + 2;
		if ((dl->dl_path = malloc(len)) == NULL) {
			rv = -1;
			break;
		}
		snprintf(dl->dl_path, len, "%s/%s", dir, names[i]);
		dl->dl_name = dl->dl_path + strlen(dir) + 1;
		if (dt_lib_scan(dl) == -1)
			rv = -1;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rv == -1)
		dt_set_errno(dtp, EDT_NOMEM);
	return rv;
}

static dt_lib_t *
dt_lib_lookup(dt_lib_t *libs, int n, const char *name)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		if (strcmp(libs[i].dl_name, name) == 0)
			return &libs[i];
	}
	return NULL;
}

/* Put dl after what it depends on in order[]; -1 with a message. */
static int
dt_lib_visit(dtrace_hdl_t *dtp, dt_lib_t *libs, int n, dt_lib_t *dl,
    dt_lib_t **order, int *norder)
{
	dt_lib_t *dep;
	int i;

	if (dl->dl_mark == 2)
		return 0;
	if (dl->dl_mark == 1) {
		dt_set_errmsg(dtp, NULL, "Cyclic dependency encountered: %s",
		    dl->dl_path);
		return -1;
	}
	dl->dl_mark = 1;
	for (i = 0; i < dl->dl_ndeps; i++) {
		if ((dep = dt_lib_lookup(libs, n, dl->dl_deps[i])) == NULL) {
			dt_set_errmsg(dtp, NULL, "Missing dependency: %s "
			    "(required by %s)", dl->dl_deps[i], dl->dl_path);
			return -1;
		}
		if (dt_lib_visit(dtp, libs, n, dep, order, norder) == -1)
			return -1;
	}
	dl->dl_mark = 2;
	order[(*norder)++] = dl;
	return 0;
}

/* Compile one library; its program is dropped, its declarations stay. */
static int
dt_lib_compile(dtrace_hdl_t *dtp, dt_lib_t *dl)
{
	dtrace_prog_t *pgp;
	FILE *fp;

	if ((fp = fopen(dl->dl_path, "r")) == NULL) {
		dt_set_errmsg(dtp, NULL, "failed to open library %s: %s",
		    dl->dl_path, strerror(errno));
		return -1;
	}
	/* a library sees every identifier, whatever -x version says */
	dtp->dt_libcur = dl->dl_path;
	if (dtp->dt_globals != NULL)
		dtp->dt_globals->dh_vmax = 0;
	pgp = dt_cc_compile_lib(dtp, fp);
	if (dtp->dt_globals != NULL)
		dtp->dt_globals->dh_vmax = dtp->dt_vmax;
	dtp->dt_libcur = NULL;
	fclose(fp);
	if (pgp == NULL)
		return -1;
	dt_cc_prog_drop(dtp, pgp);
	dl->dl_loaded = 1;
	return 0;
}

/*
 * Load the libraries once, before the first program of the handle is
 * compiled.  0, or -1 with the compile error set.
 */
int
dt_lib_load(dtrace_hdl_t *dtp)
{
	dt_lib_t *libs = NULL, **order = NULL;
	char sysdir[PATH_MAX + 32];
	int i, n = 0, norder = 0, rv = 0;

	if (dtp->dt_libsdone || (dtp->dt_copts & DT_COPT_NOLIBS))
		return 0;
	dtp->dt_libsdone = 1;
	dt_lib_sysdir(sysdir, sizeof(sysdir));
	if (dt_lib_readdir(dtp, sysdir, &libs, &n) == -1)
		rv = -1;
	for (i = 0; rv == 0 && i < dtp->dt_nlibdirs; i++) {
		if (dt_lib_readdir(dtp, dtp->dt_libdirs[i], &libs, &n) == -1)
			rv = -1;
	}
	dtp->dt_libs = libs;
	dtp->dt_nlibs = n;
	if (rv == 0 && n > 0 && (order = calloc(n, sizeof(*order))) == NULL)
		rv = dt_set_errno(dtp, EDT_NOMEM);
	for (i = 0; rv == 0 && i < n; i++)
		rv = dt_lib_visit(dtp, libs, n, &libs[i], order, &norder);
	for (i = 0; rv == 0 && i < norder; i++)
		rv = dt_lib_compile(dtp, order[i]);
	free(order);
	return rv;
}

/* #pragma D depends_on library NAME in the library being compiled */
int
dt_lib_loaded(dtrace_hdl_t *dtp, const char *name)
{
	dt_lib_t *dl = dt_lib_lookup(dtp->dt_libs, dtp->dt_nlibs, name);

	return dl != NULL && dl->dl_loaded;
}

void
dt_lib_fini(dtrace_hdl_t *dtp)
{
	int i;

	dt_lib_free(dtp->dt_libs, dtp->dt_nlibs);
	dtp->dt_libs = NULL;
	dtp->dt_nlibs = 0;
	for (i = 0; i < dtp->dt_nlibdirs; i++)
		free(dtp->dt_libdirs[i]);
	free(dtp->dt_libdirs);
	dtp->dt_libdirs = NULL;
	dtp->dt_nlibdirs = 0;
}
