/*
 * dt_probe.c: the daemon's probes as the library sees them: listing
 * them (dtrace_probe_iter, dtrace -l) and what dtrace -lv says about
 * one: the stability of its description and of its arguments, as
 * illumos's providers declare them, and its argument types.
 *
 * The attributes are the minimum over the parts of the description that
 * name something (an empty or globbed module or function does not), as
 * illumos's dt_probe_info computes them.  Argument types: the dtrace,
 * profile and pid providers declare none, as in illumos; for a pid entry
 * probe whose function has DWARF in its file we show its parameters'
 * C types (dt_usym.c).
 *
 * Under -x oformat=json the listing is one JSON object a probe
 * (dtrace_probe_json), with the members FreeBSD's structured listing
 * gives a probe.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define A(n, d, c)	{ DTRACE_STABILITY_##n, DTRACE_STABILITY_##d, \
	DTRACE_CLASS_##c }

/* provider, module, function, name, arguments */
static const struct {
	const char		*pa_prov;	/* "pid": any pid<N> */
	dtrace_attribute_t	pa_attr[5];
} dt_probe_pattr[] = {
	{ "dtrace", { A(STABLE, STABLE, COMMON), A(PRIVATE, PRIVATE, UNKNOWN),
	    A(PRIVATE, PRIVATE, UNKNOWN), A(STABLE, STABLE, COMMON),
	    A(STABLE, STABLE, COMMON) } },
	{ "profile", { A(EVOLVING, EVOLVING, COMMON),
	    A(UNSTABLE, UNSTABLE, UNKNOWN), A(PRIVATE, PRIVATE, UNKNOWN),
	    A(EVOLVING, EVOLVING, COMMON), A(EVOLVING, EVOLVING, COMMON) } },
	{ "pid", { A(EVOLVING, EVOLVING, ISA), A(PRIVATE, PRIVATE, UNKNOWN),
	    A(PRIVATE, PRIVATE, UNKNOWN), A(EVOLVING, EVOLVING, ISA),
	    A(PRIVATE, PRIVATE, UNKNOWN) } },
	{ "syscall", { A(EVOLVING, EVOLVING, COMMON),
	    A(PRIVATE, PRIVATE, UNKNOWN), A(PRIVATE, PRIVATE, ISA),
	    A(EVOLVING, EVOLVING, COMMON), A(PRIVATE, PRIVATE, ISA) } },
	{ "proc", { A(EVOLVING, EVOLVING, ISA), A(PRIVATE, PRIVATE, UNKNOWN),
	    A(PRIVATE, PRIVATE, UNKNOWN), A(EVOLVING, EVOLVING, ISA),
	    A(EVOLVING, EVOLVING, ISA) } },
};

/* illumos's attributes for a provider it does not know */
static const dtrace_attribute_t dt_probe_unknown = A(UNSTABLE, UNSTABLE,
    COMMON);

static const char *const dt_probe_stabnames[] = { "Internal", "Private",
    "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard" };
static const char *const dt_probe_classnames[] = { "Unknown", "CPU",
    "Platform", "Group", "ISA", "Common" };

const char *
dtrace_stability_name(int s)
{
	if (s < 0 || s > DTRACE_STABILITY_MAX)
		return NULL;
	return dt_probe_stabnames[s];
}

const char *
dtrace_class_name(int c)
{
	if (c < 0 || c > DTRACE_CLASS_MAX)
		return NULL;
	return dt_probe_classnames[c];
}

static dtrace_attribute_t
dt_probe_attrmin(dtrace_attribute_t a, dtrace_attribute_t b)
{
	dtrace_attribute_t m;

	m.dtat_name = a.dtat_name < b.dtat_name ? a.dtat_name : b.dtat_name;
	m.dtat_data = a.dtat_data < b.dtat_data ? a.dtat_data : b.dtat_data;
	m.dtat_class = a.dtat_class < b.dtat_class ? a.dtat_class :
	    b.dtat_class;
	return m;
}

static int
dt_probe_isglob(const char *s)
{
	return s[0] == '\0' || strpbrk(s, "*?[") != NULL;
}

/* "pid1234": 1234; else 0 */
static pid_t
dt_probe_pid(const char *prov)
{
	const char *p;

	if (strncmp(prov, "pid", 3) != 0 || prov[3] == '\0')
		return 0;
	for (p = prov + 3; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			return 0;
	}
	return (pid_t)atol(prov + 3);
}

/*
 * The proc provider's argument types, as illumos declares them: a
 * psinfo_t or lwpsinfo_t of another process or thread is procfs.d's
 * translation of the task the argument names (the daemon gives it), a
 * string is one the daemon holds; "" is an argument left untyped, NULL
 * one the probe has not.
 */
