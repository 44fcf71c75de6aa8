/*
 * ft_btf.c: what fasttrap needs from the kernel's BTF
 * (/sys/kernel/btf/vmlinux), read by hand: the byte offset of a thread's
 * user %fs base in struct task_struct (thread.fsbase), so that the
 * uprobe capture program (ft_bpf.c) can read it with
 * bpf_get_current_task + bpf_probe_read_kernel: struct pt_regs has no
 * segment bases, and errno lives at %fs base + an offset.  Found once
 * per daemon; -1 if the kernel has no BTF or no such members.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ft.h"

#define	FT_BTF_MAGIC	0xeb9f
#define	FT_BTF_STRUCT	4
#define	FT_BTF_UNION	5
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

/* The bit offset of member name of the struct type id; -1, *idp its type */
static long
ft_btf_member(const struct ft_btf *bt, uint32_t id, const char *name,
    uint32_t *idp)
{
	const uint32_t *t, *m;
	uint32_t i, vlen, kind;

	/* through typedefs and qualifiers */
	for (i = 0; i < 16 && id != 0 && id < bt->bt_n; i++) {
		t = (const uint32_t *)(const void *)bt->bt_byid[id];
		kind = (t[1] >> 24) & 0x1f;
		if (kind != FT_BTF_TYPEDEF && kind != FT_BTF_VOLATILE &&
		    kind != FT_BTF_CONST && kind != FT_BTF_RESTRICT &&
		    kind != FT_BTF_TYPETAG)
			break;
		id = t[2];
	}
	if (id == 0 || id >= bt->bt_n)
		return -1;
	t = (const uint32_t *)(const void *)bt->bt_byid[id];
	kind = (t[1] >> 24) & 0x1f;
	if (kind != FT_BTF_STRUCT && kind != FT_BTF_UNION)
		return -1;
	vlen = t[1] & 0xffff;
	for (i = 0, m = t + 3; i < vlen; i++, m += 3) {
		if (strcmp(ft_btf_str(bt, m[0]), name) != 0)
			continue;
		*idp = m[1];
		/* kind_flag: the low 24 bits are the offset */
		return (long)(t[1] >> 31 ? m[2] & 0xffffff : m[2]);
	}
	return -1;
}

static long
ft_btf_fsbase(const uint8_t *buf, size_t len)
{
	struct ft_btf bt;
	const uint8_t *q;
	uint32_t hlen, toff, tlen, soff, slen, id, cap = 0, task = 0;
	long off, off2;

	if (len < 24 || *(const uint16_t *)(const void *)buf != FT_BTF_MAGIC)
		return -1;
	memcpy(&hlen, buf + 4, 4);
	memcpy(&toff, buf + 8, 4);
	memcpy(&tlen, buf + 12, 4);
	memcpy(&soff, buf + 16, 4);
	memcpy(&slen, buf + 20, 4);
	if (hlen > len || (uint64_t)hlen + toff + tlen > len ||
	    (uint64_t)hlen + soff + slen > len)
		return -1;
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
				return -1;
			}
			bt.bt_byid = v;
		}
		if (task == 0 && ((info >> 24) & 0x1f) == FT_BTF_STRUCT &&
		    strcmp(ft_btf_str(&bt, name), "task_struct") == 0)
			task = bt.bt_n;
		bt.bt_byid[bt.bt_n++] = q;
		q += 12 + extra;
	}
	off = -1;
	if (task != 0 &&
	    (off = ft_btf_member(&bt, task, "thread", &id)) != -1 &&
	    (off2 = ft_btf_member(&bt, id, "fsbase", &id)) != -1 &&
	    off % 8 == 0 && off2 % 64 == 0)
		off = (off + off2) / 8;
	else
		off = -1;
	free(bt.bt_byid);
	return off;
}

long
ft_btf_fsbase_off(void)
{
	static long off = -2;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	if (__atomic_load_n(&off, __ATOMIC_ACQUIRE) != -2)
		return off;
	if ((fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC)) !=
	    -1) {
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
	}
	n = buf != NULL ? ft_btf_fsbase(buf, len) : -1;
	free(buf);
	__atomic_store_n(&off, (long)n, __ATOMIC_RELEASE);
	return (long)n;
}
