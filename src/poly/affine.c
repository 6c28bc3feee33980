/*
 * affine.c: source index expressions to isl_pw_aff.
 *
 * Quasi-affine means sums of index variables and sizes times integer
 * constants, and floor division or remainder by a positive integer
 * constant: exactly what isl represents without approximation.
 */
#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/val.h>
#include "diag.h"
#include "poly/affine.h"

static isl_pw_aff *constant(isl_space *space, int64_t v)
{
	isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
	isl_val *val = isl_val_int_from_si(isl_space_get_ctx(space), v);

	return isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, val));
}

static isl_pw_aff *variable(isl_space *space, enum isl_dim_type type, int pos)
{
	isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));

	return isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, type, pos));
}

static isl_pw_aff *not_affine(ein_ctx *ctx, const struct ein_ast_expr *expr,
	const char *why)
{
	ein_error_at(ctx, expr->loc, "index expression is not affine: %s", why);
	return NULL;
}

/* "expr" is the constant divisor or factor of a quasi-affine operation:
 * return its value in *v. */
static int constant_operand(const struct ein_ast_expr *expr, int64_t *v)
{
	if (expr->kind == EIN_EXPR_INT) {
		*v = expr->ival;
		return 1;
	}
	if (expr->kind == EIN_EXPR_UNARY && expr->op == EIN_OP_NEG &&
	    expr->args[0]->kind == EIN_EXPR_INT) {
		*v = -expr->args[0]->ival;
		return 1;
	}
	return 0;
}

static isl_pw_aff *convert_mul(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *expr)
{
	int64_t v;
	int c = constant_operand(expr->args[0], &v) ? 0 : 1;
	isl_pw_aff *pa;

	if (!constant_operand(expr->args[c], &v))
		return not_affine(ctx, expr, "a product needs a constant "
			"factor");
	pa = ein_affine_from_expr(ctx, space, expr->args[1 - c]);
	return isl_pw_aff_scale_val(pa,
		isl_val_int_from_si(isl_space_get_ctx(space), v));
}

/* Floor division or remainder by a positive constant. */
static isl_pw_aff *convert_div(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *expr)
{
	int64_t v;
	isl_pw_aff *pa;
	isl_val *d;

	if (!constant_operand(expr->args[1], &v) || v <= 0)
		return not_affine(ctx, expr->args[1], "the divisor must be a "
			"positive integer constant");
	pa = ein_affine_from_expr(ctx, space, expr->args[0]);
	d = isl_val_int_from_si(isl_space_get_ctx(space), v);
	if (expr->op == EIN_OP_MOD)
		return isl_pw_aff_mod_val(pa, d);
	return isl_pw_aff_floor(isl_pw_aff_scale_down_val(pa, d));
}

static isl_pw_aff *convert_binary(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *expr)
{
	isl_pw_aff *a, *b;

	switch (expr->op) {
	case EIN_OP_MUL:
		return convert_mul(ctx, space, expr);
	case EIN_OP_DIV:
	case EIN_OP_MOD:
		return convert_div(ctx, space, expr);
	case EIN_OP_ADD:
	case EIN_OP_SUB:
		a = ein_affine_from_expr(ctx, space, expr->args[0]);
		b = ein_affine_from_expr(ctx, space, expr->args[1]);
		if (expr->op == EIN_OP_ADD)
			return isl_pw_aff_add(a, b);
		return isl_pw_aff_sub(a, b);
	default:
		return not_affine(ctx, expr, "only +, -, * by a constant, / "
			"and % by a constant are allowed in indices");
	}
}

__isl_give isl_pw_aff *ein_affine_from_expr(ein_ctx *ctx,
	__isl_keep isl_space *space, const struct ein_ast_expr *expr)
{
	switch (expr->kind) {
	case EIN_EXPR_INT:
		return constant(space, expr->ival);
	case EIN_EXPR_IDENT:
		if (expr->ident_kind == EIN_IDENT_INDEX)
			return variable(space, isl_dim_set, expr->slot);
		if (expr->ident_kind == EIN_IDENT_SIZE)
			return variable(space, isl_dim_param, expr->slot);
		return NULL;
	case EIN_EXPR_UNARY:
		if (expr->op == EIN_OP_NEG)
			return isl_pw_aff_neg(ein_affine_from_expr(ctx, space,
				expr->args[0]));
		break;
	case EIN_EXPR_BINARY:
		return convert_binary(ctx, space, expr);
	default:
		break;
	}
	return not_affine(ctx, expr, "only integers, index variables and "
		"sizes combined by +, -, *, / and % may index a tensor");
}

int ein_affine_is_quasi_affine(const struct ein_ast_expr *expr)
{
	int64_t v;

	switch (expr->kind) {
	case EIN_EXPR_INT:
		return 1;
	case EIN_EXPR_IDENT:
		return expr->ident_kind != EIN_IDENT_UNRESOLVED;
	case EIN_EXPR_UNARY:
		return expr->op == EIN_OP_NEG &&
			ein_affine_is_quasi_affine(expr->args[0]);
	case EIN_EXPR_BINARY:
		break;
	default:
		return 0;
	}
	switch (expr->op) {
	case EIN_OP_ADD:
	case EIN_OP_SUB:
		return ein_affine_is_quasi_affine(expr->args[0]) &&
			ein_affine_is_quasi_affine(expr->args[1]);
	case EIN_OP_MUL:
		return (constant_operand(expr->args[0], &v) &&
			ein_affine_is_quasi_affine(expr->args[1])) ||
			(constant_operand(expr->args[1], &v) &&
			ein_affine_is_quasi_affine(expr->args[0]));
	case EIN_OP_DIV:
	case EIN_OP_MOD:
		return constant_operand(expr->args[1], &v) && v > 0 &&
			ein_affine_is_quasi_affine(expr->args[0]);
	default:
		return 0;
	}
}
