/*
 * dif_subr.c: the DIF subroutines.  The one with state, strtok(), keeps
 * it in the mstate (see dif.h: one firing, one thread).
 *
 * Semantics follow illumos dtrace_dif_subr().  Every string or buffer
 * argument that lives in the daemon's memory is checked with
 * dif_vm_canload()/dif_vm_strlen() before it is read; results are built
 * in the firing's scratch space.  Faults are reported in dm_fault and
 * dm_illval; the return value is then meaningless.
 */
#include <sys/socket.h>

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "dif.h"

/*
 * Names, and the argument counts of the subroutines implemented here
 * (maxargs 0: not implemented; rand() is the one without arguments).
 */
static const struct {
	const char	*name;
	uint8_t		minargs;
	uint8_t		maxargs;
} dif_subr_tab[DIF_SUBR_MAX + 1] = {
	[DIF_SUBR_RAND] =		{ "rand", 0, 0 },
	[DIF_SUBR_MUTEX_OWNED] =	{ "mutex_owned", 0, 0 },
	[DIF_SUBR_MUTEX_OWNER] =	{ "mutex_owner", 0, 0 },
	[DIF_SUBR_MUTEX_TYPE_ADAPTIVE] = { "mutex_type_adaptive", 0, 0 },
	[DIF_SUBR_MUTEX_TYPE_SPIN] =	{ "mutex_type_spin", 0, 0 },
	[DIF_SUBR_RW_READ_HELD] =	{ "rw_read_held", 0, 0 },
	[DIF_SUBR_RW_WRITE_HELD] =	{ "rw_write_held", 0, 0 },
	[DIF_SUBR_RW_ISWRITER] =	{ "rw_iswriter", 0, 0 },
	[DIF_SUBR_COPYIN] =		{ "copyin", 2, 2 },
	[DIF_SUBR_COPYINSTR] =		{ "copyinstr", 1, 2 },
	[DIF_SUBR_SPECULATION] =	{ "speculation", 0, 0 },
	[DIF_SUBR_PROGENYOF] =		{ "progenyof", 1, 1 },
	[DIF_SUBR_STRLEN] =		{ "strlen", 1, 1 },
	[DIF_SUBR_COPYOUT] =		{ "copyout", 3, 3 },
	[DIF_SUBR_COPYOUTSTR] =		{ "copyoutstr", 3, 3 },
	[DIF_SUBR_ALLOCA] =		{ "alloca", 1, 1 },
	[DIF_SUBR_BCOPY] =		{ "bcopy", 3, 3 },
	[DIF_SUBR_COPYINTO] =		{ "copyinto", 3, 3 },
	[DIF_SUBR_MSGDSIZE] =		{ "msgdsize", 0, 0 },
	[DIF_SUBR_MSGSIZE] =		{ "msgsize", 0, 0 },
	[DIF_SUBR_GETMAJOR] =		{ "getmajor", 0, 0 },
	[DIF_SUBR_GETMINOR] =		{ "getminor", 0, 0 },
	[DIF_SUBR_DDI_PATHNAME] =	{ "ddi_pathname", 0, 0 },
	[DIF_SUBR_STRJOIN] =		{ "strjoin", 2, 2 },
	[DIF_SUBR_LLTOSTR] =		{ "lltostr", 1, 2 },
	[DIF_SUBR_BASENAME] =		{ "basename", 1, 1 },
	[DIF_SUBR_DIRNAME] =		{ "dirname", 1, 1 },
	[DIF_SUBR_CLEANPATH] =		{ "cleanpath", 1, 1 },
	[DIF_SUBR_STRCHR] =		{ "strchr", 2, 2 },
	[DIF_SUBR_STRRCHR] =		{ "strrchr", 2, 2 },
	[DIF_SUBR_STRSTR] =		{ "strstr", 2, 2 },
	[DIF_SUBR_STRTOK] =		{ "strtok", 2, 2 },
	[DIF_SUBR_SUBSTR] =		{ "substr", 2, 3 },
	[DIF_SUBR_INDEX] =		{ "index", 2, 3 },
	[DIF_SUBR_RINDEX] =		{ "rindex", 2, 3 },
	[DIF_SUBR_HTONS] =		{ "htons", 1, 1 },
	[DIF_SUBR_HTONL] =		{ "htonl", 1, 1 },
	[DIF_SUBR_HTONLL] =		{ "htonll", 1, 1 },
	[DIF_SUBR_NTOHS] =		{ "ntohs", 1, 1 },
	[DIF_SUBR_NTOHL] =		{ "ntohl", 1, 1 },
	[DIF_SUBR_NTOHLL] =		{ "ntohll", 1, 1 },
	[DIF_SUBR_INET_NTOP] =		{ "inet_ntop", 2, 2 },
	[DIF_SUBR_INET_NTOA] =		{ "inet_ntoa", 1, 1 },
	[DIF_SUBR_INET_NTOA6] =		{ "inet_ntoa6", 1, 2 },
	[DIF_SUBR_TOUPPER] =		{ "toupper", 1, 1 },
	[DIF_SUBR_TOLOWER] =		{ "tolower", 1, 1 },
	[DIF_SUBR_GETF] =		{ "getf", 0, 0 },
	[DIF_SUBR_JSON] =		{ "json", 2, 2 },
	[DIF_SUBR_STRTOLL] =		{ "strtoll", 1, 2 },
};

