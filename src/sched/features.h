/*
 * features.h: what the cost model knows of a schedule (issue 23): a fixed
 * vector of numbers describing (definition, schedule, target) at known
 * sizes, computed from the polyhedral model.
 *
 * Most features describe the main statement, the computation with the
 * most instances (an update before its initialisation, never a copy): the
 * one whose loops decide the speed.  Its loops are looked at from the
 * innermost: the "tile at level L" is the set of its instances run by one
 * iteration of the loops outside its innermost L loops, the first such
 * iteration (the outer loops' values at their lexicographic minimum).
 * For L = 1 .. 4 the features give the bytes of the distinct elements
 * the tile accesses (the footprint, counted exactly by isl:
 * poly/count.h, each tensor once however many accesses name it) and the
 * reuse (instances per element accessed).  The trips of the innermost
 * loops are ratios of the sizes of successive tiles.
 *
 * Sizes are fixed ("sizes", in the order of func->size), so every feature
 * is a number; the same inputs give the same numbers.  Counts enter as
 * log2(1 + x), so that the features of a kernel at two sizes differ by
 * about the same amount as the sizes' logarithms.
 */
#ifndef EIN_SCHED_FEATURES_H
#define EIN_SCHED_FEATURES_H

#include <stdint.h>
#include "ein.h"
#include "frontend/sema.h"
#include "sched/file.h"
#include "sched/schedule.h"

/* The features, in the order of the vector.  The numbers are part of
 * the cost model's file format (autotune/model/cost_model.json names
 * them): add new ones at the end, and retrain. */
enum ein_feature {
	EIN_FEATURE_LOG_FLOPS = 0,	/* the definition's flops */
	EIN_FEATURE_LOG_BYTES = 1,	/* the bytes of all its tensors */
	EIN_FEATURE_INTENSITY = 2,	/* flops per byte of its tensors */
	EIN_FEATURE_N_STMT = 3,		/* source statements */
	EIN_FEATURE_N_LOOP = 4,		/* the main statement's loops */
	EIN_FEATURE_FOOTPRINT_1 = 5,	/* footprint bytes of tile level 1 */
	EIN_FEATURE_REUSE_1 = 6,	/* log2(instances / elements) there */
	EIN_FEATURE_FOOTPRINT_2 = 7,
	EIN_FEATURE_REUSE_2 = 8,
	EIN_FEATURE_FOOTPRINT_3 = 9,
	EIN_FEATURE_REUSE_3 = 10,
	EIN_FEATURE_FOOTPRINT_4 = 11,
	EIN_FEATURE_REUSE_4 = 12,
	EIN_FEATURE_TRIP_1 = 13,	/* trip of the innermost loop */
	EIN_FEATURE_TRIP_2 = 14,	/* of the next one out */
	EIN_FEATURE_TRIP_3 = 15,
	EIN_FEATURE_VECTOR = 16,	/* the vector width asked for, 0 none */
	EIN_FEATURE_VECTOR_INNER = 17,	/* the vector loop is the innermost */
	EIN_FEATURE_CONTIGUOUS = 18,	/* share of accesses stride-1 ... */
	EIN_FEATURE_INVARIANT = 19,	/* ... invariant ... */
	EIN_FEATURE_STRIDED = 20,	/* ... other, along the innermost loop */
	EIN_FEATURE_UNROLL = 21,	/* product of unroll factors */
	EIN_FEATURE_PARALLEL_TRIP = 22,	/* trip of the outermost parallel loop */
	EIN_FEATURE_PARALLEL_DEPTH = 23, /* its depth (0 outermost), -1 none */
	EIN_FEATURE_N_FUSED = 24,	/* statements in the main one's outer loop */
	EIN_FEATURE_N_PACK = 25,	/* packed operands */
	EIN_FEATURE_N_ACCUMULATE = 26,	/* accumulated tiles */
	EIN_FEATURE_N_PREFETCH = 27,
	EIN_FEATURE_STREAM = 28,	/* non-temporal stores asked for */
	EIN_FEATURE_SHARE_VECTOR = 29,	/* share of statements vectorised */
	EIN_FEATURE_SHARE_PARALLEL = 30, /* share with a parallel loop */
	EIN_FEATURE_VECTOR_BYTES = 31,	/* the target's vector register */
	EIN_FEATURE_REDUCTION_INNER = 32, /* innermost loop is a reduction */
	EIN_FEATURE_ACC_REGISTERS = 33,	/* share of the vector registers
					 * its accumulated tiles take */
	EIN_FEATURES_N = 34
};

/* The name of feature "i" ("log_flops", ...), NULL out of range. */
const char *ein_features_name(int i);

/* The features of schedule "s" (as applied: its scop extended with the
 * buffers and copies of pack and accumulate) of "func" at "sizes", on
 * "target" ("x86_64-avx512", ...), into f[0 .. EIN_FEATURES_N - 1].
 * Returns -1 on error (with a message on ctx). */
int ein_features_of_schedule(ein_ctx *ctx, const struct ein_func *func,
	struct ein_schedule *s, const int64_t *sizes, const char *target,
	double *f);

/* What the features of several schedules of one definition at one set
 * of sizes share: the counts of the sets they count (a candidate that
 * changes one statement's loops leaves the others' sets as they were)
 * and the definition's own features.  Scoring candidates with one memo
 * counts each set once; the numbers are those computed without it. */
struct ein_features_memo;

struct ein_features_memo *ein_features_memo_alloc(void);
void ein_features_memo_free(struct ein_features_memo *memo);
/* ein_features_of_schedule with "memo" (NULL: none), which must serve
 * only "func" at "sizes". */
int ein_features_of_schedule_memo(ein_ctx *ctx, const struct ein_func *func,
	struct ein_schedule *s, const int64_t *sizes, const char *target,
	struct ein_features_memo *memo, double *f);

/* The features of "file" (NULL: the default schedule) applied to "func"
 * at "sizes" on "target" (checked as ein_sched_apply does, with
 * "strict").  Returns -1 if the file does not apply (its messages on
 * ctx) or on error. */
int ein_features_compute(ein_ctx *ctx, const struct ein_func *func,
	__isl_keep struct ein_sched_file *file, const int64_t *sizes,
	const char *target, int strict, double *f);

#endif
