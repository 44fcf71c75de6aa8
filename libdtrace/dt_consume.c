/*
 * dt_consume.c: walking the records of one CPU's buffer snapshot and
 * printing them as illumos dtrace(1) does.
 *
 * Buffer data comes from the daemon and is checked like any other input:
 * an unknown EPID or a record running past the end is an error, never a
 * wild read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"


/*
 * Bytes as illumos prints them.  Printable bytes (isprint, isspace, \a
 * or \b) up to a NUL that only more NULs follow are a string; so are
 * printable bytes to the end with no NUL.  Anything else, and everything
 * under forceraw (tracemem) or -x rawbytes, is a hex and ASCII table.
 * As in illumos, an empty string (a leading NUL) is a table of zeros.
 */
int
dt_consume_bytes(dtrace_hdl_t *dtp, FILE *fp, const unsigned char *c,
    size_t n, int quiet, int forceraw)
{
	const int margin = 5;
	size_t i, j;

	if (n == 0)
		return 0;
	if (forceraw || dtp->dt_options[DTRACEOPT_RAWBYTES] != DTRACEOPT_UNSET)
		goto raw;
	for (i = 0; i < n; i++) {
		if (isprint(c[i]) || isspace(c[i]) || c[i] == '\a' ||
		    c[i] == '\b')
			continue;
		if (c[i] == '\0' && i > 0) {
			for (j = i + 1; j < n && c[j] == '\0'; j++)
				continue;
			if (j != n)
				break;
			return fprintf(fp, quiet ? "%s" : "  %-33s",
			    (const char *)c) < 0 ? -1 : 0;
		}
		break;
	}
	if (i == n)
		return fprintf(fp, quiet ? "%.*s" : "  %-33.*s", (int)n,
		    (const char *)c) < 0 ? -1 : 0;
raw:
	fprintf(fp, "\n%*s      ", margin, "");
	for (i = 0; i < 16; i++)
		fprintf(fp, "  %c", "0123456789abcdef"[i]);
	fprintf(fp, "  0123456789abcdef\n");
	for (i = 0; i < n; i += 16) {
		fprintf(fp, "%*s%5zx:", margin, "", i);
		for (j = i; j < i + 16 && j < n; j++)
			fprintf(fp, " %02x", c[j]);
		for (; j % 16 != 0; j++)
			fprintf(fp, "   ");
		fprintf(fp, "  ");
		for (j = i; j < i + 16 && j < n; j++)
			fputc(c[j] < ' ' || c[j] > '~' ? '.' : c[j], fp);
		if (fprintf(fp, "\n") < 0)
			return -1;
	}
	return 0;
}

/*
 * system(): format the command, then run it with the output so far
 * flushed, so that what it prints comes in order with the trace data.
 */
