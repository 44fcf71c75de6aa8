/*
 * ft_btf.c: what fasttrap needs from the kernel's BTF
 * (/sys/kernel/btf/vmlinux), read by hand: byte offsets in the kernel's
 * structures that the capture programs (ft_bpf.c) read with
 * bpf_get_current_task + bpf_probe_read_kernel.  A thread's user %fs
 * base in struct task_struct (thread.fsbase): struct pt_regs has no
 * segment bases, and errno lives at %fs base + an offset.  What decides
 * whether a process may be traced by a user, as the kernel's ptrace
 * check reads it: the task's credentials (real_cred: its uids and gids,
 * its permitted capabilities) and its mm's dumpable bits (the low bits
 * of mm_struct's flags), for the system call capture, whose records may
 * be fired after their process is gone; and the process's name, its
 * main thread's (group_leader->comm).  Found once per daemon; -1 for
 * what the kernel has no BTF or no such members for.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

#define	FT_BTF_MAGIC	0xeb9f
#define	FT_BTF_STRUCT	4
#define	FT_BTF_UNION	5
#define	FT_BTF_PTR	2
#define	FT_BTF_TYPEDEF	8
#define	FT_BTF_VOLATILE	9
#define	FT_BTF_CONST	10
#define	FT_BTF_RESTRICT	11
#define	FT_BTF_TYPETAG	18

struct ft_btf {
	const uint8_t	*bt_types, *bt_end;
	const char	*bt_strs;
	uint32_t	bt_strlen;
	const uint8_t	**bt_byid;	/* each type's record, by id */
	uint32_t	bt_n;
};

static const char *
ft_btf_str(const struct ft_btf *bt, uint32_t off)
{
	return off < bt->bt_strlen ? bt->bt_strs + off : "";
}

/* Bytes of a type record's trailer, by kind; -1 for an unknown kind. */
static long
ft_btf_extra(uint32_t info)
{
	uint32_t vlen = info & 0xffff;

	switch ((info >> 24) & 0x1f) {
	case 1: case 14: case 17:	/* int, var, decl_tag */
		return 4;
	case 3:				/* array */
		return 12;
	case 4: case 5: case 15: case 19: /* struct, union, datasec, enum64 */
		return 12L * vlen;
	case 6: case 13:		/* enum, func_proto */
		return 8L * vlen;
	case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16:
	case 18:
		return 0;
	default:
		return -1;
	}
}

/* id through typedefs and qualifiers (and a pointer, if deref) */
static uint32_t
ft_btf_resolve(const struct ft_btf *bt, uint32_t id, int deref)
{
	const uint32_t *t;
	uint32_t i, kind;

	for (i = 0; i < 16 && id != 0 && id < bt->bt_n; i++) {
		t = (const uint32_t *)(const void *)bt->bt_byid[id];
		kind = (t[1] >> 24) & 0x1f;
		if (kind == FT_BTF_PTR && deref) {
			deref = 0;
			id = t[2];
			continue;
		}
		if (kind != FT_BTF_TYPEDEF && kind != FT_BTF_VOLATILE &&
		    kind != FT_BTF_CONST && kind != FT_BTF_RESTRICT &&
		    kind != FT_BTF_TYPETAG)
			break;
		id = t[2];
	}
	return id < bt->bt_n && !deref ? id : 0;
}

/*
 * The bit offset of member name of the struct or union type id, looked
 * for in its anonymous members too; -1, *idp its type.
 */
