/*
 * interp.c: the reference interpreter.
 *
 * Plain and obviously correct rather than fast: statements run in source
 * order, each "!" initialisation first; each statement visits its domain in
 * the lexicographic order of its indices (left-hand side, then reductions),
 * exactly the sequential meaning of the source.  Every element is held in a
 * double; float expressions are evaluated in double precision, integer ones
 * exactly in int64 and wrapped to their type (int32, or the tensor's type
 * on a store) after each operation, which is two's complement
 * arithmetic.
 * The domains come from isl with the sizes fixed; a box (the usual case)
 * is enumerated by plain loops, anything else one index at a time with the
 * outer indices fixed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <isl/set.h>
#include <isl/ilp.h>
#include <isl/val.h>
#include <isl/aff.h>
#include "ctx.h"
#include "diag.h"
#include "frontend/type.h"
#include "interp/interp.h"
#include "poly/count.h"
#include "poly/specialize.h"

/* The state of one run.
 * func: what runs; sizes: the size values; data: one array per tensor;
 * extent: the extents of each tensor at these sizes;
 * stmt: the statement running; is_init: whether it is an initialisation;
 * idx: the values of its indices at the current instance. */
struct interp {
	ein_ctx *ctx;
	const struct ein_func *func;
	const int64_t *sizes;
	double **data;
	int64_t **extent;
	const struct ein_func_stmt *stmt;
	int is_init;
	int64_t idx[64];
};

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The value of integer index expression "x". */
static int64_t eval_index(const struct interp *in, const struct ein_ast_expr *x)
{
	int64_t a, b;

	switch (x->kind) {
	case EIN_EXPR_INT:
		return x->ival;
	case EIN_EXPR_IDENT:
		return x->ident_kind == EIN_IDENT_INDEX ? in->idx[x->slot] :
			in->sizes[x->slot];
	case EIN_EXPR_UNARY:
		return -eval_index(in, x->args[0]);
	default:
		break;
	}
	a = eval_index(in, x->args[0]);
	b = eval_index(in, x->args[1]);
	switch (x->op) {
	case EIN_OP_ADD: return a + b;
	case EIN_OP_SUB: return a - b;
	case EIN_OP_MUL: return a * b;
	case EIN_OP_DIV: return floor_div(a, b);
	default: return a - b * floor_div(a, b);
	}
}

/* The element of access "x", or NULL (after an internal error) if it is
 * out of bounds, which range inference should have made impossible. */
static double *element(struct interp *in, const struct ein_ast_expr *x)
{
	const int64_t *extent = in->extent[x->slot];
	int64_t off = 0;
	int d;

	for (d = 0; d < x->n_arg; ++d) {
		int64_t i = eval_index(in, x->args[d]);

		if (i < 0 || i >= extent[d]) {
			ein_internal(in->ctx, "reference: %s index %d is %lld, "
				"outside 0..%lld", x->name, d, (long long) i,
				(long long) extent[d] - 1);
			return NULL;
		}
		off = off * extent[d] + i;
	}
	return &in->data[x->slot][off];
}

static double eval_float(struct interp *in, const struct ein_ast_expr *x,
	int *ok);
static int64_t eval_int(struct interp *in, const struct ein_ast_expr *x,
	int *ok);

/* The value of "x" as a double, whatever its type. */
static double to_float(struct interp *in, const struct ein_ast_expr *x,
	int *ok)
{
	if (ein_type_is_float(x->vtype))
		return eval_float(in, x, ok);
	return (double) eval_int(in, x, ok);
}

/* Is the value of "x" non-zero (NaN counts as non-zero, as in C)? */
static int truth(struct interp *in, const struct ein_ast_expr *x, int *ok)
{
	if (ein_type_is_float(x->vtype))
		return eval_float(in, x, ok) != 0;
	return eval_int(in, x, ok) != 0;
}

static double eval_call(struct interp *in, const struct ein_ast_expr *x,
	int *ok)
{
	double a[3] = { 0, 0, 0 };
	int i;

	for (i = 0; i < x->n_arg && i < 3; ++i)
		a[i] = to_float(in, x->args[i], ok);
	return ein_builtin_get(x->fn)->eval(a);
}

