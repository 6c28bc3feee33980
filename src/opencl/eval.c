/*
 * eval.c: isl's integer expressions evaluated on the host for given sizes
 * (emit.h, ein_ocl_eval): the grid's extents and the temporaries' sizes.
 */
#include <string.h>
#include <isl/val.h>
#include "opencl/emit.h"

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* The operation "op" on the "n" values "a" in *v; -1 if unknown or a
 * division by zero. */
static int eval_op(enum isl_ast_expr_op_type op, int n, const int64_t *a,
	int64_t *v)
{
	int i;

	if ((op == isl_ast_expr_op_div || op == isl_ast_expr_op_fdiv_q ||
	     op == isl_ast_expr_op_pdiv_q || op == isl_ast_expr_op_pdiv_r ||
	     op == isl_ast_expr_op_zdiv_r) && (n < 2 || a[1] == 0))
		return -1;
	switch (op) {
	case isl_ast_expr_op_max:
	case isl_ast_expr_op_min:
		*v = a[0];
		for (i = 1; i < n; ++i)
			if ((op == isl_ast_expr_op_max) == (a[i] > *v))
				*v = a[i];
		return 0;
	case isl_ast_expr_op_minus: *v = -a[0]; return 0;
	case isl_ast_expr_op_add: *v = a[0] + a[1]; return 0;
	case isl_ast_expr_op_sub: *v = a[0] - a[1]; return 0;
	case isl_ast_expr_op_mul: *v = a[0] * a[1]; return 0;
	case isl_ast_expr_op_div:
	case isl_ast_expr_op_pdiv_q: *v = a[0] / a[1]; return 0;
	case isl_ast_expr_op_fdiv_q: *v = floor_div(a[0], a[1]); return 0;
	case isl_ast_expr_op_pdiv_r:
	case isl_ast_expr_op_zdiv_r: *v = a[0] % a[1]; return 0;
	case isl_ast_expr_op_and:
	case isl_ast_expr_op_and_then: *v = a[0] && a[1]; return 0;
	case isl_ast_expr_op_or:
	case isl_ast_expr_op_or_else: *v = a[0] || a[1]; return 0;
	case isl_ast_expr_op_eq: *v = a[0] == a[1]; return 0;
	case isl_ast_expr_op_le: *v = a[0] <= a[1]; return 0;
	case isl_ast_expr_op_lt: *v = a[0] < a[1]; return 0;
	case isl_ast_expr_op_ge: *v = a[0] >= a[1]; return 0;
	case isl_ast_expr_op_gt: *v = a[0] > a[1]; return 0;
	case isl_ast_expr_op_cond:
	case isl_ast_expr_op_select: *v = a[0] ? a[1] : a[2]; return 0;
	default: return -1;
	}
}

/* The size named by "id", -1 if it names none. */
static int eval_id(const struct ein_scop *scop, __isl_keep isl_id *id,
	const int64_t *sizes, int64_t *v)
{
	const char *name = isl_id_get_name(id);
	int i;

	for (i = 0; name && i < scop->func->n_size; ++i)
		if (!strcmp(scop->func->size[i], name)) {
			*v = sizes[i];
			return 0;
		}
	return -1;
}

int ein_ocl_eval(const struct ein_scop *scop, __isl_keep isl_ast_expr *expr,
	const int64_t *sizes, int64_t *v)
{
	int i, n, ok = 0;
	isl_val *val;
	isl_id *id;

	switch (isl_ast_expr_get_type(expr)) {
	case isl_ast_expr_int:
		val = isl_ast_expr_int_get_val(expr);
		ok = val && isl_val_is_int(val) ? 0 : -1;
		*v = ok == 0 ? isl_val_get_num_si(val) : 0;
		isl_val_free(val);
		return ok;
	case isl_ast_expr_id:
		id = isl_ast_expr_id_get_id(expr);
		ok = id ? eval_id(scop, id, sizes, v) : -1;
		isl_id_free(id);
		return ok;
	case isl_ast_expr_op:
		break;
	default:
		return -1;
	}
	n = isl_ast_expr_op_get_n_arg(expr);
	if (n < 1 || n > 8)
		return -1;
	{
		int64_t a[8];

		for (i = 0; ok == 0 && i < n; ++i) {
			isl_ast_expr *arg = isl_ast_expr_op_get_arg(expr, i);

			ok = arg ? ein_ocl_eval(scop, arg, sizes, &a[i]) : -1;
			isl_ast_expr_free(arg);
		}
		return ok == 0 ? eval_op(isl_ast_expr_op_get_type(expr), n,
			a, v) : -1;
	}
}
