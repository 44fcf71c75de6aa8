/*
 * dt_acts_proto.c: the action kinds as proto/dt_proto.h numbers them,
 * compiled apart from test_dt_acts.c, which sees libdtrace/dtrace.h's.
 */
#include "dt_proto.h"
#include "dt_acts.h"

extern const dt_act_name_t dt_acts_proto[];
const dt_act_name_t dt_acts_proto[] = { DT_ACTS(DT_ACT_ENTRY) };