static double float_binary(enum ein_op op, double a, double b)
{
	switch (op) {
	case EIN_OP_ADD: return a + b;
	case EIN_OP_SUB: return a - b;
	case EIN_OP_MUL: return a * b;
	case EIN_OP_DIV: return a / b;
	default: return fmod(a, b);
	}
}

static int compare(enum ein_op op, double a, double b)
{
	switch (op) {
	case EIN_OP_LT: return a < b;
	case EIN_OP_LE: return a <= b;
	case EIN_OP_GT: return a > b;
	case EIN_OP_GE: return a >= b;
	case EIN_OP_EQ: return a == b;
	default: return a != b;
	}
}

/* The value of float-typed "x"; *ok is cleared on error. */
static double eval_float(struct interp *in, const struct ein_ast_expr *x,
	int *ok)
{
	double *p;

	switch (x->kind) {
	case EIN_EXPR_INT:
		return (double) x->ival;
	case EIN_EXPR_FLOAT:
		return x->fval;
	case EIN_EXPR_ACCESS:
		p = element(in, x);
		if (!p)
			*ok = 0;
		return p ? *p : 0;
	case EIN_EXPR_UNARY:
		return -to_float(in, x->args[0], ok);
	case EIN_EXPR_BINARY:
		return float_binary(x->op, to_float(in, x->args[0], ok),
			to_float(in, x->args[1], ok));
	case EIN_EXPR_SELECT:
		return truth(in, x->args[0], ok) ?
			to_float(in, x->args[1], ok) :
			to_float(in, x->args[2], ok);
	case EIN_EXPR_CALL:
		return eval_call(in, x, ok);
	case EIN_EXPR_CAST:
		return to_float(in, x->args[0], ok);
	default:
		return (double) eval_index(in, x);
	}
}

/* Integer division and remainder truncate towards zero, as in C; by zero
 * they give 0.  The operands are int32 values, so the int64 quotient is
 * exact (INT32_MIN / -1 wraps when the result is). */
static int64_t int_binary(enum ein_op op, int64_t a, int64_t b)
{
	switch (op) {
	case EIN_OP_ADD: return a + b;
	case EIN_OP_SUB: return a - b;
	case EIN_OP_MUL: return a * b;
	case EIN_OP_DIV: return b == 0 ? 0 : a / b;
	default: return b == 0 ? 0 : a % b;
	}
}

/* A comparison, in the arithmetic type of its operands. */
static int64_t eval_compare(struct interp *in, const struct ein_ast_expr *x,
	int *ok)
{
	const struct ein_ast_expr *l = x->args[0], *r = x->args[1];

	if (ein_type_is_float(ein_type_arith(l->vtype, r->vtype)))
		return compare(x->op, to_float(in, l, ok), to_float(in, r, ok));
	return compare(x->op, eval_int(in, l, ok), eval_int(in, r, ok));
}

static int64_t eval_int_binary(struct interp *in,
	const struct ein_ast_expr *x, int *ok)
{
	int64_t a, b;

	if (x->op == EIN_OP_AND || x->op == EIN_OP_OR) {
		a = truth(in, x->args[0], ok);
		b = truth(in, x->args[1], ok);
		return x->op == EIN_OP_AND ? a && b : a || b;
	}
	if (x->op >= EIN_OP_LT)
		return eval_compare(in, x, ok);
	a = eval_int(in, x->args[0], ok);
	b = eval_int(in, x->args[1], ok);
	return ein_type_wrap(x->vtype, int_binary(x->op, a, b));
}

/* abs, min, max, clamp and qmul of integers (qmul as builtin.h defines
 * it, on the int32 values of its arguments). */
static int64_t eval_int_call(struct interp *in, const struct ein_ast_expr *x,
	int *ok)
{
	int64_t a = eval_int(in, x->args[0], ok), b, c;

	if (x->fn == EIN_BUILTIN_ABS)
		return ein_type_wrap(x->vtype, a < 0 ? -a : a);
	b = eval_int(in, x->args[1], ok);
	if (x->fn == EIN_BUILTIN_MIN)
		return a < b ? a : b;
	if (x->fn == EIN_BUILTIN_MAX)
		return a > b ? a : b;
	c = eval_int(in, x->args[2], ok);
	if (x->fn == EIN_BUILTIN_QMUL)
		return ein_builtin_qmul((int32_t) a, (int32_t) b, (int32_t) c);
	a = a > b ? a : b;
	return a < c ? a : c;
}

