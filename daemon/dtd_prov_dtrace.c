/*
 * dtd_prov_dtrace.c: the dtrace provider, dtrace:::BEGIN, END and ERROR.
 * They fire for one consumer at a time, from dtd_consumer.c (GO, STOP)
 * and dtd_ecb.c (a fault), so enabling them needs nothing.
 */
#include <string.h>

#include "dtd.h"

static int	dtd_prov_dtrace_init(void);

const dtd_provider_t dtd_prov_dtrace = {
	.dpv_name = "dtrace",
	.dpv_init = dtd_prov_dtrace_init,
};

static int
dtd_prov_dtrace_init(void)
{
	static const char *names[] = { "BEGIN", "END", "ERROR" };
	static const uint32_t ids[] = {
		DTD_PROBE_BEGIN, DTD_PROBE_END, DTD_PROBE_ERROR
	};
	dtd_probe_t *p;
	size_t i;

	for (i = 0; i < 3; i++) {
		if ((p = dtd_probe_create(&dtd_prov_dtrace, "", "", names[i],
		    NULL)) == NULL)
			return -1;
		if (p->dpr_id != ids[i])
			fatalx("%s: dtrace:::%s got id %u", __func__, names[i],
			    p->dpr_id);
	}
	return 0;
}