static long
ft_btf_member(const struct ft_btf *bt, uint32_t id, const char *name,
    uint32_t *idp)
{
	const uint32_t *t, *m;
	uint32_t i, vlen, kind;
	long off, in;

	if ((id = ft_btf_resolve(bt, id, 0)) == 0)
		return -1;
	t = (const uint32_t *)(const void *)bt->bt_byid[id];
	kind = (t[1] >> 24) & 0x1f;
	if (kind != FT_BTF_STRUCT && kind != FT_BTF_UNION)
		return -1;
	vlen = t[1] & 0xffff;
	for (i = 0, m = t + 3; i < vlen; i++, m += 3) {
		/* kind_flag: the low 24 bits are the offset */
		off = (long)(t[1] >> 31 ? m[2] & 0xffffff : m[2]);
		if (m[0] == 0) {
			if ((in = ft_btf_member(bt, m[1], name, idp)) != -1)
				return off + in;
			continue;
		}
		if (strcmp(ft_btf_str(bt, m[0]), name) != 0)
			continue;
		*idp = m[1];
		return off;
	}
	return -1;
}

/* The byte offset of member path ("a.b.c") in type id, or -1; *idp */
static long
ft_btf_path(const struct ft_btf *bt, uint32_t id, const char *path,
    uint32_t *idp)
{
	char name[64];
	const char *p = path, *e;
	long off = 0, o;

	for (;;) {
		e = strchr(p, '.');
		if ((e != NULL ? (size_t)(e - p) : strlen(p)) >= sizeof(name))
			return -1;
		snprintf(name, sizeof(name), "%.*s", e != NULL ?
		    (int)(e - p) : (int)strlen(p), p);
		if ((o = ft_btf_member(bt, id, name, &id)) == -1 || o % 8 != 0)
			return -1;
		off += o / 8;
		if (e == NULL)
			break;
		p = e + 1;
	}
	*idp = id;
	return off;
}

/* The offsets ft_btf_offs() finds in the BTF of buf; o all -1 first. */
static void
ft_btf_parse(const uint8_t *buf, size_t len, ft_btfoffs_t *o)
{
	static const char *const ids[8] = { "uid", "gid", "suid", "sgid",
	    "euid", "egid", "fsuid", "fsgid" };
	struct ft_btf bt;
	const uint8_t *q;
	uint32_t hlen, toff, tlen, soff, slen, id, cap = 0, task = 0;
	uint32_t cred = 0, mm = 0, sig = 0;
	long off, uid;
	int i;

	if (len < 24 || *(const uint16_t *)(const void *)buf != FT_BTF_MAGIC)
		return;
	memcpy(&hlen, buf + 4, 4);
	memcpy(&toff, buf + 8, 4);
	memcpy(&tlen, buf + 12, 4);
	memcpy(&soff, buf + 16, 4);
	memcpy(&slen, buf + 20, 4);
	if (hlen > len || (uint64_t)hlen + toff + tlen > len ||
	    (uint64_t)hlen + soff + slen > len)
		return;
	memset(&bt, 0, sizeof(bt));
	bt.bt_types = buf + hlen + toff;
	bt.bt_end = bt.bt_types + tlen;
	bt.bt_strs = (const char *)buf + hlen + soff;
	bt.bt_strlen = slen;
	bt.bt_n = 1;			/* id 0 is void */
	for (q = bt.bt_types; q + 12 <= bt.bt_end;) {
		uint32_t info, name;
		long extra;

		memcpy(&name, q, 4);
		memcpy(&info, q + 4, 4);
		if ((extra = ft_btf_extra(info)) == -1 ||
		    q + 12 + extra > bt.bt_end)
			break;
		if (bt.bt_n >= cap) {
			const uint8_t **v;

			cap = cap ? cap * 2 : 65536;
			if ((v = realloc(bt.bt_byid, cap * sizeof(*v))) ==
			    NULL) {
				free(bt.bt_byid);
				return;
			}
			bt.bt_byid = v;
		}
		if (task == 0 && ((info >> 24) & 0x1f) == FT_BTF_STRUCT &&
		    strcmp(ft_btf_str(&bt, name), "task_struct") == 0)
			task = bt.bt_n;
		bt.bt_byid[bt.bt_n++] = q;
		q += 12 + extra;
	}
	if (task == 0) {
		free(bt.bt_byid);
		return;
	}
	o->bo_fsbase = ft_btf_path(&bt, task, "thread.fsbase", &id);
	/* the credentials: the uids and gids in a row, as the kernel has */
	if ((off = ft_btf_path(&bt, task, "real_cred", &id)) != -1 &&
	    (cred = ft_btf_resolve(&bt, id, 1)) != 0 &&
	    (uid = ft_btf_path(&bt, cred, "uid", &id)) != -1) {
		for (i = 1; i < 8; i++)
			if (ft_btf_path(&bt, cred, ids[i], &id) != uid + 4 * i)
				break;
		if (i == 8 && (o->bo_capprm = ft_btf_path(&bt, cred,
		    "cap_permitted", &id)) != -1) {
			o->bo_cred = off;
			o->bo_uid = uid;
		} else
			o->bo_capprm = -1;
	}
	/* the process's name: its main thread's comm */
	if ((off = ft_btf_path(&bt, task, "group_leader", &id)) != -1 &&
	    (o->bo_comm = ft_btf_path(&bt, task, "comm", &id)) != -1)
		o->bo_leader = off;
	else
		o->bo_comm = -1;
	if ((off = ft_btf_path(&bt, task, "mm", &id)) != -1 &&
	    (mm = ft_btf_resolve(&bt, id, 1)) != 0 &&
	    (o->bo_mmflags = ft_btf_path(&bt, mm, "flags", &id)) != -1) {
		o->bo_mm = off;
		o->bo_argstart = ft_btf_path(&bt, mm, "arg_start", &id);
		o->bo_argend = ft_btf_path(&bt, mm, "arg_end", &id);
	}
	/* a task's ids (the tgid right after the pid), how it ends */
	if ((off = ft_btf_path(&bt, task, "pid", &id)) != -1 &&
	    ft_btf_path(&bt, task, "tgid", &id) == off + 4)
		o->bo_pid = off;
	o->bo_parent = ft_btf_path(&bt, task, "real_parent", &id);
	o->bo_exitcode = ft_btf_path(&bt, task, "exit_code", &id);
	if ((off = ft_btf_path(&bt, task, "signal", &id)) != -1 &&
	    (sig = ft_btf_resolve(&bt, id, 1)) != 0 &&
	    (o->bo_grpexit = ft_btf_path(&bt, sig, "group_exit_code",
	    &id)) != -1)
		o->bo_signal = off;
	free(bt.bt_byid);
}

