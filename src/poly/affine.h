/*
 * affine.h: index expressions of the source as isl piecewise quasi-affine
 * functions.
 */
#ifndef EIN_POLY_AFFINE_H
#define EIN_POLY_AFFINE_H

#include <isl/space.h>
#include <isl/aff.h>
#include "ein.h"
#include "frontend/ast.h"

/* Convert "expr", a resolved index expression of a statement, into an
 * isl_pw_aff on "space", the statement's set space (one set dimension per
 * index, one parameter per size, in their slot order).  Integer division
 * and remainder round towards minus infinity.  Returns NULL after reporting
 * an error at the offending node when "expr" is not quasi-affine. */
__isl_give isl_pw_aff *ein_affine_from_expr(ein_ctx *ctx,
	__isl_keep isl_space *space, const struct ein_ast_expr *expr);

/* Is "expr" a resolved quasi-affine expression that ein_affine_from_expr
 * converts without error? */
int ein_affine_is_quasi_affine(const struct ein_ast_expr *expr);

#endif
