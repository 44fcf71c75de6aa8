/*
 * dt_as.c: the DIF assembler.  The code generator appends instructions
 * whose branches name labels, interns integers and strings (the string
 * table is deduplicated: literals and variable names share it) and notes
 * the variables it uses; dt_as() resolves labels to instruction indices
 * and produces a dif_difo_t.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

void
dt_as_init(dt_irlist_t *dlp)
{
	memset(dlp, 0, sizeof(*dlp));
}

void
dt_as_fini(dt_irlist_t *dlp)
{
	free(dlp->dl_buf);
	free(dlp->dl_labels);
	free(dlp->dl_ints);
	free(dlp->dl_strs);
	free(dlp->dl_vars);
	memset(dlp, 0, sizeof(*dlp));
}

/* Grow *bufp to hold one more element of size sz. */
static void
dt_as_grow(dt_pcb_t *pcb, void **bufp, uint32_t len, uint32_t *capp,
    size_t sz, uint32_t more)
{
	uint32_t cap = *capp;
	void *nbuf;

	if (len + more <= cap)
		return;
	while (len + more > cap)
		cap = cap ? cap * 2 : 16;
	if ((nbuf = realloc(*bufp, (size_t)cap * sz)) == NULL) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	*bufp = nbuf;
	*capp = cap;
}

void
dt_as_emit(dt_pcb_t *pcb, dif_instr_t instr, uint32_t label)
{
	dt_irlist_t *dlp = &pcb->pcb_ir;

	if (dlp->dl_len >= DIF_MAXINSTRS)
		dt_parser_error(pcb, 0, D_REGS,
		    "program exceeds the DIF instruction limit");
	dt_as_grow(pcb, (void **)&dlp->dl_buf, dlp->dl_len, &dlp->dl_cap,
	    sizeof(dt_irnode_t), 1);
	dlp->dl_buf[dlp->dl_len].di_instr = instr;
	dlp->dl_buf[dlp->dl_len].di_label = label;
	dlp->dl_len++;
}

/* A new label, placed later with dt_as_label_here(). */
uint32_t
dt_as_label(dt_pcb_t *pcb)
{
	dt_irlist_t *dlp = &pcb->pcb_ir;

	dt_as_grow(pcb, (void **)&dlp->dl_labels, dlp->dl_nlabels,
	    &dlp->dl_labcap, sizeof(uint32_t), 1);
	dlp->dl_labels[dlp->dl_nlabels] = DT_LBL_NONE;
	return dlp->dl_nlabels++;
}

/* The label names the next instruction emitted. */
void
dt_as_label_here(dt_pcb_t *pcb, uint32_t label)
{
	pcb->pcb_ir.dl_labels[label] = pcb->pcb_ir.dl_len;
}