static int
dt_consume_system(dtrace_hdl_t *dtp, FILE *fp, const char *fmt,
    const dtrace_recdesc_t *rp, int nargs, const char *data)
{
	FILE *cf;
	char *cmd = NULL;
	size_t len = 0;
	int rv;

	if ((cf = open_memstream(&cmd, &len)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	rv = dt_printf_format(dtp, cf, fmt, rp, nargs, data);
	if (fclose(cf) != 0 && rv == 0)
		rv = dt_set_errno(dtp, EDT_NOMEM);
	if (rv == 0) {
		(void)fflush(fp);
		(void)fflush(stdout);
		(void)system(cmd);
	}
	free(cmd);
	return rv;
}

/*
 * freopen(): send the output to the file the format names, appended
 * to, as illumos's does: its descriptor is put under the output stream
 * (dup2), the original kept; freopen("") brings the original back.  A
 * file that cannot be opened is reported and the output stays.
 */
static int
dt_consume_freopen(dtrace_hdl_t *dtp, FILE *fp, const dt_epid_t *ep,
    const char *fmt, const dtrace_recdesc_t *rp, int nargs, const char *data)
{
	const dtrace_probedesc_t *pd = &ep->de_pdesc;
	FILE *nf;
	char *path = NULL;
	size_t len = 0;
	int rv, fd;

	if ((nf = open_memstream(&path, &len)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	rv = dt_printf_format(dtp, nf, fmt, rp, nargs, data);
	if (fclose(nf) != 0 && rv == 0)
		rv = dt_set_errno(dtp, EDT_NOMEM);
	if (rv != 0) {
		free(path);
		return rv;
	}
	(void)fflush(fp);
	if (path[0] == '\0') {
		if (dtp->dt_freopen_fd != -1) {
			(void)dup2(dtp->dt_freopen_fd, fileno(fp));
			(void)close(dtp->dt_freopen_fd);
			dtp->dt_freopen_fd = -1;
		}
		free(path);
		return 0;
	}
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0666)) == -1) {
		fprintf(stderr, "dtrace: error on enabled probe ID %u (ID %u: "
		    "%s:%s:%s:%s): couldn't freopen() \"%s\": %s\n",
		    ep->de_edesc.dtepd_epid, pd->dtpd_id, pd->dtpd_provider,
		    pd->dtpd_mod, pd->dtpd_func, pd->dtpd_name, path,
		    strerror(errno));
		free(path);
		return 0;
	}
	if (dtp->dt_freopen_fd == -1)
		dtp->dt_freopen_fd = fcntl(fileno(fp), F_DUPFD_CLOEXEC, 0);
	(void)dup2(fd, fileno(fp));
	(void)close(fd);
	free(path);
	return 0;
}

/* One trace() datum. */
int
dt_consume_datum(dtrace_hdl_t *dtp, FILE *fp, const dtrace_recdesc_t *rp,
    const char *addr, int quiet)
{
	int rv;

	if (rp->dtrd_type == DTRACE_REC_STRING ||
	    rp->dtrd_type == DTRACE_REC_BYTES) {
		/* the record bounds a string, which then needs no NUL */
		rv = dt_consume_bytes(dtp, fp, (const unsigned char *)addr,
		    rp->dtrd_size, quiet, 0);
	} else if (rp->dtrd_type == DTRACE_REC_FLOAT &&
	    (rp->dtrd_size == sizeof(float) || rp->dtrd_size == sizeof(double))) {
		/* D has no floating-point arithmetic, but prints it: %f */
		double d;

		if (rp->dtrd_size == sizeof(float)) {
			float f;

			memcpy(&f, addr, sizeof(f));
			d = f;
		} else
			memcpy(&d, addr, sizeof(d));
		rv = fprintf(fp, quiet ? "%f" : " %16f", d);
	} else {
		/* illumos: by size; 8 and 4 bytes signed, 2 and 1 unsigned */
		switch (rp->dtrd_size) {
		case 8: {
			int64_t v;

			memcpy(&v, addr, 8);
			rv = fprintf(fp, quiet ? "%lld" : " %16lld",
			    (long long)v);
			break;
		}
		case 4: {
			int32_t v;

			memcpy(&v, addr, 4);
			rv = fprintf(fp, quiet ? "%d" : " %8d", v);
			break;
		}
		case 2: {
			uint16_t v;

			memcpy(&v, addr, 2);
			rv = fprintf(fp, quiet ? "%u" : " %5u", v);
			break;
		}
		case 1:
			rv = fprintf(fp, quiet ? "%u" : " %3u",
			    *(const unsigned char *)addr);
			break;
		default:
			rv = dt_consume_bytes(dtp, fp,
			    (const unsigned char *)addr, rp->dtrd_size, quiet,
			    0);
			break;
		}
	}
	return rv < 0 ? dt_set_errno(dtp, errno) : 0;
}

/*
 * A drop report as a JSON line on the output stream, so that a program
 * reading it sees drops in order with the records they concern.  where
 * ("cpu", "thread" or NULL) names what unit counts.  msg is dtrace's
 * text without the "dtrace: " prefix.
 */
void
dt_consume_json_drop(dtrace_hdl_t *dtp, const char *kind, const char *tag,
    const char *where, int64_t unit, uint64_t n, const char *msg)
{
	dt_json_t j;

	dt_json_beginline(&j, dtp->dt_ofp != NULL ? dtp->dt_ofp : stdout,
	    "drop");
	dt_json_kstring(&j, "kind", kind);
	dt_json_kstring(&j, "tag", tag);
	if (where != NULL)
		dt_json_kint(&j, where, unit);
	dt_json_kuint(&j, "count", n);
	dt_json_kstring(&j, "message", msg);
	(void)dt_json_endline(&j);
}

void
dt_consume_drops(dtrace_hdl_t *dtp, int cpu, uint64_t n, int agg)
{
	uint64_t *total = agg ? dtp->dt_aggdrops : dtp->dt_drops;

	if (n == 0)
		return;
	if (total != NULL && cpu >= 0 && (uint32_t)cpu < dtp->dt_ncpu)
		total[cpu] += n;
	if (DT_JSON(dtp)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%llu %sdrop%s on CPU %d",
		    (unsigned long long)n, agg ? "aggregation " : "",
		    n > 1 ? "s" : "", cpu);
		dt_consume_json_drop(dtp, agg ? "aggregation" : "principal",
		    agg ? "DTRACEDROP_AGGREGATION" : "DTRACEDROP_PRINCIPAL",
		    "cpu", cpu, n, msg);
		return;
	}
	fprintf(stderr, "dtrace: %s%llu %sdrop%s on CPU %d\n",
	    !(dtp->dt_copts & DT_COPT_DROPTAGS) ? "" : agg ?
	    "[DTRACEDROP_AGGREGATION] " : "[DTRACEDROP_PRINCIPAL] ",
	    (unsigned long long)n, agg ? "aggregation " : "",
	    n > 1 ? "s" : "", cpu);
}

/*
 * Drops in a bufscope=thread buffer (ours: illumos has no such scope).
 * Thread 0 is the buffer shared by threads past the daemon's limit.
 */
void
dt_consume_thrdrops(dtrace_hdl_t *dtp, int tid, uint64_t n)
{
	if (n == 0)
		return;
	if (DT_JSON(dtp)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%llu drop%s on thread %d",
		    (unsigned long long)n, n > 1 ? "s" : "", tid);
		dt_consume_json_drop(dtp, "principal", "DTRACEDROP_PRINCIPAL",
		    "thread", tid, n, msg);
		return;
	}
	fprintf(stderr, "dtrace: %s%llu drop%s on thread %d\n",
	    !(dtp->dt_copts & DT_COPT_DROPTAGS) ? "" :
	    "[DTRACEDROP_PRINCIPAL] ", (unsigned long long)n,
	    n > 1 ? "s" : "", tid);
}

static uint64_t
dt_consume_u64(const dtrace_recdesc_t *rp, const char *data)
{
	uint64_t v = 0;

	memcpy(&v, data + rp->dtrd_offset, rp->dtrd_size < 8 ?
	    rp->dtrd_size : 8);
	return v;
}