static const struct {
	const char	*pa_name;
	const char	*pa_types[3];
} dt_probe_proc_args[] = {
	{ "create", { "psinfo_t *" } },
	{ "start", { NULL } },
	{ "lwp-start", { NULL } },
	{ "exec-success", { NULL } },
	{ "lwp-exit", { NULL } },
	{ "exec", { "string" } },
	{ "exec-failure", { "int" } },
	{ "exit", { "int" } },
	{ "lwp-create", { "lwpsinfo_t *", "psinfo_t *" } },
	{ "signal-send", { "lwpsinfo_t *", "psinfo_t *", "int" } },
	{ "signal-discard", { "lwpsinfo_t *", "psinfo_t *", "int" } },
	{ "signal-handle", { "int", "", "" } },
	{ "signal-clear", { "int", "" } },
	{ "fault", { "int", "" } },
};

/*
 * The type of args[argno] of the proc probes a name (a glob) matches,
 * with *typep (NULL at first) the one found so far: 0 when they agree
 * on it (*typep set; "" untyped), -1 when one has none or another.
 */
int
dt_probe_proc_globtype(const char *glob, int argno, const char **typep)
{
	const char *t;
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(dt_probe_proc_args) /
	    sizeof(dt_probe_proc_args[0]); i++) {
		if (fnmatch(glob[0] == '\0' ? "*" : glob,
		    dt_probe_proc_args[i].pa_name, 0) != 0)
			continue;
		n++;
		t = argno < 3 ? dt_probe_proc_args[i].pa_types[argno] : NULL;
		if (t == NULL || (*typep != NULL && strcmp(*typep, t) != 0))
			return -1;
		*typep = t;
	}
	return n > 0 ? 0 : -1;
}

/* The type of args[argno] of proc probe name: NULL none, "" untyped */
const char *
dt_probe_proc_argtype(const char *name, int argno)
{
	size_t i;

	for (i = 0; i < sizeof(dt_probe_proc_args) /
	    sizeof(dt_probe_proc_args[0]); i++) {
		if (strcmp(dt_probe_proc_args[i].pa_name, name) == 0)
			return argno < 3 ?
			    dt_probe_proc_args[i].pa_types[argno] : NULL;
	}
	return NULL;
}

int
dtrace_probe_info(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp,
    dtrace_probeinfo_t *pip)
{
	const dtrace_attribute_t *pa = NULL;
	pid_t pid = dt_probe_pid(pdp->dtpd_provider);
	size_t i;
	int n;

	memset(pip, 0, sizeof(*pip));
	for (i = 0; i < sizeof(dt_probe_pattr) / sizeof(dt_probe_pattr[0]);
	    i++) {
		if (strcmp(pdp->dtpd_provider,
		    dt_probe_pattr[i].pa_prov) == 0 || (pid != 0 &&
		    strcmp(dt_probe_pattr[i].pa_prov, "pid") == 0))
			pa = dt_probe_pattr[i].pa_attr;
	}
	if (pa == NULL || dt_probe_isglob(pdp->dtpd_provider)) {
		pip->dtp_attr = pip->dtp_arga = dt_probe_unknown;
		return 0;
	}
	pip->dtp_attr = pa[0];
	if (!dt_probe_isglob(pdp->dtpd_mod))
		pip->dtp_attr = dt_probe_attrmin(pip->dtp_attr, pa[1]);
	if (!dt_probe_isglob(pdp->dtpd_func))
		pip->dtp_attr = dt_probe_attrmin(pip->dtp_attr, pa[2]);
	if (!dt_probe_isglob(pdp->dtpd_name))
		pip->dtp_attr = dt_probe_attrmin(pip->dtp_attr, pa[3]);
	pip->dtp_arga = pa[4];
	if (strcmp(pdp->dtpd_provider, "proc") == 0) {
		const char *t;

		for (n = 0; (t = dt_probe_proc_argtype(pdp->dtpd_name, n)) !=
		    NULL && *t != '\0'; n++)
			snprintf(pip->dtp_argv[n], sizeof(pip->dtp_argv[n]),
			    "%s", t);
		pip->dtp_argc = n;
	}
	if (pid != 0 && strcmp(pdp->dtpd_name, "entry") == 0 &&
	    (n = dt_usym_argtypes(dtp, pid, pdp->dtpd_mod, pdp->dtpd_func,
	    pip->dtp_argv, DTRACE_PROBEINFO_MAXARGS)) > 0)
		pip->dtp_argc = n;
	return 0;
}

static int
dt_probe_first(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pd, void *arg)
{
	memcpy(arg, pd->dtpd_provider, sizeof(pd->dtpd_provider));
	return 1;
}

/*
 * The attributes of the provider, module, function, name and arguments
 * of the provider of a probe the description matches (illumos's
 * representative probe of a clause's context); when it matches none or
 * names a provider with no attributes of its own, Unstable all through.
 * -1 when it matched none.
 */
int
dt_probe_provattr(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp,
    dtrace_attribute_t *pa)
{
	char prov[sizeof(pdp->dtpd_provider)];
	const char *name = pdp->dtpd_provider;
	size_t i;
	int rv = 0;

	for (i = 0; i < 5; i++)
		pa[i] = dt_probe_unknown;
	if (dt_probe_isglob(name)) {
		prov[0] = '\0';
		rv = dtrace_probe_iter(dtp, pdp, dt_probe_first, prov) == -1 ?
		    -1 : 0;
		if (rv != 0 || prov[0] == '\0')
			return -1;
		name = prov;
	}
	for (i = 0; i < sizeof(dt_probe_pattr) / sizeof(dt_probe_pattr[0]);
	    i++) {
		if (strcmp(name, dt_probe_pattr[i].pa_prov) == 0 ||
		    (dt_probe_pid(name) != 0 &&
		    strcmp(dt_probe_pattr[i].pa_prov, "pid") == 0))
			memcpy(pa, dt_probe_pattr[i].pa_attr,
			    sizeof(dt_probe_pattr[i].pa_attr));
	}
	return rv;
}

