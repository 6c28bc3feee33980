/*
 * apply.h: a schedule file's directives applied to a definition's
 * schedule, each proven legal against the dependences.
 */
#ifndef EIN_SCHED_APPLY_H
#define EIN_SCHED_APPLY_H

#include "ein.h"
#include "poly/deps.h"
#include "sched/file.h"
#include "sched/schedule.h"

/* Apply the directives of "file" to "s" in order.  After each one, the
 * schedule must still run every dependence's source before its sink
 * (reductions may be reordered unless "strict"), and no loop marked
 * parallel (or vectorised) may carry a dependence (a reduction, for a
 * vectorised loop, unless "strict").  Returns -1 after reporting, at the
 * directive, the first one that is malformed or illegal. */
int ein_sched_apply(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, const struct ein_sched_file *file,
	int strict);
/* ein_sched_apply without the storage contraction of temporaries
 * (contract.h), which chooses where values are stored and never rejects
 * a schedule: the same verdict, for a caller that only asks whether
 * "file" applies (the automatic schedule's candidates). */
int ein_sched_apply_check(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, const struct ein_sched_file *file,
	int strict);

/* Apply the directives of "file" for an OpenCL target: split, tile,
 * reorder and unroll as ein_sched_apply does, gpu_blocks and gpu_threads
 * (gpu_map.h), each mapped loop checked as a parallel one, "local A at
 * L" (a pack into the work-group's __local memory, L between the blocks'
 * and the threads' loops) and "accumulate L" (in a work-item's private
 * memory, L at or inside the innermost thread loop), each checked as
 * pack and accumulate are and lowered (sched/pack.h) to buffers of
 * constant size; "vectorize" of a loop a work-item runs, checked as on
 * the CPU (with "strict", no reduction along it: OpenCL C's vectors of a
 * reduction would reassociate it); any other directive is an error
 * naming it.  A mapped loop carries no dependence, reductions included.
 * Returns -1 after reporting. */
int ein_sched_apply_gpu(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, const struct ein_sched_file *file,
	int strict);
/* Check that "s" respects "deps" as ein_sched_apply does; for schedules
 * built without a file.  Returns -1 (an internal error) if not. */
int ein_sched_check(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, int strict);

#endif