/* A probe's description as JSON members. */
static void
dt_consume_json_pdesc(dt_json_t *j, const dtrace_probedesc_t *pd)
{
	dt_json_key(j, "provider");
	dt_json_string(j, pd->dtpd_provider, sizeof(pd->dtpd_provider));
	dt_json_key(j, "module");
	dt_json_string(j, pd->dtpd_mod, sizeof(pd->dtpd_mod));
	dt_json_key(j, "function");
	dt_json_string(j, pd->dtpd_func, sizeof(pd->dtpd_func));
	dt_json_key(j, "name");
	dt_json_string(j, pd->dtpd_name, sizeof(pd->dtpd_name));
}

/*
 * A record of the library's ERROR reporter: arg1..arg5 are the failing
 * EPID, the action (0: predicate), the DIF offset, the fault and the
 * offending address.
 */
static int
dt_consume_error(dtrace_hdl_t *dtp, FILE *fp, const dt_epid_t *ep,
    const char *data)
{
	const dtrace_recdesc_t *r = ep->de_edesc.dtepd_rec;
	const dtrace_probedesc_t *pd;
	const dt_epid_t *fep;
	char where[32], offinfo[48], details[48];
	uint32_t epid;
	int action, offset, fault;
	uint64_t addr;

	if (ep->de_edesc.dtepd_nrecs < 5)
		return dt_set_errno(dtp, EDT_BADERROR);
	epid = (uint32_t)dt_consume_u64(&r[0], data);
	action = (int)dt_consume_u64(&r[1], data);
	offset = (int)dt_consume_u64(&r[2], data);
	fault = (int)dt_consume_u64(&r[3], data);
	addr = dt_consume_u64(&r[4], data);
	if ((fep = dt_program_epid(dtp, epid)) == NULL)
		return dt_set_errno(dtp, EDT_BADERROR);
	pd = &fep->de_pdesc;

	if (action == 0)
		snprintf(where, sizeof(where), "predicate");
	else
		snprintf(where, sizeof(where), "action #%d", action);
	offinfo[0] = '\0';
	if (offset != -1)
		snprintf(offinfo, sizeof(offinfo), " at DIF offset %d", offset);
	details[0] = '\0';
	switch (fault) {
	case DIF_FLT_BADADDR:
	case DIF_FLT_BADALIGN:
	case DIF_FLT_BADSTACK:
	case DIF_FLT_KPRIV:
	case DIF_FLT_UPRIV:
		snprintf(details, sizeof(details), " (0x%llx)",
		    (unsigned long long)addr);
		break;
	}
	dtp->dt_errors++;
	if (DT_JSON(dtp)) {
		char msg[1024];
		dt_json_t j;

		snprintf(msg, sizeof(msg), "error on enabled probe ID %u (ID "
		    "%u: %s:%s:%s:%s): %s%s in %s%s", epid, pd->dtpd_id,
		    pd->dtpd_provider, pd->dtpd_mod, pd->dtpd_func,
		    pd->dtpd_name, dif_fault_name(fault), details, where,
		    offinfo);
		dt_json_beginline(&j, fp, "error");
		dt_json_kuint(&j, "epid", epid);
		dt_json_kuint(&j, "id", pd->dtpd_id);
		dt_consume_json_pdesc(&j, pd);
		dt_json_kstring(&j, "fault", dif_fault_name(fault));
		dt_json_kint(&j, "action", action);
		dt_json_kint(&j, "offset", offset);
		dt_json_kuint(&j, "address", addr);
		dt_json_kstring(&j, "message", msg);
		(void)dt_json_endline(&j);
		return 0;
	}
	fprintf(stderr, "dtrace: error on enabled probe ID %u (ID %u: "
	    "%s:%s:%s:%s): %s%s in %s%s\n", epid, pd->dtpd_id,
	    pd->dtpd_provider, pd->dtpd_mod, pd->dtpd_func, pd->dtpd_name,
	    dif_fault_name(fault), details, where, offinfo);
	return 0;
}

/*
 * setopt(): set a consumer option while tracing, as illumos does; a
 * refusal is reported like illumos's library errors and tracing goes
 * on.  The strings are bounded by their records.
 */
static int
dt_consume_setopt(dtrace_hdl_t *dtp, const dt_epid_t *ep, const char *opt,
    uint32_t optsize, const char *val, uint32_t valsize)
{
	const dtrace_probedesc_t *pd = &ep->de_pdesc;
	char name[256], value[256];

	snprintf(name, sizeof(name), "%.*s", (int)strnlen(opt, optsize), opt);
	snprintf(value, sizeof(value), "%.*s", val == NULL ? 0 :
	    (int)strnlen(val, valsize), val == NULL ? "" : val);
	if (dtrace_setopt(dtp, name, val == NULL || valsize == 0 ? NULL :
	    value) == 0) {
		dtrace_optval_t nv;

		if (dtp->dt_setopthdlr != NULL &&
		    dtrace_getopt(dtp, name, &nv) == 0)
			dtp->dt_setopthdlr(name, nv, dtp->dt_setoptarg);
		return 0;
	}
	fprintf(stderr, "dtrace: error on enabled probe ID %u (ID %u: "
	    "%s:%s:%s:%s): couldn't set option \"%s\" to \"%s\": %s\n",
	    ep->de_edesc.dtepd_epid, pd->dtpd_id, pd->dtpd_provider,
	    pd->dtpd_mod, pd->dtpd_func, pd->dtpd_name, name, value,
	    dtrace_errmsg(dtp, dtrace_errno(dtp)));
	return 0;
}

