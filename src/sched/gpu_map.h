/*
 * gpu_map.h: loops of a schedule mapped to an OpenCL device's grid, the
 * gpu_blocks and gpu_threads directives and the default GPU mapping.
 *
 * A mapped loop carries gpu_block or gpu_thread in its attributes
 * (schedule.h); the OpenCL emitter (opencl/emit.c) runs a block loop
 * across work-groups and a thread loop across the work-items of a group.
 * Only a loop that carries no dependence (a reduction included) may be
 * mapped: apply.c checks the marks as it checks parallel loops.  The
 * shape of a kernel is kept simple so that every mapping runs each
 * statement instance exactly once:
 *
 *	for b0 (gpu_blocks)          the statement's outermost loops,
 *	  for b1 (gpu_blocks)        then
 *	    for s (sequential)       loops all the work-items of a group run
 *	                             (none by default), each iteration ended
 *	                             by a barrier, where "local" copies a tile
 *	                             into __local memory between barriers,
 *	      for t0 (gpu_threads)   then the threads' loops, next to each
 *	                             other,
 *	        ... sequential loops then everything else, in one work-item
 *
 * and a mapped statement shares no loop with another (but the copies of
 * its "local" and "accumulate" buffers).
 */
#ifndef EIN_SCHED_GPU_MAP_H
#define EIN_SCHED_GPU_MAP_H

#include "ein.h"
#include "poly/deps.h"
#include "sched/file.h"
#include "sched/schedule.h"

/* The most loops mapped to blocks, or to threads, of one statement: the
 * dimensions of an OpenCL grid. */
#define EIN_GPU_MAX_DIM 3

/* Map the "n" loops "arg" of statement "stmt" of "s" to the grid's
 * work-groups (threads 0) or to the work-items of a group (threads 1),
 * the last one listed to dimension 0 (the fastest varying, so that
 * gpu_threads i.i j.i gives neighbouring j to neighbouring work-items).
 * Returns -1 after reporting, at the offending argument, a loop that is
 * not where the kernel's shape needs it or (threads) has no constant
 * trip count. */
int ein_sched_gpu_mark(ein_ctx *ctx, struct ein_schedule *s, int stmt,
	int threads, int n, const struct ein_sched_arg *arg);
/* Does any loop of statement "stmt" (-1: of any statement) map to the
 * grid? */
int ein_sched_gpu_is_mapped(const struct ein_schedule *s, int stmt);
/* The default mapping, PPCG's: for each statement placed in no other,
 * the outermost (at most two) of its loops that carry no dependence,
 * moved to the front where that keeps the schedule legal, are tiled,
 * the tiles mapped to work-groups and the points to work-items; the
 * rest, reductions included, runs in the work-item.  A statement whose
 * first loop carries a dependence runs in one work-item.  The result is
 * checked against "deps" (an internal error if illegal).  Returns -1 on
 * error. */
int ein_sched_gpu_default(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps);

#endif