int
dif_subr_supported(uint32_t subr)
{
	return subr <= DIF_SUBR_MAX && (subr == DIF_SUBR_RAND ||
	    subr == DIF_SUBR_SPECULATION || dif_subr_tab[subr].maxargs != 0);
}

const char *
dif_subr_name(uint32_t subr)
{
	if (subr > DIF_SUBR_MAX || dif_subr_tab[subr].name == NULL)
		return "unknown";
	return dif_subr_tab[subr].name;
}

static uint64_t
dif_subr_fault(dif_mstate_t *ms, int fault, uint64_t illval)
{
	ms->dm_fault = fault;
	ms->dm_illval = illval;
	return 0;
}

/*
 * Check a string argument in daemon memory: it must start in a loadable
 * region; its length is bounded by strsize and by that region.
 */
static int
dif_subr_str(const dif_difo_t *dp, dif_mstate_t *ms, uint64_t addr,
    size_t *lenp)
{
	if (!dif_vm_strload(ms, dp, addr, ms->dm_strsize, lenp)) {
		dif_subr_fault(ms, DIF_FLT_BADADDR, addr);
		return 0;
	}
	return 1;
}

static int
dif_subr_buf(const dif_difo_t *dp, dif_mstate_t *ms, uint64_t addr,
    size_t size)
{
	if (!dif_vm_canload(ms, dp, addr, size)) {
		dif_subr_fault(ms, DIF_FLT_BADADDR, addr);
		return 0;
	}
	return 1;
}

/*
 * A string result of len bytes (plus its NUL) in scratch, cut at strsize
 * characters: the rule of every string of the VM (dif.h, dm_strsize).
 */
static char *
dif_subr_strres(dif_mstate_t *ms, const char *src, size_t len)
{
	char *d;

	if (len > ms->dm_strsize)
		len = ms->dm_strsize;
	if ((d = dif_vm_scratch_take(ms, len + 1, 1)) == NULL)
		return NULL;
	/* every byte is written: see dif_vm_scratch_take() */
	if (src != NULL)
		memcpy(d, src, len);
	else
		memset(d, 0, len);
	d[len] = '\0';
	return d;
}

