/*
 * prefetch.h: the prefetches a schedule asks for ("prefetch X at L from
 * F N"), lowered to prefetch statements of the scop.
 */
#ifndef EIN_SCHED_PREFETCH_H
#define EIN_SCHED_PREFETCH_H

#include "ein.h"
#include "sched/schedule.h"

/* The bytes of a cache line, the unit of a prefetch (x86-64, and the
 * AArch64 cores ein targets). */
#define EIN_CACHE_LINE 64

/* For every prefetch a loop of "s" asks for (struct ein_local of kind
 * EIN_LOCAL_PREFETCH), add to the scop a statement that prefetches one
 * element per cache line of the tile and place it in the loop (before
 * the statements there).  Reports an error (at the directive) if the
 * "from" loop is no longer the loop or one around it.  Returns 0, or -1
 * on error. */
int ein_sched_prefetch_lower(ein_ctx *ctx, struct ein_schedule *s);

#endif