static ft_btfoffs_t	ft_btf_found;
static pthread_once_t	ft_btf_once = PTHREAD_ONCE_INIT;

static void
ft_btf_init(void)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	ft_btf_found.bo_fsbase = ft_btf_found.bo_cred = -1;
	ft_btf_found.bo_uid = ft_btf_found.bo_capprm = -1;
	ft_btf_found.bo_mm = ft_btf_found.bo_mmflags = -1;
	ft_btf_found.bo_leader = ft_btf_found.bo_comm = -1;
	ft_btf_found.bo_pid = ft_btf_found.bo_exitcode = -1;
	ft_btf_found.bo_parent = -1;
	ft_btf_found.bo_argstart = ft_btf_found.bo_argend = -1;
	ft_btf_found.bo_signal = ft_btf_found.bo_grpexit = -1;
	if ((fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC)) ==
	    -1)
		return;
	for (;;) {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 1 << 22;
			if ((nb = realloc(buf, cap)) == NULL)
				break;
			buf = nb;
		}
		if ((n = read(fd, buf + len, cap - len)) <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf != NULL)
		ft_btf_parse(buf, len, &ft_btf_found);
	free(buf);
}

/* The offsets, found at the first call; -1 where unknown. */
const ft_btfoffs_t *
ft_btf_offs(void)
{
	pthread_once(&ft_btf_once, ft_btf_init);
	return &ft_btf_found;
}

long
ft_btf_fsbase_off(void)
{
	return ft_btf_offs()->bo_fsbase;
}