uint32_t
dt_as_intern(dt_pcb_t *pcb, uint64_t v)
{
	dt_irlist_t *dlp = &pcb->pcb_ir;
	uint32_t i;

	for (i = 0; i < dlp->dl_nints; i++) {
		if (dlp->dl_ints[i] == v)
			return i;
	}
	if (dlp->dl_nints > DIF_INTOFF_MAX) {
		dt_set_errno(pcb->pcb_hdl, EDT_INT2BIG);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	dt_as_grow(pcb, (void **)&dlp->dl_ints, dlp->dl_nints,
	    &dlp->dl_intcap, sizeof(uint64_t), 1);
	dlp->dl_ints[dlp->dl_nints] = v;
	return dlp->dl_nints++;
}

/* The offset of s in the string table, adding it if needed. */
uint32_t
dt_as_string(dt_pcb_t *pcb, const char *s)
{
	dt_irlist_t *dlp = &pcb->pcb_ir;
	size_t len = strlen(s) + 1;
	uint32_t off;

	for (off = 0; off < dlp->dl_strlen;
	    off += strlen(dlp->dl_strs + off) + 1) {
		if (strcmp(dlp->dl_strs + off, s) == 0)
			return off;
	}
	if (dlp->dl_strlen + len > DIF_STROFF_MAX) {
		dt_set_errno(pcb->pcb_hdl, EDT_STR2BIG);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	dt_as_grow(pcb, (void **)&dlp->dl_strs, dlp->dl_strlen,
	    &dlp->dl_strcap, 1, len);
	memcpy(dlp->dl_strs + dlp->dl_strlen, s, len);
	off = dlp->dl_strlen;
	dlp->dl_strlen += len;
	return off;
}

/* Note a use of a user variable in the DIFO's variable table. */
void
dt_as_var(dt_pcb_t *pcb, const dt_ident_t *idp, uint16_t flags)
{
	dt_irlist_t *dlp = &pcb->pcb_ir;
	dif_var_t *dvp;
	const char *name;
	uint32_t i;

	/* ids are per scope: self->x and a global x may share one */
	for (i = 0; i < dlp->dl_nvars; i++) {
		if (dlp->dl_vars[i].dv_id == idp->di_id &&
		    dlp->dl_vars[i].dv_scope == idp->di_scope) {
			dlp->dl_vars[i].dv_flags |= flags;
			return;
		}
	}
	/* the table names self->x and this->x "x", as illumos does */
	if ((name = strstr(idp->di_name, "->")) != NULL)
		name += 2;
	else
		name = idp->di_name;
	dt_as_grow(pcb, (void **)&dlp->dl_vars, dlp->dl_nvars,
	    &dlp->dl_varcap, sizeof(dif_var_t), 1);
	dvp = &dlp->dl_vars[dlp->dl_nvars++];
	memset(dvp, 0, sizeof(*dvp));
	dvp->dv_name = dt_as_string(pcb, name);
	dvp->dv_id = idp->di_id;
	dvp->dv_kind = idp->di_kind == DT_IDENT_ASSOC ? DIFV_KIND_ARRAY :
	    DIFV_KIND_SCALAR;
	dvp->dv_scope = idp->di_scope;
	dvp->dv_flags = flags;
	dt_decl_rtype(pcb->pcb_hdl, idp->di_type, &dvp->dv_type);
}

static void *
dt_as_memdup(dt_pcb_t *pcb, const void *p, size_t len)
{
	void *q;

	if (len == 0)
		return NULL;
	if ((q = malloc(len)) == NULL) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	return memcpy(q, p, len);
}

/*
 * Assemble the instruction list into a new DIFO returning rtype and
 * reset the list for the next one.  The caller owns the DIFO.
 */
dif_difo_t *
dt_as(dt_pcb_t *pcb, const dif_type_t *rtype)
{
	dt_irlist_t *dlp = &pcb->pcb_ir;
	dif_difo_t *dp;
	dif_instr_t in;
	uint32_t i, lbl;

	if ((dp = calloc(1, sizeof(*dp))) == NULL) {
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	/* on error below, dp leaks only its own calloc: attach it first */
	dp->dd_buf = malloc(dlp->dl_len * sizeof(dif_instr_t));
	dp->dd_inttab = dt_as_memdup(pcb, dlp->dl_ints,
	    dlp->dl_nints * sizeof(uint64_t));
	dp->dd_strtab = dt_as_memdup(pcb, dlp->dl_strs, dlp->dl_strlen);
	dp->dd_vartab = dt_as_memdup(pcb, dlp->dl_vars,
	    dlp->dl_nvars * sizeof(dif_var_t));
	if (dp->dd_buf == NULL) {
		dif_difo_free(dp);
		dt_set_errno(pcb->pcb_hdl, EDT_NOMEM);
		longjmp(pcb->pcb_jmpbuf, 1);
	}
	for (i = 0; i < dlp->dl_len; i++) {
		in = dlp->dl_buf[i].di_instr;
		if ((lbl = dlp->dl_buf[i].di_label) != DT_LBL_NONE)
			in = DIF_INSTR_BRANCH(DIF_INSTR_OP(in),
			    dlp->dl_labels[lbl]);
		dp->dd_buf[i] = in;
	}
	dp->dd_len = dlp->dl_len;
	dp->dd_intlen = dlp->dl_nints;
	dp->dd_strlen = dlp->dl_strlen;
	dp->dd_varlen = dlp->dl_nvars;
	dp->dd_rtype = *rtype;

	dlp->dl_len = dlp->dl_nlabels = dlp->dl_nints = 0;
	dlp->dl_strlen = dlp->dl_nvars = 0;
	return dp;
}

dif_difo_t *
dt_as_difo_dup(const dif_difo_t *src)
{
	dif_difo_t *dp;

	if ((dp = calloc(1, sizeof(*dp))) == NULL)
		return NULL;
	*dp = *src;
	dp->dd_buf = NULL;
	dp->dd_inttab = NULL;
	dp->dd_strtab = NULL;
	dp->dd_vartab = NULL;
	if ((src->dd_len && (dp->dd_buf = malloc(src->dd_len *
	    sizeof(dif_instr_t))) == NULL) ||
	    (src->dd_intlen && (dp->dd_inttab = malloc(src->dd_intlen *
	    sizeof(uint64_t))) == NULL) ||
	    (src->dd_strlen && (dp->dd_strtab = malloc(src->dd_strlen)) ==
	    NULL) ||
	    (src->dd_varlen && (dp->dd_vartab = malloc(src->dd_varlen *
	    sizeof(dif_var_t))) == NULL)) {
		dif_difo_free(dp);
		return NULL;
	}
	if (src->dd_len)
		memcpy(dp->dd_buf, src->dd_buf, src->dd_len * sizeof(dif_instr_t));
	if (src->dd_intlen)
		memcpy(dp->dd_inttab, src->dd_inttab,
		    src->dd_intlen * sizeof(uint64_t));
	if (src->dd_strlen)
		memcpy(dp->dd_strtab, src->dd_strtab, src->dd_strlen);
	if (src->dd_varlen)
		memcpy(dp->dd_vartab, src->dd_vartab,
		    src->dd_varlen * sizeof(dif_var_t));
	return dp;
}