int
dtrace_handle_setopt(dtrace_hdl_t *dtp, dtrace_handle_setopt_f *fn, void *arg)
{
	dtp->dt_setopthdlr = fn;
	dtp->dt_setoptarg = arg;
	return 0;
}

static int
dt_consume_rval(dtrace_hdl_t *dtp, int rv)
{
	if (rv == DTRACE_CONSUME_ABORT)
		return dt_set_errno(dtp, EDT_DIRABORT);
	return dt_set_errno(dtp, EDT_BADRVAL);
}

/*
 * -F flowindent, as illumos: an "entry" probe prints " -> func" and
 * indents what follows by 2, a "return" probe undoes that and prints
 * " <- func", any other probe "| func:name" at the current depth.
 * Several clauses on one probe are one call: the first of an entry's
 * records indents, and the last of a return's (the next record is
 * another probe's) unindents; the others print "| func:name".
 */
static void
dt_consume_flow(dtrace_hdl_t *dtp, const dt_epid_t *ep,
    dtrace_probedata_t *pd)
{
	const char *name = ep->de_pdesc.dtpd_name;
	uint32_t epid = ep->de_edesc.dtepd_epid, next = dtp->dt_flownext;
	const dt_epid_t *nep;
	int flow = DTRACEFLOW_NONE;

	if (strcmp(name, "entry") == 0)
		flow = DTRACEFLOW_ENTRY;
	else if (strcmp(name, "return") == 0)
		flow = DTRACEFLOW_RETURN;
	if (flow == DTRACEFLOW_ENTRY &&
	    dtp->dt_flowepid != DTRACE_EPIDNONE && dtp->dt_flowepid != epid &&
	    dtp->dt_flowprobe == ep->de_pdesc.dtpd_id)
		flow = DTRACEFLOW_NONE;
	if (flow == DTRACEFLOW_RETURN && next != DTRACE_EPIDNONE &&
	    next != epid && (nep = dt_program_epid(dtp, next)) != NULL &&
	    nep->de_pdesc.dtpd_id == ep->de_pdesc.dtpd_id)
		flow = DTRACEFLOW_NONE;
	if (flow == DTRACEFLOW_RETURN && dtp->dt_indent >= 2)
		dtp->dt_indent -= 2;
	pd->dtpda_flow = flow;
	pd->dtpda_indent = dtp->dt_indent;
	pd->dtpda_prefix = flow == DTRACEFLOW_ENTRY ? " -> " :
	    flow == DTRACEFLOW_RETURN ? " <- " : "| ";
	if (flow == DTRACEFLOW_ENTRY)
		dtp->dt_indent += 2;
	dtp->dt_flowepid = epid;
	dtp->dt_flowprobe = ep->de_pdesc.dtpd_id;
}

/* One trace() datum as a JSON value, by size as the text is printed. */
static void
dt_consume_json_datum(dt_json_t *j, const dtrace_recdesc_t *rp,
    const char *addr)
{
	if (rp->dtrd_type == DTRACE_REC_STRING) {
		dt_json_string(j, addr, rp->dtrd_size);
	} else if (rp->dtrd_type == DTRACE_REC_BYTES) {
		dt_json_bytes(j, (const unsigned char *)addr, rp->dtrd_size);
	} else if (rp->dtrd_type == DTRACE_REC_FLOAT && rp->dtrd_size == 8) {
		double d;

		memcpy(&d, addr, 8);
		dt_json_double(j, d);
	} else if (rp->dtrd_type == DTRACE_REC_FLOAT && rp->dtrd_size == 4) {
		float f;

		memcpy(&f, addr, 4);
		dt_json_double(j, (double)f);
	} else if (rp->dtrd_size == 8) {
		int64_t v;

		memcpy(&v, addr, 8);
		dt_json_int(j, v);
	} else if (rp->dtrd_size == 4) {
		int32_t v;

		memcpy(&v, addr, 4);
		dt_json_int(j, v);
	} else if (rp->dtrd_size == 2) {
		uint16_t v;

		memcpy(&v, addr, 2);
		dt_json_uint(j, v);
	} else if (rp->dtrd_size == 1) {
		dt_json_uint(j, *(const unsigned char *)addr);
	} else {
		dt_json_bytes(j, (const unsigned char *)addr, rp->dtrd_size);
	}
}

/*
 * printf() output as text for a JSON record: formatted by the same code
 * into memory.
 */
static int
dt_consume_json_printf(dtrace_hdl_t *dtp, dt_json_t *j, const char *fmt,
    const dtrace_recdesc_t *rp, int nargs, const char *data)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;
	int rv;

	if ((mf = open_memstream(&buf, &len)) == NULL)
		return dt_set_errno(dtp, EDT_NOMEM);
	rv = dt_printf_format(dtp, mf, fmt, rp, nargs, data);
	if (fclose(mf) != 0 && rv == 0)
		rv = dt_set_errno(dtp, EDT_NOMEM);
	if (rv == 0) {
		dt_json_object_begin(j);
		dt_json_kstring(j, "action", "printf");
		dt_json_key(j, "value");
		dt_json_string(j, buf, len);
		dt_json_object_end(j);
	}
	free(buf);
	return rv;
}

/*
 * Print the JSON line of a probe firing: its description, then the
 * records gathered in rbuf.
 */
