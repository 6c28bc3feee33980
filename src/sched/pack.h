/*
 * pack.h: the local buffers that pack and accumulate ask for, made into
 * buffers and copy statements of the scop.
 */
#ifndef EIN_SCHED_PACK_H
#define EIN_SCHED_PACK_H

#include "ein.h"
#include "sched/schedule.h"

/* For every local buffer a loop of "s" asks for (struct ein_local), add
 * to s's scop a buffer and its copy statements, place the copies in the
 * loop, and redirect the statement's accesses to the buffer.  "s" must be
 * legal (sched/apply.c checks that nothing else in the loop writes a
 * packed tensor or touches an accumulated one).  Returns -1 (an internal
 * error) on failure. */
int ein_sched_pack_lower(ein_ctx *ctx, struct ein_schedule *s);

#endif