static uint64_t
dif_subr_ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint64_t
dif_subr_rand(void)
{
	static __thread uint64_t state;
	struct timespec ts;
	uint64_t x;

	if (state == 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		state = ((uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec) ^
		    (uint64_t)(uintptr_t)&state;
		if (state == 0)
			state = 0x9e3779b97f4a7c15ULL;
	}
	x = state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static int
dif_subr_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

static int
dif_subr_isxdigit(int c)
{
	return dif_subr_digit(c) < 16;
}

static uint64_t
dif_subr_strtoll(const char *s, size_t lim, int base)
{
	size_t i = 0;
	uint64_t val = 0;
	int neg = 0, x;

	while (i < lim && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < lim && (s[i] == '-' || s[i] == '+')) {
		neg = s[i] == '-';
		i++;
	}
	if (base == 16 && i + 2 < lim && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'X') && dif_subr_isxdigit(s[i + 2]))
		i += 2;
	for (; i < lim && (x = dif_subr_digit((uint8_t)s[i])) < base; i++)
		val = val * base + x;
	return neg ? -val : val;
}

static uint64_t
dif_subr_lltostr(dif_mstate_t *ms, int64_t v, int base)
{
	char buf[72], *end = buf + sizeof(buf) - 1;
	uint64_t val, digit;

	val = (base == 10 && v < 0) ? -(uint64_t)v : (uint64_t)v;
	*end = '\0';
	for (; val != 0; val /= base) {
		digit = val % base;
		*--end = digit <= 9 ? '0' + digit : 'a' + (digit - 10);
	}
	if (v == 0 && base == 16)
		*--end = '0';
	if (base == 16)
		*--end = 'x';
	if (v == 0 || base == 8 || base == 16)
		*--end = '0';
	if (v < 0 && base == 10)
		*--end = '-';
	return dif_subr_ptr(dif_subr_strres(ms, end, buf + sizeof(buf) - 1 -
	    end));
}

/* basename() and dirname(), illumos semantics. */
static uint64_t
dif_subr_pathpart(dif_mstate_t *ms, const char *src, size_t len, int base)
{
	long i, lastbase = -1, firstbase = -1, lastdir = -1;
	long start, end;

	if (len == 0) {
		src = ".";
		len = 1;
	}
	for (i = (long)len - 1; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastbase = i;
	for (; i >= 0 && src[i] != '/'; i--)
		;
	if (i >= 0)
		firstbase = i + 1;
	for (; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastdir = i;

	if (base) {
		if (lastbase == -1)		/* all slashes: "/" */
			firstbase = lastbase = 0;
		else if (firstbase == -1)	/* no slash */
			firstbase = 0;
		start = firstbase;
		end = lastbase;
	} else {
		if (lastbase == -1) {		/* all slashes: "/" */
			start = end = 0;
		} else if (firstbase == -1) {	/* no slash: "." */
			src = ".";
			start = end = 0;
		} else if (lastdir == -1) {	/* only leading slashes: "/" */
			start = end = 0;
		} else {
			start = 0;
			end = lastdir;
		}
	}
	return dif_subr_ptr(dif_subr_strres(ms, src + start,
	    (size_t)(end - start + 1)));
}

/* cleanpath(): remove "//", "/./" and "/x/.." as illumos does. */
static uint64_t
dif_subr_cleanpath(dif_mstate_t *ms, const char *src, size_t lim)
{
	size_t size = ms->dm_strsize + 1, i = 0, j = 0;
	char *dest;
	char c;

	if ((dest = dif_vm_scratch_alloc(ms, size, 1)) == NULL)
		return 0;
#define NEXTC()	(i >= lim ? '\0' : src[i++])
	do {
		c = NEXTC();
next:
		if (j + 5 >= size)	/* room for "/..c\0" */
			break;
		if (c != '/') {
			dest[j++] = c;
			continue;
		}
		c = NEXTC();
		if (c == '/')
			goto next;
		if (c != '.') {
			dest[j++] = '/';
			dest[j++] = c;
			continue;
		}
		c = NEXTC();
		if (c == '/')
			goto next;
		if (c != '.') {
			dest[j++] = '/';
			dest[j++] = '.';
			dest[j++] = c;
			continue;
		}
		c = NEXTC();
		if (c != '/' && c != '\0') {
			dest[j++] = '/';
			dest[j++] = '.';
			dest[j++] = '.';
			dest[j++] = c;
			continue;
		}
		/* "/../" or "/..\0": back up to the previous "/" */
		i--;
		while (j != 0 && dest[--j] != '/')
			continue;
		if (c == '\0')
			dest[++j] = '/';
	} while (c != '\0');
#undef NEXTC
	dest[j] = '\0';
	/* give back what the result did not use */
	ms->dm_scratch_used -= size - (j + 1);
	return dif_subr_ptr(dest);
}

static size_t
dif_subr_ntoa4(char *buf, const uint8_t *a)
{
	size_t n = 0;
	int k, v;

	for (k = 0; k < 4; k++) {
		v = a[k];
		if (k != 0)
			buf[n++] = '.';
		if (v >= 100)
			buf[n++] = '0' + v / 100;
		if (v >= 10)
			buf[n++] = '0' + v / 10 % 10;
		buf[n++] = '0' + v % 10;
	}
	buf[n] = '\0';
	return n;
}

/*
 * RFC 1884 text form: lower-case hex groups, the longest run of zero
 * groups (the first of equals, even a single one, as illumos does)
 * written "::", and IPv4-mapped/compatible addresses ending in a
 * dotted quad.  Unless strict (inet_ntop(), or dtrace-utils'
 * inet_ntoa6(addr, 1)), such an address is only its dotted quad, as
 * illumos's inet_ntoa6() writes it.
 */
static size_t
dif_subr_ntoa6(char *buf, const uint8_t *a, int strict)
{
	static const char hex[] = "0123456789abcdef";
	uint16_t g[8];
	int k, ngroups = 8, best = -1, bestlen = 0, run, v4 = 0;
	size_t n = 0;

	for (k = 0; k < 8; k++)
		g[k] = (uint16_t)(a[2 * k] << 8 | a[2 * k + 1]);
	if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 &&
	    (g[5] == 0xffff ||
	    (g[5] == 0 && (g[6] != 0 || g[7] > 1)))) {
		if (!strict)
			return dif_subr_ntoa4(buf, a + 12);
		v4 = 1;
		ngroups = 6;
	}
	for (k = 0; k < ngroups; k++) {
		if (g[k] != 0)
			continue;
		for (run = 0; k + run < ngroups && g[k + run] == 0; run++)
			;
		if (run > bestlen) {
			best = k;
			bestlen = run;
		}
		k += run;
	}
	for (k = 0; k < ngroups; k++) {
		if (k == best) {
			buf[n++] = ':';
			buf[n++] = ':';
			k += bestlen - 1;
			continue;
		}
		if (k != 0 && k != best + bestlen)
			buf[n++] = ':';
		if (g[k] >= 0x1000)
			buf[n++] = hex[g[k] >> 12];
		if (g[k] >= 0x100)
			buf[n++] = hex[(g[k] >> 8) & 0xf];
		if (g[k] >= 0x10)
			buf[n++] = hex[(g[k] >> 4) & 0xf];
		buf[n++] = hex[g[k] & 0xf];
	}
	if (v4) {
		if (best + bestlen != ngroups)
			buf[n++] = ':';
		n += dif_subr_ntoa4(buf + n, a + 12);
	}
	buf[n] = '\0';
	return n;
}

static uint64_t
dif_subr_inet(const dif_difo_t *dp, dif_mstate_t *ms, int af, uint64_t addr,
    int strict)
{
	char buf[64];
	size_t n;

	if (af == AF_INET) {
		if (!dif_subr_buf(dp, ms, addr, 4))
			return 0;
		n = dif_subr_ntoa4(buf, (const uint8_t *)(uintptr_t)addr);
	} else if (af == AF_INET6) {
		if (!dif_subr_buf(dp, ms, addr, 16))
			return 0;
		n = dif_subr_ntoa6(buf, (const uint8_t *)(uintptr_t)addr,
		    strict);
	} else {
		return dif_subr_fault(ms, DIF_FLT_ILLOP, 0);
	}
	return dif_subr_ptr(dif_subr_strres(ms, buf, n));
}

/* Read a NUL-terminated string of the traced process, a page at a time. */
static uint64_t
dif_subr_copyinstr(dif_mstate_t *ms, uint64_t uaddr, size_t size)
{
	char *d;
	size_t off = 0, chunk;
	int e;

	if ((d = dif_vm_scratch_alloc(ms, size, 1)) == NULL)
		return 0;
	while (off < size - 1) {
		chunk = 4096 - ((uaddr + off) & 4095);
		if (chunk > size - 1 - off)
			chunk = size - 1 - off;
		if ((e = ms->dm_host->dh_uread(ms->dm_hostarg, uaddr + off,
		    d + off, chunk)) != 0)
			return dif_subr_fault(ms, e, uaddr + off);
		if (memchr(d + off, '\0', chunk) != NULL)
			break;
		off += chunk;
	}
	d[size - 1] = '\0';
	return dif_subr_ptr(d);
}

/*
 * strtok(str, delims), illumos semantics: skip leading delimiters, copy
 * the token up to the next delimiter into scratch, and remember where it
 * stopped; strtok(NULL, delims) resumes there.  At the end of the string
 * the result is NULL and so is the saved position.
 *
 * The position belongs to the firing, across its clauses, as illumos
 * keeps it in the firing's machine state: strtok(NULL, ...) usually
 * comes in a later clause, whose scratch and string table are not the
 * first one's.  With the host's clause-local storage (dm_lstate) the
 * string is copied there, which DIF cannot reach, and tagged with the
 * firing; without it, into the scratch of this machine state, which
 * every DIFO of the clause may load.
 */
static uint64_t
dif_subr_strtok(const dif_difo_t *dp, dif_mstate_t *ms, uint64_t addr,
    uint64_t delims)
{
	dif_lstate_t *ls = ms->dm_lstate;
	int inls = ls != NULL && ls->dl_tok != NULL;
	uint8_t map[32];
	const char *s, *dl;
	size_t len, dlen, i, n;
	uint64_t limit;
	char *d;
	int c;

	if (!dif_subr_str(dp, ms, delims, &dlen))
		return 0;
	if (addr == 0 && inls) {
		if (ls->dl_tokgen != ls->dl_gen)
			return 0;	/* nothing saved by this firing */
		addr = dif_subr_ptr(ls->dl_tok + ls->dl_tokoff);
		limit = dif_subr_ptr(ls->dl_tok + ls->dl_toklen);
		len = limit - addr;
	} else if (addr == 0) {
		/* resume; the saved string must still be loadable */
		addr = ms->dm_strtok;
		limit = ms->dm_strtok_limit;
		if (addr == 0)
			return 0;
		if (limit < addr || !dif_vm_canload(ms, dp, addr, limit - addr))
			return dif_subr_fault(ms, DIF_FLT_BADADDR, addr);
		len = limit - addr;
	} else {
		if (!dif_subr_str(dp, ms, addr, &len))
			return 0;
		if (inls) {
			if (len > ls->dl_ssize - 1)
				len = ls->dl_ssize - 1;
			memmove(ls->dl_tok, (const void *)(uintptr_t)addr,
			    len);
			ls->dl_tok[len] = '\0';
			ls->dl_toklen = (uint32_t)len;
			ls->dl_tokgen = ls->dl_gen;
			addr = dif_subr_ptr(ls->dl_tok);
		} else if (!dif_vm_inscratch(ms, addr, len + 1)) {
			if ((d = dif_subr_strres(ms,
			    (const char *)(uintptr_t)addr, len)) == NULL)
				return 0;
			addr = dif_subr_ptr(d);
			len = strlen(d);
		}
		limit = addr + len;
	}
	s = (const char *)(uintptr_t)addr;
	memset(map, 0, sizeof(map));
	dl = (const char *)(uintptr_t)delims;
	for (i = 0; i < dlen; i++) {
		c = (uint8_t)dl[i];
		map[c >> 3] |= 1 << (c & 7);
	}
#define DIF_SUBR_ISDELIM(c)	(map[(c) >> 3] & (1 << ((c) & 7)))
	for (i = 0; i < len && s[i] != '\0' &&
	    DIF_SUBR_ISDELIM((uint8_t)s[i]); i++)
		;
	if (i == len || s[i] == '\0') {
		ms->dm_strtok = ms->dm_strtok_limit = 0;
		if (inls)
			ls->dl_tokgen = 0;
		return 0;
	}
	for (n = 0; i + n < len && s[i + n] != '\0' &&
	    !DIF_SUBR_ISDELIM((uint8_t)s[i + n]); n++)
		;
#undef DIF_SUBR_ISDELIM
	if ((d = dif_subr_strres(ms, s + i, n)) == NULL)
		return 0;
	if (inls) {
		ls->dl_tokoff = (uint32_t)(s + i + n - ls->dl_tok);
		return dif_subr_ptr(d);
	}
	ms->dm_strtok = addr + i + n;
	ms->dm_strtok_limit = limit;
	return dif_subr_ptr(d);
}

/*
 * json(json, selector), as later illumos has it: the value of the JSON
 * text at a path of member names separated by '.' with array indexes in
 * brackets ("a.b[2].c"), or NULL when the path is not there or the text
 * is malformed up to the end of the value (the text after the character
 * that ends it is not read).  A
 * string value is its contents as written, escapes and all; any other
 * value is its text (a number, true, false, null, or a whole object or
 * array).  Nesting is bounded, so that the daemon's stack is.
 */
#define DIF_JSON_MAXDEPTH	32

static const char *
dif_subr_json_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return p;
}

/* The end of the string at p (past its closing quote), or NULL. */
static const char *
dif_subr_json_str(const char *p, const char *end)
{
	int i;

	if (p >= end || *p++ != '"')
		return NULL;
	while (p < end) {
		if (*p == '"')
			return p + 1;
		if ((uint8_t)*p < 0x20)
			return NULL;
		if (*p++ != '\\')
			continue;
		if (p >= end)
			return NULL;
		if (*p == 'u') {
			for (i = 1; i <= 4; i++)
				if (p + i >= end || !dif_subr_isxdigit(p[i]))
					return NULL;
			p += 5;
		} else if (strchr("\"\\/bfnrt", *p) != NULL && *p != '\0') {
			p++;
		} else {
			return NULL;
		}
	}
	return NULL;
}

static const char *
dif_subr_json_digits(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p == s ? NULL : p;
}

/* The end of the number at p, or NULL: JSON's grammar, strictly. */
static const char *
dif_subr_json_num(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if ((p = dif_subr_json_digits(p, end)) == NULL)
		return NULL;
	if (p < end && *p == '.' &&
	    (p = dif_subr_json_digits(p + 1, end)) == NULL)
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if ((p = dif_subr_json_digits(p, end)) == NULL)
			return NULL;
	}
	return p;
}

