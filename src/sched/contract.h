/*
 * contract.h: storage contraction of temporaries that a schedule computes
 * where they are used (compute_at).
 */
#ifndef EIN_SCHED_CONTRACT_H
#define EIN_SCHED_CONTRACT_H

#include "ein.h"
#include "sched/schedule.h"

/* Store each temporary of s's scop whose values are produced and used
 * within one iteration of a loop (the deepest such loop with no parallel
 * loop inside) in a buffer for one iteration's elements, and redirect
 * its accesses there (scop.h, storage).  "s" must be legal and final:
 * its local buffers lowered (pack.h).  Returns -1 (an internal error) on
 * failure. */
int ein_sched_contract(ein_ctx *ctx, struct ein_schedule *s);

#endif
