/*
 * range.h: range inference.
 */
#ifndef EIN_FRONTEND_RANGE_H
#define EIN_FRONTEND_RANGE_H

#include <isl/space.h>
#include <isl/point.h>
#include "ein.h"
#include "frontend/sema.h"

/* Give every statement of "func" its iteration domain and every tensor
 * whose shape is not declared its shape.  Returns -1 after reporting an
 * error (an index without a range, an empty domain, a tensor whose shape
 * cannot be inferred). */
int ein_range_infer(ein_ctx *ctx, struct ein_func *func);

/* The set space of statement "pos" of func: parameters for the sizes, one
 * named dimension per index, tuple "S<pos>". */
__isl_give isl_space *ein_func_stmt_space(ein_ctx *ctx,
	const struct ein_func *func, int pos);

/* Append a hint giving the values of the sizes and indices at "pnt", a
 * point where something goes wrong. */
void ein_range_hint_witness(ein_ctx *ctx, __isl_take isl_point *pnt);

#endif
