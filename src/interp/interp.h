/*
 * interp.h: the reference interpreter, which every compiled kernel is
 * checked against.
 */
#ifndef EIN_INTERP_INTERP_H
#define EIN_INTERP_INTERP_H

#include <stdint.h>
#include "ein.h"
#include "frontend/sema.h"

/* Run "func" at the size values "sizes" (one per func->size).  data[t]
 * holds tensor t of func as a dense row-major array of doubles for the
 * inputs and outputs (outputs start from their contents, which matters
 * for "+=" without "!"); temporaries are allocated here and data[t] of a
 * temporary is ignored.  Returns -1 on error. */
int ein_interp_run(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, double **data);

/* The number of floating-point operations "func" performs at "sizes":
 * each arithmetic operation or function call of a right-hand side, and
 * each reduction step, times the number of instances, counted without
 * visiting them (poly/count.h).  *exact (if not NULL) is 0 when a number
 * of instances was estimated.  -1 on error. */
double ein_interp_count_flops(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, int *exact);

/* The same count with the operations on integer values read from
 * tensors included (an int8 product, its int32 accumulation), but not
 * index arithmetic or a guard's comparisons: what a GOP/s figure counts. */
double ein_interp_count_ops(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, int *exact);

#endif