/* The end of the value at p (no leading space), or NULL if malformed. */
static const char *
dif_subr_json_skip(const char *p, const char *end, int depth)
{
	static const char *const lit[] = { "true", "false", "null" };
	char close;
	size_t i, n;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return dif_subr_json_str(p, end);
	if (*p == '-' || (*p >= '0' && *p <= '9'))
		return dif_subr_json_num(p, end);
	for (i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		n = strlen(lit[i]);
		if ((size_t)(end - p) >= n && memcmp(p, lit[i], n) == 0)
			return p + n;
	}
	if ((*p != '{' && *p != '[') || depth >= DIF_JSON_MAXDEPTH)
		return NULL;
	close = *p == '{' ? '}' : ']';
	p = dif_subr_json_ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if ((p = dif_subr_json_str(p, end)) == NULL)
				return NULL;
			p = dif_subr_json_ws(p, end);
			if (p >= end || *p != ':')
				return NULL;
			p = dif_subr_json_ws(p + 1, end);
		}
		if ((p = dif_subr_json_skip(p, end, depth + 1)) == NULL)
			return NULL;
		p = dif_subr_json_ws(p, end);
		if (p < end && *p == close)
			return p + 1;
		if (p >= end || *p != ',')
			return NULL;
		p = dif_subr_json_ws(p + 1, end);
	}
}