static int
dt_consume_json_probe(dtrace_hdl_t *dtp, FILE *fp, const dt_epid_t *ep,
    int cpu, uint64_t ts, const char *rbuf, size_t rlen)
{
	dt_json_t j;

	dt_json_beginline(&j, fp, "probe");
	dt_json_kuint(&j, "timestamp", ts);
	dt_json_kint(&j, "cpu", cpu);
	dt_json_kuint(&j, "epid", ep->de_edesc.dtepd_epid);
	dt_json_kuint(&j, "id", ep->de_pdesc.dtpd_id);
	dt_consume_json_pdesc(&j, &ep->de_pdesc);
	dt_json_key(&j, "records");
	dt_json_array_begin(&j);
	dt_json_values(&j, rbuf, rlen);
	dt_json_array_end(&j);
	if (dt_json_endline(&j) != 0)
		return dt_set_errno(dtp, errno);
	return 0;
}

/*
 * Record i of a firing as an object of its JSON records array: trace()
 * and tracemem() values, printf() text, printa() data.  Actions that
 * show nothing add nothing.
 */
#define DT_CONSUME_MAXPRINTA	64	/* aggregations one printa() names */

/*
 * A printa() record group: record i and the nargs - 1 that follow are
 * PRINTA records, one per aggregation; collect their aggregation ids.
 * Data from the daemon is checked like everything else.
 */
static int
dt_consume_printa_ids(dtrace_hdl_t *dtp, const dtrace_eprobedesc_t *ed,
    const dtp_prog_t *pp, uint32_t i, uint32_t nargs, uint32_t *ids)
{
	const dtrace_recdesc_t *rp = &ed->dtepd_rec[i];
	uint32_t k;

	if (nargs == 0 || nargs > DT_CONSUME_MAXPRINTA ||
	    nargs - 1 > ed->dtepd_nrecs - i - 1 ||
	    rp->dtrd_format > pp->dp_nfmt)
		return dt_set_errno(dtp, EDT_BADAGGVAR);
	for (k = 0; k < nargs; k++) {
		if (rp[k].dtrd_action != DTRACEACT_PRINTA)
			return dt_set_errno(dtp, EDT_BADAGGVAR);
		ids[k] = (uint32_t)rp[k].dtrd_arg;
	}
	return 0;
}

static int
dt_consume_json_rec(dtrace_hdl_t *dtp, dt_json_t *j, const dt_epid_t *ep,
    uint32_t i, const char *data, uint64_t *memsizep)
{
	const dtrace_eprobedesc_t *ed = &ep->de_edesc;
	const dtrace_recdesc_t *rp = &ed->dtepd_rec[i];
	const dtp_prog_t *pp = &ep->de_prog->dp_prog;
	uint32_t nargs = ep->de_nargs[i];
	uint32_t more = nargs > 0 ? nargs - 1 : 0;
	const char *addr = data + rp->dtrd_offset;
	uint64_t memsize;

	switch (rp->dtrd_action) {
	case DTRACEACT_PRINTA: {
		uint32_t ids[DT_CONSUME_MAXPRINTA];

		if (dt_consume_printa_ids(dtp, ed, pp, i, nargs, ids) != 0)
			return -1;
		if (dt_aggregate_printa_json(dtp, j, rp->dtrd_format == 0 ?
		    NULL : pp->dp_fmt[rp->dtrd_format - 1], ids,
		    (int)nargs) != 0)
			return -1;
		break;
	}
	case DTRACEACT_PRINTF:
		if (rp->dtrd_format == 0 || rp->dtrd_format > pp->dp_nfmt ||
		    more > ed->dtepd_nrecs - i - 1)
			return dt_set_errno(dtp, EDT_BADCONV);
		if (dt_consume_json_printf(dtp, j,
		    pp->dp_fmt[rp->dtrd_format - 1], rp, (int)nargs,
		    data) != 0)
			return -1;
		break;
	case DTRACEACT_EXIT: {
		int32_t status = 0;

		memcpy(&status, addr, rp->dtrd_size < 4 ? rp->dtrd_size : 4);
		dt_json_object_begin(j);
		dt_json_kstring(j, "action", "exit");
		dt_json_kint(j, "value", status);
		dt_json_object_end(j);
		break;
	}
	case DTRACEACT_STOP:
	case DTRACEACT_RAISE:
	case DTRACEACT_CHILL:
	case DTRACEACT_SPECULATE:
	case DTRACEACT_COMMIT:
	case DTRACEACT_DISCARD:
		return 0;
	case DTRACEACT_SYSTEM:
		/* the command runs; its output is its own, not JSON */
		if (rp->dtrd_format == 0 || rp->dtrd_format > pp->dp_nfmt ||
		    more > ed->dtepd_nrecs - i - 1)
			return dt_set_errno(dtp, EDT_BADCONV);
		return dt_consume_system(dtp, stdout,
		    pp->dp_fmt[rp->dtrd_format - 1], rp, (int)nargs, data);
	case DTRACEACT_FREOPEN:
		/* JSON lines go where freopen() sends them, as text does */
		if (rp->dtrd_format == 0 || rp->dtrd_format > pp->dp_nfmt ||
		    more > ed->dtepd_nrecs - i - 1)
			return dt_set_errno(dtp, EDT_BADCONV);
		return dt_consume_freopen(dtp, j->dj_fp, ep,
		    pp->dp_fmt[rp->dtrd_format - 1], rp, (int)nargs, data);
	case DTRACEACT_TRACEMEM_DYNSIZE:
		*memsizep = dt_consume_u64(rp, data);
		return 0;
	case DTRACEACT_TRACEMEM:
		memsize = *memsizep;
		if (memsize == 0 || memsize > rp->dtrd_size)
			memsize = rp->dtrd_size;
		*memsizep = 0;
		dt_json_object_begin(j);
		dt_json_kstring(j, "action", "tracemem");
		dt_json_key(j, "value");
		dt_json_bytes(j, (const unsigned char *)addr, (size_t)memsize);
		dt_json_object_end(j);
		break;
	case DTRACEACT_USTACK:
		dt_json_object_begin(j);
		dt_json_kstring(j, "action", "ustack");
		dt_json_key(j, "value");
		dt_usym_json_stack(dtp, j, addr,
		    DTRACE_USTACK_NFRAMES(rp->dtrd_arg), 0);
		dt_json_object_end(j);
		break;
	case DTRACEACT_STACK:
		dt_json_object_begin(j);
		dt_json_kstring(j, "action", "stack");
		dt_json_key(j, "value");
		dt_usym_json_stack(dtp, j, addr, (uint32_t)rp->dtrd_arg,
		    DT_USYM_KERNEL);
		dt_json_object_end(j);
		break;
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
	case DTRACEACT_SYM:
	case DTRACEACT_MOD: {
		char name[1024];

		dt_usym_recname(dtp, addr, dt_usym_acthow(rp->dtrd_action),
		    name, sizeof(name));
		dt_json_object_begin(j);
		dt_json_kstring(j, "action",
		    rp->dtrd_action == DTRACEACT_USYM ? "usym" :
		    rp->dtrd_action == DTRACEACT_UMOD ? "umod" :
		    rp->dtrd_action == DTRACEACT_SYM ? "sym" :
		    rp->dtrd_action == DTRACEACT_MOD ? "mod" : "uaddr");
		dt_json_kstring(j, "value", name);
		dt_json_object_end(j);
		break;
	}
	case DTRACEACT_DIFEXPR:
		if (rp->dtrd_size == 0)
			return 0;
		dt_json_object_begin(j);
		dt_json_kstring(j, "action", "trace");
		dt_json_key(j, "value");
		dt_consume_json_datum(j, rp, addr);
		dt_json_object_end(j);
		break;
	default:
		return dt_conn_error(dtp, EDT_BADRVAL,
		    "cannot print records of action %u yet", rp->dtrd_action);
	}
	if (dt_json_error(j) != 0)
		return dt_set_errno(dtp, EDT_NOMEM);
	return 0;
}