/* A probe's id and names, as PROGRAM_OK and LIST_OK carry them. */
void
dt_probe_decode(dt_msg_t *m, dtrace_probedesc_t *pd)
{
	memset(pd, 0, sizeof(*pd));
	pd->dtpd_id = dt_msg_get_u32(m);
	dt_msg_get_strbuf(m, pd->dtpd_provider, sizeof(pd->dtpd_provider));
	dt_msg_get_strbuf(m, pd->dtpd_mod, sizeof(pd->dtpd_mod));
	dt_msg_get_strbuf(m, pd->dtpd_func, sizeof(pd->dtpd_func));
	dt_msg_get_strbuf(m, pd->dtpd_name, sizeof(pd->dtpd_name));
	pd->dtpd_nargs = (int32_t)dt_msg_get_u32(m);
}

int
dtrace_probe_iter(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp,
    int (*func)(dtrace_hdl_t *, const dtrace_probedesc_t *, void *),
    void *arg)
{
	uint32_t n, i, matched = 0;
	dt_msg_t req, rep;
	int rv = 0;

	if (pdp != NULL && dt_proc_named(dtp, pdp->dtpd_provider) != 0)
		return -1;
	dt_msg_init(&req, DT_MSG_LIST);
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_provider : "");
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_mod : "");
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_func : "");
	dt_msg_put_str(&req, pdp != NULL ? pdp->dtpd_name : "");
	if (dt_conn_request(dtp, &req, DT_MSG_LIST_OK, &rep) != 0)
		return -1;
	n = dt_msg_get_u32(&rep);
	for (i = 0; i < n && rep.dm_err == 0; i++) {
		dtrace_probedesc_t pd;

		dt_probe_decode(&rep, &pd);
		if (rep.dm_err)
			break;
		if (pdp != NULL && pdp->dtpd_id != 0 &&
		    pdp->dtpd_id != pd.dtpd_id)
			continue;
		matched++;
		if (rv == 0 && (rv = func(dtp, &pd, arg)) != 0)
			break;
	}
	if (rep.dm_err) {
		dt_msg_free(&rep);
		return dt_conn_error(dtp, EDT_PROTO,
		    "malformed LIST_OK from dtraced");
	}
	dt_msg_free(&rep);
	if (matched == 0)
		return dt_conn_error(dtp, EDT_NOPROBE, "%s",
		    "No probe matches description");
	return 0;
}

/* -lv under oformat=json: one attribute set, in FreeBSD's words */
static void
dt_probe_json_attr(dt_json_t *j, const char *key,
    const dtrace_attribute_t *a)
{
	dt_json_key(j, key);
	dt_json_object_begin(j);
	dt_json_kstring(j, "identifier-names",
	    dtrace_stability_name(a->dtat_name));
	dt_json_kstring(j, "data-semantics",
	    dtrace_stability_name(a->dtat_data));
	dt_json_kstring(j, "dependency-class",
	    dtrace_class_name(a->dtat_class));
	dt_json_object_end(j);
}

/*
 * dtrace -l under oformat=json: a probe as one line,
 * {"type":"probe-description","id":..,"provider":..,"module":..,
 * "function":..,"name":..}; with its information (-v, pip not NULL)
 * also "probe-description-attributes", "argument-attributes" and
 * "argument-types", an array of {"type":..}, as FreeBSD names them.
 */
int
dtrace_probe_json(dtrace_hdl_t *dtp, FILE *fp, const dtrace_probedesc_t *pdp,
    const dtrace_probeinfo_t *pip)
{
	dt_json_t j;
	int i;

	dt_json_beginline(&j, fp, "probe-description");
	dt_json_kuint(&j, "id", pdp->dtpd_id);
	dt_json_kstring(&j, "provider", pdp->dtpd_provider);
	dt_json_kstring(&j, "module", pdp->dtpd_mod);
	dt_json_kstring(&j, "function", pdp->dtpd_func);
	dt_json_kstring(&j, "name", pdp->dtpd_name);
	if (pip != NULL) {
		dt_probe_json_attr(&j, "probe-description-attributes",
		    &pip->dtp_attr);
		dt_probe_json_attr(&j, "argument-attributes",
		    &pip->dtp_arga);
		dt_json_key(&j, "argument-types");
		dt_json_array_begin(&j);
		for (i = 0; i < pip->dtp_argc; i++) {
			dt_json_object_begin(&j);
			dt_json_kstring(&j, "type", pip->dtp_argv[i]);
			dt_json_object_end(&j);
		}
		dt_json_array_end(&j);
	}
	if (dt_json_endline(&j) != 0)
		return dt_set_errno(dtp, errno);
	return 0;
}