/*
 * In the object or array at p, the value of member key[0..klen) (key
 * not NULL) or of element idx: its start, or NULL.
 */
static const char *
dif_subr_json_member(const char *p, const char *end, const char *key,
    size_t klen, uint64_t idx)
{
	const char *k, *e;
	uint64_t i = 0;
	char close;

	if (p >= end || *p != (key != NULL ? '{' : '['))
		return NULL;
	close = key != NULL ? '}' : ']';
	p = dif_subr_json_ws(p + 1, end);
	if (p < end && *p == close)
		return NULL;
	for (;; i++) {
		int hit = key == NULL && i == idx;

		if (key != NULL) {
			k = p;
			if ((p = dif_subr_json_str(p, end)) == NULL)
				return NULL;
			hit = (size_t)(p - k) == klen + 2 &&
			    memcmp(k + 1, key, klen) == 0;
			p = dif_subr_json_ws(p, end);
			if (p >= end || *p != ':')
				return NULL;
			p = dif_subr_json_ws(p + 1, end);
		}
		if (hit)
			return p;
		if ((e = dif_subr_json_skip(p, end, 1)) == NULL)
			return NULL;
		p = dif_subr_json_ws(e, end);
		/* the end: not there, or malformed */
		if (p >= end || *p != ',')
			return NULL;
		p = dif_subr_json_ws(p + 1, end);
	}
}