static int	dt_consume_recs(dtrace_hdl_t *, FILE *, dt_json_t *,
		    const dt_epid_t *, const char *, const dtrace_probedata_t *,
		    dtrace_consume_rec_f *, void *);

/* One probe firing's records. */
static int
dt_consume_probe(dtrace_hdl_t *dtp, FILE *fp, int cpu, const dt_epid_t *ep,
    const char *data, uint64_t ts, dtrace_consume_probe_f *pfunc,
    dtrace_consume_rec_f *rfunc, void *arg)
{
	const dtrace_eprobedesc_t *ed = &ep->de_edesc;
	dtrace_probedata_t pd;
	int rv;
	/* oformat=json: the records go to jf, then one line to fp */
	FILE *jf = NULL, *out = fp;
	char *jbuf = NULL;
	size_t jlen = 0;
	dt_json_t jw;

	/*
	 * A clause of only commit() and discard() (and statements that
	 * record nothing) puts no record in the principal buffer, as in
	 * illumos: the daemon writes none (dtd_consumer_records()), so
	 * such a firing never reaches here.
	 */
	memset(&pd, 0, sizeof(pd));
	pd.dtpda_handle = dtp;
	pd.dtpda_edesc = ed;
	pd.dtpda_pdesc = &ep->de_pdesc;
	pd.dtpda_cpu = cpu;
	pd.dtpda_data = data;
	pd.dtpda_timestamp = ts;
	if (dtp->dt_options[DTRACEOPT_FLOWINDENT] != DTRACEOPT_UNSET)
		dt_consume_flow(dtp, ep, &pd);

	rv = pfunc != NULL ? pfunc(&pd, arg) : DTRACE_CONSUME_THIS;
	if (rv == DTRACE_CONSUME_NEXT)
		return 0;
	if (rv != DTRACE_CONSUME_THIS)
		return dt_consume_rval(dtp, rv);
	if (DT_JSON(dtp)) {
		if ((jf = open_memstream(&jbuf, &jlen)) == NULL)
			return dt_set_errno(dtp, EDT_NOMEM);
		out = jf;
		dt_json_init(&jw, jf);
	}
	rv = dt_consume_recs(dtp, out, jf != NULL ? &jw : NULL, ep, data, &pd,
	    rfunc, arg);
	if (jf != NULL) {
		if (fclose(jf) != 0 && rv == 0)
			rv = dt_set_errno(dtp, EDT_NOMEM);
		if (rv == 0)
			rv = dt_consume_json_probe(dtp, fp, ep, cpu, ts, jbuf,
			    jlen);
		free(jbuf);
	}
	if (rv != 0)
		return rv;
	pd.dtpda_data = data;
	if (rfunc != NULL) {
		rv = rfunc(&pd, NULL, arg);
		if (rv != DTRACE_CONSUME_NEXT && rv != DTRACE_CONSUME_THIS)
			return dt_consume_rval(dtp, rv);
	}
	return 0;
}

/*
 * The records of one firing, printed to fp; with a JSON writer jw (on
 * fp), as the comma-separated objects of the probe's records array.
 */
