/*
 * recompute.h: "compute_at ... recompute" lowered to a statement that runs
 * in every iteration that needs its values.
 */
#ifndef EIN_SCHED_RECOMPUTE_H
#define EIN_SCHED_RECOMPUTE_H

#include "ein.h"
#include "sched/schedule.h"

/* Give every statement of "s" marked recompute (schedule.h) the domain
 * { [v, t] }: the instances t that its target reads in iteration v of the
 * levels it shares with it, so that each iteration computes them all.
 * "s" must be legal, with the statement placed as a store.  Returns -1
 * (an internal error) on failure. */
int ein_sched_recompute_lower(ein_ctx *ctx, struct ein_schedule *s);

#endif
