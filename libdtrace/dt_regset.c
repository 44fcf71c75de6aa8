/*
 * dt_regset.c: the register allocator of the code generator.  %r0 reads
 * as zero and is never handed out; an expression that needs more live
 * values than there are registers is a compile error, as in illumos.
 */
#include "dt_impl.h"

void
dt_regset_init(dt_regset_t *drp, int nregs)
{
	drp->dr_nregs = nregs;
	drp->dr_busy = 1;	/* %r0 */
}

int
dt_regset_alloc(dt_pcb_t *pcb)
{
	dt_regset_t *drp = &pcb->pcb_regs;
	int r;

	for (r = 1; r < drp->dr_nregs; r++) {
		if (!(drp->dr_busy & (1u << r))) {
			drp->dr_busy |= 1u << r;
			return r;
		}
	}
	dt_parser_error(pcb, 0, D_REGS,
	    "Insufficient registers to generate code: expression too complex");
}

void
dt_regset_free(dt_pcb_t *pcb, int r)
{
	if (r > 0 && r < pcb->pcb_regs.dr_nregs)
		pcb->pcb_regs.dr_busy &= ~(1u << r);
}