/* A conversion to integer type x->type. */
static int64_t eval_int_cast(struct interp *in, const struct ein_ast_expr *x,
	int *ok)
{
	const struct ein_ast_expr *arg = x->args[0];

	if (ein_type_is_float(arg->vtype))
		return ein_type_from_double(x->type,
			eval_float(in, arg, ok));
	return ein_type_wrap(x->type, eval_int(in, arg, ok));
}

/* The value of integer-typed "x", exact, wrapped to its type after each
 * operation as two's complement hardware does; *ok is cleared on error. */
static int64_t eval_int(struct interp *in, const struct ein_ast_expr *x,
	int *ok)
{
	double *p;

	switch (x->kind) {
	case EIN_EXPR_INT:
		return ein_type_wrap(x->vtype, x->ival);
	case EIN_EXPR_IDENT:
		return ein_type_wrap(x->vtype, eval_index(in, x));
	case EIN_EXPR_ACCESS:
		p = element(in, x);
		if (!p)
			*ok = 0;
		return p ? (int64_t) *p : 0;
	case EIN_EXPR_UNARY:
		if (x->op == EIN_OP_NOT)
			return !truth(in, x->args[0], ok);
		return ein_type_wrap(x->vtype, -eval_int(in, x->args[0], ok));
	case EIN_EXPR_BINARY:
		return eval_int_binary(in, x, ok);
	case EIN_EXPR_SELECT:
		return truth(in, x->args[0], ok) ?
			eval_int(in, x->args[1], ok) :
			eval_int(in, x->args[2], ok);
	case EIN_EXPR_CALL:
		return eval_int_call(in, x, ok);
	case EIN_EXPR_CAST:
		return eval_int_cast(in, x, ok);
	default:
		return 0;
	}
}

/* The value a "!" statement starts from: the identity of its operator in
 * the tensor's type. */
static double identity(enum ein_assign op, enum ein_type type)
{
	int is_float = ein_type_is_float(type);

	switch (op) {
	case EIN_ASSIGN_MUL: return 1;
	case EIN_ASSIGN_MAX:
		return is_float ? -INFINITY : (double) ein_type_min(type);
	case EIN_ASSIGN_MIN:
		return is_float ? INFINITY : (double) ein_type_max(type);
	default: return 0;
	}
}

static double combine(enum ein_assign op, double old, double v)
{
	switch (op) {
	case EIN_ASSIGN_ADD: return old + v;
	case EIN_ASSIGN_MUL: return old * v;
	case EIN_ASSIGN_MAX: return fmax(old, v);
	case EIN_ASSIGN_MIN: return fmin(old, v);
	default: return v;
	}
}

/* The new value of an element of integer type "type" holding "old" after
 * "op" with "v": exact, then wrapped to the type. */
static double combine_int(enum ein_assign op, enum ein_type type,
	int64_t old, int64_t v)
{
	int64_t r;

	switch (op) {
	case EIN_ASSIGN_ADD: r = old + v; break;
	case EIN_ASSIGN_MUL: r = old * v; break;
	case EIN_ASSIGN_MAX: r = old > v ? old : v; break;
	case EIN_ASSIGN_MIN: r = old < v ? old : v; break;
	default: r = v; break;
	}
	return (double) ein_type_wrap(type, r);
}

/* Run the current statement at the instance in->idx. */
static int run_instance(struct interp *in)
{
	const struct ein_ast_stmt *s = in->stmt->ast;
	enum ein_type type = in->func->tensor[s->lhs->slot].type;
	double *lhs = element(in, s->lhs), v;
	int ok = 1;

	if (!lhs)
		return -1;
	if (in->is_init) {
		*lhs = identity(s->op, type);
		return 0;
	}
	if (ein_type_is_float(type))
		v = combine(s->op, *lhs, to_float(in, s->rhs, &ok));
	else
		v = combine_int(s->op, type, (int64_t) *lhs,
			eval_int(in, s->rhs, &ok));
	if (!ok)
		return -1;
	*lhs = v;
	return 0;
}

