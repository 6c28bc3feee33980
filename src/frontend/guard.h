/*
 * guard.h: the conditions that guard accesses.
 *
 * In "c ? a : b" only the branch taken is evaluated, so an access in "a"
 * happens only where c holds and one in "b" only where it does not.  When
 * c is affine (comparisons of quasi-affine expressions of indices and
 * sizes, combined with &&, || and !), isl represents where it holds, and
 * range inference, the bounds check and the check of reads of temporaries
 * restrict each access to its guard.  A condition that depends on tensor
 * values restricts nothing.
 */
#ifndef EIN_FRONTEND_GUARD_H
#define EIN_FRONTEND_GUARD_H

#include <isl/space.h>
#include <isl/set.h>
#include "ein.h"
#include "frontend/ast.h"

/* The points of "space" (a statement's set space) where "cond" holds, or
 * NULL if cond is not affine (nothing is reported then). */
__isl_give isl_set *ein_guard_from_cond(ein_ctx *ctx,
	__isl_keep isl_space *space, const struct ein_ast_expr *cond);

/* Called on an access with its guard: NULL if no affine condition guards
 * it, else the set of points of the statement's space where it is
 * evaluated (taken).  A negative return stops the walk. */
typedef int (*ein_guard_fn)(const struct ein_ast_expr *access,
	__isl_take isl_set *guard, void *user);

/* Call "fn" on every access in "expr", in pre-order, with its guard.
 * Returns -1 if fn does. */
int ein_guard_foreach_access(ein_ctx *ctx, __isl_keep isl_space *space,
	const struct ein_ast_expr *expr, ein_guard_fn fn, void *user);

#endif