static int
dt_consume_recs(dtrace_hdl_t *dtp, FILE *fp, dt_json_t *jw,
    const dt_epid_t *ep, const char *data, const dtrace_probedata_t *pdp,
    dtrace_consume_rec_f *rfunc, void *arg)
{
	const dtrace_eprobedesc_t *ed = &ep->de_edesc;
	const dtp_prog_t *pp = &ep->de_prog->dp_prog;
	int quiet = dtp->dt_options[DTRACEOPT_QUIET] != DTRACEOPT_UNSET;
	dtrace_probedata_t pd = *pdp;
	uint64_t memsize = 0;
	uint32_t i;
	int rv;

	for (i = 0; i < ed->dtepd_nrecs; i++) {
		const dtrace_recdesc_t *rp = &ed->dtepd_rec[i];
		uint32_t nargs = ep->de_nargs[i];
		/* printf's records: its own (the first argument), then more */
		uint32_t more = nargs > 0 ? nargs - 1 : 0;

		pd.dtpda_data = data + rp->dtrd_offset;
		/* as in illumos, library actions act before rfunc sees them */
		if (rp->dtrd_action == DTRACEACT_LIBACT &&
		    (uint32_t)(rp->dtrd_arg >> 32) == DTP_LIBACT_SETOPT) {
			const dtrace_recdesc_t *vp = i + 1 < ed->dtepd_nrecs ?
			    rp + 1 : NULL;

			if (vp != NULL && (vp->dtrd_action != DTRACEACT_LIBACT ||
			    (uint32_t)(vp->dtrd_arg >> 32) !=
			    DTP_LIBACT_SETOPTVAL))
				vp = NULL;
			if (dt_consume_setopt(dtp, ep, pd.dtpda_data,
			    rp->dtrd_size, vp == NULL ? NULL :
			    data + vp->dtrd_offset, vp == NULL ? 0 :
			    vp->dtrd_size) != 0)
				return -1;
			i += vp != NULL;
			continue;
		}
		if (rp->dtrd_action == DTRACEACT_LIBACT &&
		    (uint32_t)(rp->dtrd_arg >> 32) == DTP_LIBACT_FTRUNCATE) {
			/* as illumos: empty the output file, write from 0 */
			(void)fflush(fp);
			if (ftruncate(fileno(fp), 0) == 0)
				(void)fseeko(fp, 0, SEEK_SET);
			continue;
		}
		if (rp->dtrd_action == DTRACEACT_LIBACT) {
			int64_t v = 0;

			if (rp->dtrd_size == 8)
				memcpy(&v, pd.dtpda_data, sizeof(v));
			if (dt_aggregate_libact(dtp,
			    (uint32_t)(rp->dtrd_arg >> 32),
			    (uint32_t)rp->dtrd_arg, v) != 0)
				return -1;
			continue;
		}
		rv = rfunc != NULL ? rfunc(&pd, rp, arg) : DTRACE_CONSUME_THIS;
		if (rv == DTRACE_CONSUME_NEXT) {
			i += more;
			continue;
		}
		if (rv != DTRACE_CONSUME_THIS)
			return dt_consume_rval(dtp, rv);
		if (jw != NULL) {
			if (dt_consume_json_rec(dtp, jw, ep, i, data,
			    &memsize) != 0)
				return -1;
			i += more;
			continue;
		}

		switch (rp->dtrd_action) {
		case DTRACEACT_PRINTA: {
			uint32_t ids[DT_CONSUME_MAXPRINTA];

			if (dt_consume_printa_ids(dtp, ed, pp, i, nargs,
			    ids) != 0)
				return -1;
			if (dt_aggregate_printa(dtp, fp, rp->dtrd_format == 0 ?
			    NULL : pp->dp_fmt[rp->dtrd_format - 1], ids,
			    (int)nargs) != 0)
				return -1;
			i += more;
			break;
		}
		case DTRACEACT_PRINTF:
			if (rp->dtrd_format == 0 ||
			    rp->dtrd_format > pp->dp_nfmt ||
			    more > ed->dtepd_nrecs - i - 1)
				return dt_set_errno(dtp, EDT_BADCONV);
			if (dt_printf_format(dtp, fp,
			    pp->dp_fmt[rp->dtrd_format - 1], rp,
			    (int)nargs, data) != 0)
				return -1;
			i += more;
			break;
		case DTRACEACT_SYSTEM:
		case DTRACEACT_FREOPEN:
			if (rp->dtrd_format == 0 ||
			    rp->dtrd_format > pp->dp_nfmt ||
			    more > ed->dtepd_nrecs - i - 1)
				return dt_set_errno(dtp, EDT_BADCONV);
			if ((rp->dtrd_action == DTRACEACT_SYSTEM ?
			    dt_consume_system(dtp, fp,
			    pp->dp_fmt[rp->dtrd_format - 1], rp, (int)nargs,
			    data) : dt_consume_freopen(dtp, fp, ep,
			    pp->dp_fmt[rp->dtrd_format - 1], rp, (int)nargs,
			    data)) != 0)
				return -1;
			i += more;
			break;
		case DTRACEACT_EXIT:
		case DTRACEACT_STOP:		/* the daemon acted */
		case DTRACEACT_RAISE:
		case DTRACEACT_CHILL:
		case DTRACEACT_SPECULATE:	/* ids: nothing to show */
		case DTRACEACT_COMMIT:
		case DTRACEACT_DISCARD:
			break;
		case DTRACEACT_TRACEMEM_DYNSIZE:
			/* how many of the next tracemem()'s bytes to show */
			memsize = dt_consume_u64(rp, data);
			break;
		case DTRACEACT_TRACEMEM:
			if (memsize == 0 || memsize > rp->dtrd_size)
				memsize = rp->dtrd_size;
			if (dt_consume_bytes(dtp, fp,
			    (const unsigned char *)pd.dtpda_data,
			    (size_t)memsize, quiet, 1) != 0)
				return dt_set_errno(dtp, errno);
			memsize = 0;
			break;
		case DTRACEACT_USTACK:
			if (dt_usym_print_stack(dtp, fp, pd.dtpda_data,
			    DTRACE_USTACK_NFRAMES(rp->dtrd_arg), 0) != 0)
				return dt_set_errno(dtp, errno);
			break;
		case DTRACEACT_STACK:
			if (dt_usym_print_stack(dtp, fp, pd.dtpda_data,
			    (uint32_t)rp->dtrd_arg, DT_USYM_KERNEL) != 0)
				return dt_set_errno(dtp, errno);
			break;
		case DTRACEACT_USYM:
		case DTRACEACT_UMOD:
		case DTRACEACT_UADDR:
		case DTRACEACT_SYM:
		case DTRACEACT_MOD:
			if (dt_usym_print_sym(dtp, fp, pd.dtpda_data,
			    dt_usym_acthow(rp->dtrd_action)) != 0)
				return dt_set_errno(dtp, errno);
			break;
		case DTRACEACT_DIFEXPR:
			/* a statement evaluated for its effect records nothing */
			if (rp->dtrd_size == 0)
				break;
			/* print(): the address, then the object (dt_dwarf.c) */
			if ((uint32_t)(rp->dtrd_arg >> 32) == DT_PRINT_MAGIC &&
			    i + 1 < ed->dtepd_nrecs) {
				if (dt_dwarf_print(dtp, fp,
				    (uint32_t)rp->dtrd_arg, pd.dtpda_data,
				    data + rp[1].dtrd_offset,
				    rp[1].dtrd_size) != 0)
					return dt_set_errno(dtp, errno);
				i++;
				break;
			}
			if ((uint32_t)(rp->dtrd_arg >> 32) == DT_PRINTV_MAGIC) {
				if (dt_dwarf_printv(dtp, fp,
				    (uint32_t)rp->dtrd_arg, pd.dtpda_data,
				    rp->dtrd_size) != 0)
					return dt_set_errno(dtp, errno);
				break;
			}
			if (dt_consume_datum(dtp, fp, rp, pd.dtpda_data,
			    quiet) != 0)
				return -1;
			break;
		default:
			return dt_conn_error(dtp, EDT_BADRVAL,
			    "cannot print records of action %u yet",
			    rp->dtrd_action);
		}
	}
	return 0;
}