static uint64_t
dif_subr_json(dif_mstate_t *ms, const char *js, size_t len, const char *sel,
    size_t slen)
{
	const char *p = js, *end = js + len, *s = sel, *send = sel + slen;
	const char *e, *k;
	uint64_t idx;

	if (slen == 0)
		return 0;
	p = dif_subr_json_ws(p, end);
	while (s < send) {
		if (*s == '[') {
			for (idx = 0, s++; s < send && *s >= '0' && *s <= '9';
			    s++) {
				if (idx > (UINT64_MAX - 9) / 10)
					return 0;
				idx = idx * 10 + (uint64_t)(*s - '0');
			}
			if (s >= send || *s != ']' || s[-1] == '[')
				return 0;
			s++;
			if (s < send && *s != '.' && *s != '[')
				return 0;
			if ((p = dif_subr_json_member(p, end, NULL, 0,
			    idx)) == NULL)
				return 0;
		} else {
			/* a name: after the start, or after a '.' */
			if (*s == '.') {
				if (s == sel)
					return 0;
				s++;
			}
			for (k = s; s < send && *s != '.' && *s != '['; s++)
				;
			if (s == k)
				return 0;	/* "a..b", "a.", ".a" */
			if ((p = dif_subr_json_member(p, end, k,
			    (size_t)(s - k), 0)) == NULL)
				return 0;
		}
	}
	if ((e = dif_subr_json_skip(p, end, 0)) == NULL)
		return 0;
	/* what follows must end the member: "01" is no number */
	k = dif_subr_json_ws(e, end);
	if (k == end || (*k != ',' && *k != '}' && *k != ']'))
		return 0;
	if (*p == '"') {
		p++;
		e--;
	}
	return dif_subr_ptr(dif_subr_strres(ms, p, (size_t)(e - p)));
}

static uint16_t
dif_subr_bswap16(uint64_t v, int swap)
{
	return swap ? __builtin_bswap16((uint16_t)v) : (uint16_t)v;
}

static uint32_t
dif_subr_bswap32(uint64_t v, int swap)
{
	return swap ? __builtin_bswap32((uint32_t)v) : (uint32_t)v;
}

