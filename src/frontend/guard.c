/*
 * guard.c: affine conditions as isl sets, and the guard of each access.
 */
#include <isl/aff.h>
#include <isl/local_space.h>
#include "poly/affine.h"
#include "frontend/guard.h"

/* { I : a(I) op b(I) } for comparison "op". */
static isl_set *compare(enum ein_op op, __isl_take isl_pw_aff *a,
	__isl_take isl_pw_aff *b)
{
	switch (op) {
	case EIN_OP_LT: return isl_pw_aff_lt_set(a, b);
	case EIN_OP_LE: return isl_pw_aff_le_set(a, b);
	case EIN_OP_GT: return isl_pw_aff_gt_set(a, b);
	case EIN_OP_GE: return isl_pw_aff_ge_set(a, b);
	case EIN_OP_EQ: return isl_pw_aff_eq_set(a, b);
	default: return isl_pw_aff_ne_set(a, b);
	}
}

/* Where the quasi-affine "x" is non-zero. */
static isl_set *nonzero(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *x)
{
	isl_pw_aff *pa = ein_affine_from_expr(ctx, space, x);
	isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));

	return isl_pw_aff_ne_set(pa, isl_pw_aff_zero_on_domain(ls));
}

static isl_set *logical(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *cond)
{
	isl_set *a = ein_guard_from_cond(ctx, space, cond->args[0]);
	isl_set *b = a ? ein_guard_from_cond(ctx, space, cond->args[1]) : NULL;

	if (!a || !b) {
		isl_set_free(a);
		return NULL;
	}
	if (cond->op == EIN_OP_AND)
		return isl_set_intersect(a, b);
	return isl_set_union(a, b);
}

__isl_give isl_set *ein_guard_from_cond(ein_ctx *ctx,
	__isl_keep isl_space *space, const struct ein_ast_expr *cond)
{
	isl_set *set;

	if (cond->kind == EIN_EXPR_UNARY && cond->op == EIN_OP_NOT) {
		set = ein_guard_from_cond(ctx, space, cond->args[0]);
		return set ? isl_set_complement(set) : NULL;
	}
	if (cond->kind == EIN_EXPR_BINARY &&
	    (cond->op == EIN_OP_AND || cond->op == EIN_OP_OR))
		return logical(ctx, space, cond);
	if (cond->kind == EIN_EXPR_BINARY && cond->op >= EIN_OP_LT) {
		if (!ein_affine_is_quasi_affine(cond->args[0]) ||
		    !ein_affine_is_quasi_affine(cond->args[1]))
			return NULL;
		return compare(cond->op,
			ein_affine_from_expr(ctx, space, cond->args[0]),
			ein_affine_from_expr(ctx, space, cond->args[1]));
	}
	if (ein_affine_is_quasi_affine(cond))
		return nonzero(ctx, space, cond);
	return NULL;
}

/* "guard" (kept, NULL for none) restricted to "cond" (taken, NULL when
 * not affine, which restricts nothing). */
static isl_set *restrict_guard(__isl_keep isl_set *guard,
	__isl_take isl_set *cond)
{
	if (!cond)
		return guard ? isl_set_copy(guard) : NULL;
	if (!guard)
		return cond;
	return isl_set_intersect(isl_set_copy(guard), cond);
}

static int foreach(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *expr, __isl_keep isl_set *guard,
	ein_guard_fn fn, void *user);

/* The accesses of "c ? a : b": those of c under "guard", those of a
 * where c also holds, those of b where it does not. */
static int foreach_select(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *expr, __isl_keep isl_set *guard,
	ein_guard_fn fn, void *user)
{
	isl_set *cond, *then, *other;
	int ok;

	if (foreach(ctx, space, expr->args[0], guard, fn, user) < 0)
		return -1;
	cond = ein_guard_from_cond(ctx, space, expr->args[0]);
	other = cond ? isl_set_complement(isl_set_copy(cond)) : NULL;
	then = restrict_guard(guard, cond);
	other = restrict_guard(guard, other);
	ok = foreach(ctx, space, expr->args[1], then, fn, user);
	if (ok == 0)
		ok = foreach(ctx, space, expr->args[2], other, fn, user);
	isl_set_free(then);
	isl_set_free(other);
	return ok;
}

static int foreach(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *expr, __isl_keep isl_set *guard,
	ein_guard_fn fn, void *user)
{
	int i;

	if (expr->kind == EIN_EXPR_SELECT)
		return foreach_select(ctx, space, expr, guard, fn, user);
	if (expr->kind == EIN_EXPR_ACCESS &&
	    fn(expr, guard ? isl_set_copy(guard) : NULL, user) < 0)
		return -1;
	for (i = 0; i < expr->n_arg; ++i)
		if (foreach(ctx, space, expr->args[i], guard, fn, user) < 0)
			return -1;
	return 0;
}

int ein_guard_foreach_access(ein_ctx *ctx, __isl_keep isl_space *space,
	const struct ein_ast_expr *expr, ein_guard_fn fn, void *user)
{
	return foreach(ctx, space, expr, NULL, fn, user);
}