/* Check once that every record of an enabled probe lies in its data. */
static int
dt_consume_check(const dt_epid_t *ep)
{
	const dtrace_eprobedesc_t *ed = &ep->de_edesc;
	uint32_t i;

	for (i = 0; i < ed->dtepd_nrecs; i++) {
		const dtrace_recdesc_t *rp = &ed->dtepd_rec[i];

		if (rp->dtrd_offset > ed->dtepd_size ||
		    rp->dtrd_size > ed->dtepd_size - rp->dtrd_offset)
			return -1;
	}
	return 0;
}

int
dt_consume_buf(dtrace_hdl_t *dtp, FILE *fp, int cpu, const char *buf,
    size_t len, dtrace_consume_probe_f *pfunc, dtrace_consume_rec_f *rfunc,
    void *arg)
{
	size_t off = 0;

	dtp->dt_ofp = fp;
	while (len - off >= DTRACE_RECHDR_SIZE) {
		const dt_epid_t *ep;
		uint32_t epid;
		uint64_t ts;
		size_t size, next;

		dt_proto_rechdr_get(buf + off, &epid, &ts);
		if (epid == DTRACE_EPIDNONE)
			break;
		if ((ep = dt_program_epid(dtp, epid)) == NULL)
			return dt_conn_error(dtp, EDT_PROTO,
			    "record for unknown enabled probe ID %u from "
			    "dtraced", epid);
		size = ep->de_edesc.dtepd_size;
		if (size > len - off - DTRACE_RECHDR_SIZE ||
		    dt_consume_check(ep) != 0)
			return dt_conn_error(dtp, EDT_PROTO,
			    "truncated record for enabled probe ID %u from "
			    "dtraced", epid);
		/* -F: the next record's EPID, if it is in this buffer */
		dtp->dt_flownext = DTRACE_EPIDNONE;
		next = off + DTRACE_RECROUND(DTRACE_RECHDR_SIZE + size);
		if (next <= len && len - next >= DTRACE_RECHDR_SIZE)
			memcpy(&dtp->dt_flownext, buf + next,
			    sizeof(dtp->dt_flownext));
		if (ep->de_prog->dp_prog.dp_stmt[ep->de_stmt].ds_flags &
		    DTP_STMT_ERRHANDLER) {
			if (dt_consume_error(dtp, fp, ep,
			    buf + off + DTRACE_RECHDR_SIZE) != 0)
				return -1;
		} else if (dt_consume_probe(dtp, fp, cpu, ep,
		    buf + off + DTRACE_RECHDR_SIZE, ts, pfunc, rfunc,
		    arg) != 0) {
			return -1;
		}
		size = DTRACE_RECROUND(DTRACE_RECHDR_SIZE + size);
		if (size > len - off)
			break;
		off += size;
	}
	return 0;
}