static uint64_t
dif_subr_bswap64(uint64_t v, int swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

uint64_t
dif_subr_call(uint32_t subr, const uint64_t *args, int nargs,
    const dif_difo_t *dp, dif_mstate_t *ms)
{
	const int swap = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	const char *s, *t;
	size_t len, len2, size;
	int base;
	char *d;

	if (!dif_subr_supported(subr) || nargs < dif_subr_tab[subr].minargs)
		return dif_subr_fault(ms, DIF_FLT_ILLOP, 0);
	/* like illumos, ignore what else is on the tuple stack */
	if (nargs > dif_subr_tab[subr].maxargs)
		nargs = dif_subr_tab[subr].maxargs;

	switch (subr) {
	case DIF_SUBR_RAND:
		return dif_subr_rand();

	case DIF_SUBR_SPECULATION: {
		uint64_t id = 0;
		int flt;

		/* the speculations belong to the host (the consumer) */
		if (ms->dm_host->dh_speculation == NULL)
			return 0;
		if ((flt = ms->dm_host->dh_speculation(ms->dm_hostarg,
		    &id)) != 0)
			return dif_subr_fault(ms, flt, 0);
		return id;
	}

	case DIF_SUBR_PROGENYOF: {
		uint64_t r = 0;
		int flt;

		/* the process tree is the host's to walk */
		if (ms->dm_host->dh_progenyof == NULL)
			return 0;
		if ((flt = ms->dm_host->dh_progenyof(ms->dm_hostarg, args[0],
		    &r)) != 0)
			return dif_subr_fault(ms, flt, 0);
		return r != 0;
	}

	case DIF_SUBR_STRLEN:
		if (!dif_subr_str(dp, ms, args[0], &len))
			return 0;
		return len;

	case DIF_SUBR_STRJOIN:
		if (!dif_subr_str(dp, ms, args[0], &len) ||
		    !dif_subr_str(dp, ms, args[1], &len2))
			return 0;
		/*
		 * illumos: a join longer than a string can be faults (here
		 * strsize characters, the NUL not counted, as everywhere)
		 */
		if (len + len2 > ms->dm_strsize)
			return dif_subr_fault(ms, DIF_FLT_NOSCRATCH, 0);
		/* every byte is written: see dif_vm_scratch_take() */
		if ((d = dif_vm_scratch_take(ms, len + len2 + 1, 1)) == NULL)
			return 0;
		memcpy(d, (const char *)(uintptr_t)args[0], len);
		memcpy(d + len, (const char *)(uintptr_t)args[1], len2);
		d[len + len2] = '\0';
		return dif_subr_ptr(d);

	case DIF_SUBR_SUBSTR: {
		int64_t index = (int64_t)args[1];
		int64_t remaining = nargs > 2 ? (int64_t)args[2] :
		    (int64_t)ms->dm_strsize;
		int64_t slen;

		if (!dif_subr_str(dp, ms, args[0], &len))
			return 0;
		s = (const char *)(uintptr_t)args[0];
		slen = (int64_t)len;
		if (index < 0) {
			index += slen;
			if (index < 0 && index + remaining > 0) {
				remaining += index;
				index = 0;
			}
		}
		if (index >= slen || index < 0) {
			index = 0;
			remaining = 0;
		} else if (remaining < 0) {
			remaining += slen - index;
		}
		if (remaining < 0)
			remaining = 0;
		if (remaining > slen - index)
			remaining = slen - index;
		return dif_subr_ptr(dif_subr_strres(ms, s + index,
		    (size_t)remaining));
	}

	case DIF_SUBR_INDEX:
	case DIF_SUBR_RINDEX:
	case DIF_SUBR_STRSTR: {
		int64_t pos, i, notfound = subr == DIF_SUBR_STRSTR ? 0 : -1;

		if (!dif_subr_str(dp, ms, args[0], &len) ||
		    !dif_subr_str(dp, ms, args[1], &len2))
			return 0;
		s = (const char *)(uintptr_t)args[0];
		t = (const char *)(uintptr_t)args[1];
		if (len == 0 && len2 == 0)
			return subr == DIF_SUBR_STRSTR ? args[0] : 0;
		if (subr == DIF_SUBR_RINDEX) {
			pos = (int64_t)len;
			if (nargs == 3) {
				pos = (int64_t)args[2];
				if (pos < 0)
					return len2 == 0 ? 0 : (uint64_t)notfound;
				if (pos > (int64_t)len)
					pos = (int64_t)len;
			}
			for (i = pos; i >= 0; i--) {
				if (len - i >= len2 &&
				    memcmp(s + i, t, len2) == 0)
					return (uint64_t)i;
			}
			return (uint64_t)notfound;
		}
		pos = 0;
		if (subr == DIF_SUBR_INDEX && nargs == 3) {
			pos = (int64_t)args[2];
			if (pos < 0)
				pos = 0;
			if (pos >= (int64_t)len)
				return len2 == 0 ? len : (uint64_t)notfound;
		}
		for (i = pos; i < (int64_t)len; i++) {
			if (len - i >= len2 && memcmp(s + i, t, len2) == 0)
				return subr == DIF_SUBR_STRSTR ?
				    dif_subr_ptr(s + i) : (uint64_t)i;
		}
		return (uint64_t)notfound;
	}

	case DIF_SUBR_STRCHR:
	case DIF_SUBR_STRRCHR: {
		const char *hit = NULL;
		size_t i, lim;

		if (!dif_subr_str(dp, ms, args[0], &len))
			return 0;
		s = (const char *)(uintptr_t)args[0];
		/* the terminating NUL is part of the string if loadable */
		lim = len <= ms->dm_strsize && dif_vm_canload(ms, dp, args[0],
		    len + 1) ? len + 1 : len;
		for (i = 0; i < lim; i++) {
			if (s[i] == (char)args[1]) {
				hit = s + i;
				if (subr == DIF_SUBR_STRCHR)
					break;
			}
		}
		return dif_subr_ptr(hit);
	}

	case DIF_SUBR_STRTOK:
		return dif_subr_strtok(dp, ms, args[0], args[1]);

	case DIF_SUBR_JSON:
		if (!dif_subr_str(dp, ms, args[0], &len) ||
		    !dif_subr_str(dp, ms, args[1], &len2))
			return 0;
		return dif_subr_json(ms, (const char *)(uintptr_t)args[0], len,
		    (const char *)(uintptr_t)args[1], len2);

	case DIF_SUBR_TOUPPER:
	case DIF_SUBR_TOLOWER: {
		size_t i;

		if (!dif_subr_str(dp, ms, args[0], &len))
			return 0;
		s = (const char *)(uintptr_t)args[0];
		if ((d = dif_subr_strres(ms, s, len)) == NULL)
			return 0;
		for (i = 0; d[i] != '\0'; i++) {
			if (subr == DIF_SUBR_TOUPPER && d[i] >= 'a' &&
			    d[i] <= 'z')
				d[i] -= 'a' - 'A';
			else if (subr == DIF_SUBR_TOLOWER && d[i] >= 'A' &&
			    d[i] <= 'Z')
				d[i] += 'a' - 'A';
		}
		return dif_subr_ptr(d);
	}

	case DIF_SUBR_LLTOSTR:
		base = 10;
		if (nargs > 1) {
			if (args[1] <= 1 || args[1] > 36)
				return dif_subr_fault(ms, DIF_FLT_ILLOP, 0);
			base = (int)args[1];
		}
		return dif_subr_lltostr(ms, (int64_t)args[0], base);

	case DIF_SUBR_STRTOLL:
		base = 10;
		if (nargs > 1) {
			if (args[1] <= 1 || args[1] > 36)
				return dif_subr_fault(ms, DIF_FLT_ILLOP, 0);
			base = (int)args[1];
		}
		if (!dif_subr_str(dp, ms, args[0], &len))
			return 0;
		return dif_subr_strtoll((const char *)(uintptr_t)args[0], len,
		    base);

	case DIF_SUBR_BASENAME:
	case DIF_SUBR_DIRNAME:
		if (!dif_subr_str(dp, ms, args[0], &len))
			return 0;
		return dif_subr_pathpart(ms, (const char *)(uintptr_t)args[0],
		    len, subr == DIF_SUBR_BASENAME);

	case DIF_SUBR_CLEANPATH:
		if (!dif_subr_str(dp, ms, args[0], &len))
			return 0;
		return dif_subr_cleanpath(ms, (const char *)(uintptr_t)args[0],
		    len);

	case DIF_SUBR_HTONS:
	case DIF_SUBR_NTOHS:
		return dif_subr_bswap16(args[0], swap);
	case DIF_SUBR_HTONL:
	case DIF_SUBR_NTOHL:
		return dif_subr_bswap32(args[0], swap);
	case DIF_SUBR_HTONLL:
	case DIF_SUBR_NTOHLL:
		return dif_subr_bswap64(args[0], swap);

	case DIF_SUBR_INET_NTOA:
		return dif_subr_inet(dp, ms, AF_INET, args[0], 0);
	case DIF_SUBR_INET_NTOA6:
		return dif_subr_inet(dp, ms, AF_INET6, args[0],
		    nargs > 1 && args[1] != 0);
	case DIF_SUBR_INET_NTOP:
		return dif_subr_inet(dp, ms, (int)(int64_t)args[0], args[1],
		    1);

	case DIF_SUBR_ALLOCA:
		return dif_subr_ptr(dif_vm_scratch_alloc(ms, args[0], 8));

	case DIF_SUBR_BCOPY:
		/* the destination must be scratch, nothing else */
		if (!dif_vm_inscratch(ms, args[1], args[2]))
			return dif_subr_fault(ms, DIF_FLT_BADADDR, args[1]);
		if (!dif_subr_buf(dp, ms, args[0], args[2]))
			return 0;
		if (args[2] != 0)
			memmove((void *)(uintptr_t)args[1],
			    (const void *)(uintptr_t)args[0], args[2]);
		return 0;

	case DIF_SUBR_COPYOUT:
	case DIF_SUBR_COPYOUTSTR: {
		/* copyout(buf, uaddr, n), copyoutstr(str, uaddr, maxlen) */
		int e;

		if (ms->dm_host == NULL || ms->dm_host->dh_uwrite == NULL)
			return dif_subr_fault(ms, DIF_FLT_UPRIV, args[1]);
		size = args[2];
		if (subr == DIF_SUBR_COPYOUTSTR) {
			if (!dif_vm_canload(ms, dp, args[0], 1))
				return dif_subr_fault(ms, DIF_FLT_BADADDR,
				    args[0]);
			/* the string and its NUL, at most maxlen bytes */
			size = dif_vm_strlen(ms, dp, args[0], size);
			if (size < args[2])
				size++;
			if (!dif_vm_canload(ms, dp, args[0], size))
				size--;
		} else if (!dif_subr_buf(dp, ms, args[0], size)) {
			return 0;
		}
		if (size != 0 && (e = ms->dm_host->dh_uwrite(ms->dm_hostarg,
		    args[1], (const void *)(uintptr_t)args[0], size)) != 0)
			return dif_subr_fault(ms, e, args[1]);
		return 0;
	}
	case DIF_SUBR_COPYIN:
	case DIF_SUBR_COPYINTO:
	case DIF_SUBR_COPYINSTR: {
		int e;

		if (ms->dm_host == NULL || ms->dm_host->dh_uread == NULL)
			return dif_subr_fault(ms, DIF_FLT_UPRIV, args[0]);
		if (subr == DIF_SUBR_COPYINSTR) {
			/* at most strsize (or n) characters, then the NUL */
			size = ms->dm_strsize + 1;
			if (nargs > 1 && args[1] < ms->dm_strsize)
				size = args[1] + 1;
			return dif_subr_copyinstr(ms, args[0], size);
		}
		size = args[1];
		if (subr == DIF_SUBR_COPYIN) {
			if ((d = dif_vm_scratch_alloc(ms, size, 8)) == NULL)
				return 0;
		} else {
			if (!dif_vm_canstore(ms, args[2], size))
				return dif_subr_fault(ms, DIF_FLT_BADADDR,
				    args[2]);
			d = (char *)(uintptr_t)args[2];
		}
		if (size != 0 && (e = ms->dm_host->dh_uread(ms->dm_hostarg,
		    args[0], d, size)) != 0)
			return dif_subr_fault(ms, e, args[0]);
		return subr == DIF_SUBR_COPYIN ? dif_subr_ptr(d) : 0;
	}
	}
	return dif_subr_fault(ms, DIF_FLT_ILLOP, 0);
}