/* Visit the box lo[d..n-1] .. hi[d..n-1] lexicographically. */
static int run_box(struct interp *in, int d, int n, const int64_t *lo,
	const int64_t *hi)
{
	int64_t i;

	if (d == n)
		return run_instance(in);
	for (i = lo[d]; i <= hi[d]; ++i) {
		in->idx[d] = i;
		if (run_box(in, d + 1, n, lo, hi) < 0)
			return -1;
	}
	return 0;
}

/* Is "set", whose sizes and dimensions before d are fixed, the box
 * lo[d..n-1] .. hi[d..n-1] in its other dimensions?  Fills in lo and hi. */
static isl_bool bounds_are_box(const struct interp *in,
	__isl_keep isl_set *set, int d, int n, int64_t *lo, int64_t *hi)
{
	isl_set *box = isl_set_universe(isl_set_get_space(set));
	isl_bool equal;
	int i;

	for (i = 0; i < in->func->n_size; ++i)
		box = ein_specialize_fix(box, isl_dim_param, i,
			in->sizes[i]);
	for (i = 0; i < d; ++i)
		box = ein_specialize_fix(box, isl_dim_set, i, in->idx[i]);
	for (i = d; i < n; ++i) {
		isl_val *min = isl_set_dim_min_val(isl_set_copy(set), i);
		isl_val *max = isl_set_dim_max_val(isl_set_copy(set), i);

		lo[i] = isl_val_get_num_si(min);
		hi[i] = isl_val_get_num_si(max);
		isl_val_free(min);
		isl_val_free(max);
		box = isl_set_lower_bound_val(box, isl_dim_set, i,
			isl_val_int_from_si(isl_set_get_ctx(set), lo[i]));
		box = isl_set_upper_bound_val(box, isl_dim_set, i,
			isl_val_int_from_si(isl_set_get_ctx(set), hi[i]));
	}
	equal = isl_set_is_equal(set, box);
	isl_set_free(box);
	return equal;
}

/* Visit the points of "set" (taken; its dimensions before d are fixed to
 * in->idx) lexicographically. */
static int run_set(struct interp *in, __isl_take isl_set *set, int d, int n)
{
	int64_t lo[64], hi[64], i;
	isl_bool box;
	int ok = 0;

	if (isl_set_is_empty(set) != isl_bool_false) {
		isl_set_free(set);
		return 0;
	}
	box = bounds_are_box(in, set, d, n, lo, hi);
	if (box < 0) {
		isl_set_free(set);
		return -1;
	}
	if (box) {
		isl_set_free(set);
		return run_box(in, d, n, lo, hi);
	}
	for (i = lo[d]; ok == 0 && i <= hi[d]; ++i) {
		in->idx[d] = i;
		ok = run_set(in, ein_specialize_fix(isl_set_copy(set), isl_dim_set,
			d, i), d + 1, n);
	}
	isl_set_free(set);
	return ok;
}

/* "set" with the sizes fixed to their values. */
static isl_set *fix_sizes(const struct interp *in, __isl_take isl_set *set)
{
	int i;

	for (i = 0; i < in->func->n_size; ++i)
		set = ein_specialize_fix(set, isl_dim_param, i,
			in->sizes[i]);
	return set;
}

static int run_stmt(struct interp *in, const struct ein_func_stmt *stmt)
{
	isl_set *dom = fix_sizes(in, isl_set_copy(stmt->domain));

	in->stmt = stmt;
	if (stmt->n_index > 64)
		return isl_set_free(dom), -1;
	if (stmt->ast->init) {
		in->is_init = 1;
		if (run_set(in, isl_set_project_out(isl_set_copy(dom),
				isl_dim_set, stmt->n_lhs,
				stmt->n_index - stmt->n_lhs),
				0, stmt->n_lhs) < 0)
			return isl_set_free(dom), -1;
	}
	in->is_init = 0;
	return run_set(in, dom, 0, stmt->n_index);
}

/* Compute every tensor's extents; allocate the temporaries. */
static int setup(struct interp *in, double **temps)
{
	const struct ein_func *func = in->func;
	int i, d;

	for (i = 0; i < func->n_tensor; ++i) {
		int64_t n = 1;

		in->extent[i] = calloc(func->tensor[i].n_dim + 1,
			sizeof(int64_t));
		if (!in->extent[i] || ein_func_eval_shape(in->ctx, func,
				in->sizes, i, in->extent[i]) < 0)
			return -1;
		if (func->tensor[i].role != EIN_ROLE_TEMP)
			continue;
		for (d = 0; d < func->tensor[i].n_dim; ++d)
			n *= in->extent[i][d];
		temps[i] = calloc(n > 0 ? n : 1, sizeof(double));
		if (!temps[i])
			return -1;
		in->data[i] = temps[i];
	}
	return 0;
}

int ein_interp_run(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, double **data)
{
	int n = func->n_tensor, i, ok;
	double *all[n + 1], *temps[n + 1];
	int64_t *extent[n + 1];
	struct interp in = { .ctx = ctx, .func = func, .sizes = sizes,
		.data = all, .extent = extent };

	for (i = 0; i < n; ++i) {
		all[i] = data[i];
		temps[i] = NULL;
		extent[i] = NULL;
	}
	ok = setup(&in, temps);
	for (i = 0; ok == 0 && i < func->n_stmt; ++i)
		ok = run_stmt(&in, &func->stmt[i]);
	for (i = 0; i < n; ++i) {
		free(temps[i]);
		free(extent[i]);
	}
	return ok;
}

/* Is "x" an operation on floating-point values (its result or an
 * argument is a float)?  Index arithmetic and the comparisons of a
 * padding guard are not floating-point operations. */
static int is_float_op(const struct ein_ast_expr *x)
{
	int i;

	if (ein_type_is_float(x->vtype))
		return 1;
	for (i = 0; i < x->n_arg; ++i)
		if (ein_type_is_float(x->args[i]->vtype))
			return 1;
	return 0;
}

/* The number of floating-point operations "x" evaluates; with "ints",
 * also those on integer values read from tensors (not index arithmetic
 * or a guard's comparisons). */
static int count_ops(const struct ein_ast_expr *x, int ints)
{
	int i, n = 0;

	if ((x->kind == EIN_EXPR_UNARY || x->kind == EIN_EXPR_BINARY ||
	     x->kind == EIN_EXPR_CALL) &&
	    (is_float_op(x) || (ints && ein_ast_expr_reads_tensor(x))))
		n = 1;
	if (x->kind == EIN_EXPR_ACCESS)
		return 0;
	for (i = 0; i < x->n_arg; ++i)
		n += count_ops(x->args[i], ints);
	return n;
}

/* ein_interp_count_flops, or with "ints" ein_interp_count_ops. */
static double count_work(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, int *exact, int ints)
{
	struct interp in = { .ctx = ctx, .func = func, .sizes = sizes };
	double flops = 0;
	int i, stmt_exact;

	if (exact)
		*exact = 1;
	for (i = 0; i < func->n_stmt; ++i) {
		const struct ein_func_stmt *stmt = &func->stmt[i];
		int ops = count_ops(stmt->ast->rhs, ints) +
			(stmt->ast->op != EIN_ASSIGN_SET && (ints ||
			 ein_type_is_float(func->tensor[
				stmt->ast->lhs->slot].type)));
		isl_set *dom = fix_sizes(&in, isl_set_copy(stmt->domain));
		double n = ops ? ein_count_points(dom, &stmt_exact) : 0;

		isl_set_free(dom);
		if (n < 0) {
			ein_internal(ctx, "cannot count the instances of a "
				"statement of '%s'", func->def->name);
			return -1;
		}
		if (ops && exact && !stmt_exact)
			*exact = 0;
		flops += ops * n;
	}
	return flops;
}

double ein_interp_count_flops(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, int *exact)
{
	return count_work(ctx, func, sizes, exact, 0);
}

double ein_interp_count_ops(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, int *exact)
{
	return count_work(ctx, func, sizes, exact, 1);
}
