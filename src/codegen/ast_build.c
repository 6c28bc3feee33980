/*
 * ast_build.c: isl AST generation, with each statement instance annotated
 * with its access index expressions.
 *
 * As PPCG does, at each statement the AST build gives the schedule from
 * the AST's loop iterators back to the statement's indices; pulling each
 * access's index function back through it and asking the build for an
 * expression gives index expressions in the iterators, simplified under
 * the constraints the build knows at that point.  An access a schedule
 * redirected to a local buffer (pack, accumulate) gets the expressions of
 * its index in the buffer.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include "ctx.h"
#include "diag.h"
#include "codegen/ast_build.h"
#include "frontend/ast.h"
#include "frontend/type.h"

#define EIN_STMT_ID "ein_stmt"

/* Free a NULL-terminated array of expressions. */
static void exprs_free(isl_ast_expr **exprs)
{
	int i;

	for (i = 0; exprs && exprs[i]; ++i)
		isl_ast_expr_free(exprs[i]);
	free(exprs);
}

/* Free "user", an ein_user_stmt.  Its arrays are NULL-terminated, so that
 * freeing does not depend on the statement, which may be gone already. */
static void user_stmt_free(void *user)
{
	struct ein_user_stmt *us = user;
	int i;

	if (!us)
		return;
	for (i = 0; us->index && us->index[i]; ++i)
		exprs_free(us->index[i]);
	free(us->index);
	exprs_free(us->iter);
	isl_pw_multi_aff_free(us->at);
	free(us);
}

/* The expressions built so far for one statement instance, with the
 * functions they were built from: the accesses of a statement share many
 * index functions (an update reads and writes the same element; an index
 * that is one of the statement's variables is also one of its iterator
 * expressions), and asking the build for an expression, which simplifies
 * it under all that the build knows, is costly where unrolled register
 * tiles make many instances (matmul.large.sched for AVX-512: 13 of its 23
 * s of compile in the 132 instances' expressions).  A function plainly
 * equal to one built before gets a copy of its expression: the same
 * function in the same build gives the same expression (the objects are
 * the same bytes; compile 29.0 -> 26.3 s there, 9.6 -> 9.1 s for a
 * strided convolution's automatic schedule, single runs). */
struct expr_memo {
	int n, size;
	isl_pw_aff **pa;
	isl_ast_expr **expr;
};

static void expr_memo_clear(struct expr_memo *memo)
{
	int i;

	for (i = 0; i < memo->n; ++i) {
		isl_pw_aff_free(memo->pa[i]);
		isl_ast_expr_free(memo->expr[i]);
	}
	free(memo->pa);
	free(memo->expr);
}

/* Make room in "memo" for one more function; 0 if there is none. */
static int memo_grow(struct expr_memo *memo)
{
	int size = 2 * memo->size + 8;
	isl_pw_aff **pa;
	isl_ast_expr **expr;

	if (memo->n < memo->size)
		return 1;
	pa = realloc(memo->pa, size * sizeof(*pa));
	if (!pa)
		return 0;
	memo->pa = pa;
	expr = realloc(memo->expr, size * sizeof(*expr));
	if (!expr)
		return 0;
	memo->expr = expr;
	memo->size = size;
	return 1;
}

/* An expression for "pa" (taken) in "build", from "memo" where a plainly
 * equal function was built before (a memo that cannot grow only costs
 * time). */
static __isl_give isl_ast_expr *memo_expr(struct expr_memo *memo,
	__isl_keep isl_ast_build *build, __isl_take isl_pw_aff *pa)
{
	isl_ast_expr *expr;
	int i;

	for (i = 0; pa && i < memo->n; ++i)
		if (isl_pw_aff_plain_is_equal(pa, memo->pa[i]) > 0) {
			isl_pw_aff_free(pa);
			return isl_ast_expr_copy(memo->expr[i]);
		}
	expr = isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_copy(pa));
	if (!expr || !memo_grow(memo)) {
		isl_pw_aff_free(pa);
		return expr;
	}
	memo->pa[memo->n] = pa;
	memo->expr[memo->n++] = isl_ast_expr_copy(expr);
	return expr;
}

/* Expressions for each element of "mpa" (over the statement domain),
 * pulled back through "iter" (AST iterators -> statement domain), in a
 * NULL-terminated array. */
static isl_ast_expr **build_exprs(__isl_keep isl_ast_build *build,
	struct expr_memo *memo, __isl_keep isl_multi_pw_aff *mpa,
	__isl_keep isl_pw_multi_aff *iter)
{
	int d, n = isl_multi_pw_aff_dim(mpa, isl_dim_out);
	isl_ast_expr **exprs = calloc(n + 1, sizeof(*exprs));
	isl_multi_pw_aff *pulled;

	if (!exprs)
		return NULL;
	pulled = isl_multi_pw_aff_pullback_pw_multi_aff(
		isl_multi_pw_aff_copy(mpa), isl_pw_multi_aff_copy(iter));
	for (d = 0; d < n; ++d)
		exprs[d] = memo_expr(memo, build,
			isl_multi_pw_aff_get_pw_aff(pulled, d));
	isl_multi_pw_aff_free(pulled);
	return exprs;
}

/* "iter" (taken) with its input dimensions named after the AST's loop
 * iterators. */
static __isl_give isl_pw_multi_aff *name_iterators(
	__isl_keep isl_ast_build *build, __isl_take isl_pw_multi_aff *iter)
{
	isl_space *space = isl_ast_build_get_schedule_space(build);
	int pos, n = isl_pw_multi_aff_dim(iter, isl_dim_in);

	for (pos = 0; pos < n; ++pos)
		if (isl_space_has_dim_id(space, isl_dim_set, pos) > 0)
			iter = isl_pw_multi_aff_set_dim_id(iter, isl_dim_in,
				pos, isl_space_get_dim_id(space, isl_dim_set,
				pos));
	isl_space_free(space);
	return iter;
}

static struct ein_user_stmt *user_stmt_alloc(const struct ein_scop_stmt *stmt,
	__isl_keep isl_ast_build *build)
{
	struct ein_user_stmt *us = calloc(1, sizeof(*us));
	isl_map *sched;
	isl_pw_multi_aff *iter;
	isl_multi_pw_aff *ident;
	struct expr_memo memo = { 0 };
	int i;

	if (!us)
		return NULL;
	us->stmt = stmt;
	sched = isl_map_from_union_map(isl_ast_build_get_schedule(build));
	iter = isl_pw_multi_aff_from_map(isl_map_reverse(sched));
	us->index = calloc(stmt->n_access + 1, sizeof(*us->index));
	for (i = 0; us->index && i < stmt->n_access; ++i)
		us->index[i] = build_exprs(build, &memo,
			ein_scop_access_get_target_index(&stmt->access[i]),
			iter);
	ident = isl_multi_pw_aff_from_pw_multi_aff(
		isl_pw_multi_aff_identity_on_domain_space(
			isl_set_get_space(stmt->domain)));
	us->iter = build_exprs(build, &memo, ident, iter);
	isl_multi_pw_aff_free(ident);
	expr_memo_clear(&memo);
	us->at = name_iterators(build, iter);
	return us;
}

/* The at_each_domain callback: annotate user node "node" with its
 * statement's expressions. */
static __isl_give isl_ast_node *annotate(__isl_take isl_ast_node *node,
	__isl_keep isl_ast_build *build, void *user)
{
	struct ein_scop *scop = user;
	isl_ast_expr *call = isl_ast_node_user_get_expr(node);
	isl_ast_expr *arg = isl_ast_expr_get_op_arg(call, 0);
	isl_id *id = isl_ast_expr_get_id(arg);
	struct ein_scop_stmt *stmt = ein_scop_find_stmt(scop,
		isl_id_get_name(id));
	struct ein_user_stmt *us = stmt ? user_stmt_alloc(stmt, build) : NULL;

	isl_id_free(id);
	isl_ast_expr_free(arg);
	isl_ast_expr_free(call);
	if (!us)
		return isl_ast_node_free(node);
	id = isl_id_alloc(isl_ast_node_get_ctx(node), EIN_STMT_ID, us);
	id = isl_id_set_free_user(id, &user_stmt_free);
	return isl_ast_node_set_annotation(node, id);
}

__isl_give isl_ast_node *ein_ast_build(ein_ctx *ctx, struct ein_scop *scop,
	__isl_take isl_schedule *sched)
{
	isl_ast_build *build;
	isl_ast_node *tree;

	build = isl_ast_build_from_context(isl_set_copy(scop->context));
	build = isl_ast_build_set_at_each_domain(build, &annotate, scop);
	tree = isl_ast_build_node_from_schedule(build, sched);
	isl_ast_build_free(build);
	if (!tree)
		ein_internal(ctx, "isl could not build the AST: %s",
			isl_ctx_last_error_msg(ein_ctx_get_isl(ctx)) ?
			isl_ctx_last_error_msg(ein_ctx_get_isl(ctx)) : "?");
	return tree;
}

const struct ein_user_stmt *ein_ast_node_get_user_stmt(
	__isl_keep isl_ast_node *node)
{
	isl_id *id = isl_ast_node_get_annotation(node);
	const struct ein_user_stmt *us = NULL;

	if (id && !strcmp(isl_id_get_name(id), EIN_STMT_ID))
		us = isl_id_get_user(id);
	isl_id_free(id);
	return us;
}

__isl_give isl_ast_expr *ein_ast_build_extent(struct ein_scop *scop,
	__isl_keep isl_pw_aff *pa)
{
	isl_ast_build *build;
	isl_ast_expr *expr;

	build = isl_ast_build_from_context(isl_set_copy(scop->context));
	expr = isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_copy(pa));
	isl_ast_build_free(build);
	return expr;
}

/* "T[x0][x1]" for access "pos" of "us". */
static __isl_give isl_printer *print_access(__isl_take isl_printer *p,
	const struct ein_scop *scop, const struct ein_user_stmt *us, int pos)
{
	int t = ein_scop_access_get_target(&us->stmt->access[pos]), d;

	p = isl_printer_print_str(p, ein_scop_tensor_name(scop, t));
	for (d = 0; us->index[pos][d]; ++d) {
		p = isl_printer_print_str(p, "[");
		p = isl_printer_print_ast_expr(p, us->index[pos][d]);
		p = isl_printer_print_str(p, "]");
	}
	return p;
}

/* A statement of the AST: a copy as an assignment "B[..] = A[..];", a
 * prefetch as "__builtin_prefetch(&A[..]);", any other as isl prints it,
 * "S0(c0, c1);". */
static __isl_give isl_printer *print_user(__isl_take isl_printer *p,
	__isl_take isl_ast_print_options *options,
	__isl_keep isl_ast_node *node, void *user)
{
	const struct ein_user_stmt *us = ein_ast_node_get_user_stmt(node);
	isl_ast_expr *call;

	isl_ast_print_options_free(options);
	p = isl_printer_start_line(p);
	if (us && us->stmt->kind == EIN_STMT_PREFETCH) {
		p = isl_printer_print_str(p, "__builtin_prefetch(&");
		p = print_access(p, user, us, 0);
		p = isl_printer_print_str(p, ")");
	} else if (us && us->stmt->kind != EIN_STMT_COMPUTE) {
		p = print_access(p, user, us, 0);
		p = isl_printer_print_str(p, " = ");
		p = print_access(p, user, us, 1);
	} else {
		call = isl_ast_node_user_get_expr(node);
		p = isl_printer_print_ast_expr(p, call);
		isl_ast_expr_free(call);
	}
	p = isl_printer_print_str(p, ";");
	return isl_printer_end_line(p);
}

/* "// A_pack0: float32[4][64], a local buffer of A" */
static __isl_give isl_printer *print_buffer(__isl_take isl_printer *p,
	const struct ein_scop *scop, const struct ein_scop_buffer *buf)
{
	int d;

	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "// ");
	p = isl_printer_print_str(p, buf->name);
	p = isl_printer_print_str(p, ": ");
	p = isl_printer_print_str(p,
		ein_type_name(scop->func->tensor[buf->of].type));
	for (d = 0; d < buf->n_dim; ++d) {
		isl_ast_expr *x = ein_ast_build_extent((struct ein_scop *) scop,
			buf->extent[d]);

		p = isl_printer_print_str(p, "[");
		p = isl_printer_print_ast_expr(p, x);
		p = isl_printer_print_str(p, "]");
		isl_ast_expr_free(x);
	}
	if (!buf->storage) {
		p = isl_printer_print_str(p, ", a local buffer of ");
		p = isl_printer_print_str(p, scop->func->tensor[buf->of].name);
		return isl_printer_end_line(p);
	}
	p = isl_printer_print_str(p, ", the storage of ");
	p = isl_printer_print_str(p, scop->func->tensor[buf->of].name);
	p = isl_printer_print_str(p, " for one iteration of c0");
	for (d = 1; d < buf->storage; ++d) {
		p = isl_printer_print_str(p, ", c");
		p = isl_printer_print_int(p, d);
	}
	return isl_printer_end_line(p);
}

__isl_give isl_printer *ein_ast_print(__isl_take isl_printer *p,
	const struct ein_scop *scop, __isl_keep isl_ast_node *tree)
{
	isl_ast_print_options *options;
	int i;

	p = isl_printer_set_output_format(p, ISL_FORMAT_C);
	for (i = 0; i < scop->n_buffer; ++i)
		p = print_buffer(p, scop, &scop->buffer[i]);
	options = isl_ast_print_options_alloc(isl_printer_get_ctx(p));
	options = isl_ast_print_options_set_print_user(options, &print_user,
		(void *) scop);
	return isl_ast_node_print(tree, p, options);
}

/* Does "expr" divide integers?  At an iteration a padded vector loop adds,
 * the divisor may be 0. */
static int divides_integers(const struct ein_ast_expr *expr)
{
	int i;

	if (!expr)
		return 0;
	if (expr->kind == EIN_EXPR_BINARY && !ein_type_is_float(expr->type) &&
	    (expr->op == EIN_OP_DIV || expr->op == EIN_OP_MOD))
		return 1;
	for (i = 0; i < expr->n_arg; ++i)
		if (divides_integers(expr->args[i]))
			return 1;
	return 0;
}

/* Does an integer division of "aff" (kept) involve input dimension
 * "pos" (isl_aff_involves_dims follows divisions within divisions)? */
static int div_involves(__isl_keep isl_aff *aff, int pos)
{
	int i, n = isl_aff_dim(aff, isl_dim_div), inv = n < 0;

	for (i = 0; !inv && i < n; ++i) {
		isl_val *c = isl_aff_get_coefficient_val(aff, isl_dim_div, i);
		isl_aff *div = isl_aff_get_div(aff, i);

		inv = !c || !div || (!isl_val_is_zero(c) &&
			isl_aff_involves_dims(div, isl_dim_in, pos, 1) !=
			isl_bool_false);
		isl_val_free(c);
		isl_aff_free(div);
	}
	return inv;
}

static isl_stat grab_aff(__isl_take isl_set *set, __isl_take isl_aff *aff,
	void *user)
{
	isl_aff **res = user;

	isl_set_free(set);
	isl_aff_free(*res);
	*res = aff;
	return isl_stat_ok;
}

/* The functions of "mpa" (kept), which must each have a single piece,
 * pulled back through "ma" (kept) and extended to the whole of its
 * domain's space: NULL if a function has more pieces or divides something
 * that involves dimension "pos" of that space. */
static __isl_give isl_multi_aff *extended(__isl_keep isl_multi_pw_aff *mpa,
	__isl_keep isl_multi_aff *ma, int pos)
{
	int d, n = isl_multi_pw_aff_dim(mpa, isl_dim_out);
	isl_multi_aff *res;

	res = n < 0 ? NULL : isl_multi_aff_zero(isl_space_map_from_domain_and_range(
		isl_space_domain(isl_multi_aff_get_space(ma)),
		isl_space_range(isl_multi_pw_aff_get_space(mpa))));
	for (d = 0; res && d < n; ++d) {
		isl_pw_aff *pa = isl_multi_pw_aff_get_pw_aff(mpa, d);
		isl_aff *aff = NULL;

		if (isl_pw_aff_n_piece(pa) == 1 &&
		    isl_pw_aff_foreach_piece(pa, &grab_aff, &aff) >= 0)
			aff = isl_aff_pullback_multi_aff(aff,
				isl_multi_aff_copy(ma));
		isl_pw_aff_free(pa);
		if (!aff || div_involves(aff, pos)) {
			isl_aff_free(aff);
			return isl_multi_aff_free(res);
		}
		res = isl_multi_aff_set_aff(res, d, aff);
	}
	return res;
}

/* The set dimension of "space" (kept) named "id", -1 if none. */
static int find_space_dim(__isl_keep isl_space *space, __isl_keep isl_id *id)
{
	int pos, n = isl_space_dim(space, isl_dim_set), found = -1;

	for (pos = 0; found < 0 && pos < n; ++pos) {
		isl_id *d = isl_space_has_dim_id(space, isl_dim_set, pos) > 0 ?
			isl_space_get_dim_id(space, isl_dim_set, pos) : NULL;

		if (d && d == id)
			found = pos;
		isl_id_free(d);
	}
	return found;
}

/* "expr", an affine expression in the iterators and the sizes, as a
 * function on "space" (kept), whose dimensions are named after the
 * iterators; NULL if it is not one (a division, a minimum, ...). */
static __isl_give isl_aff *aff_from_expr(__isl_keep isl_ast_expr *expr,
	__isl_keep isl_space *space)
{
	isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
	isl_ast_expr *arg;
	isl_aff *x = NULL, *y = NULL;
	isl_id *id;
	int pos, n = 0;

	switch (isl_ast_expr_get_type(expr)) {
	case isl_ast_expr_int:
		return isl_aff_val_on_domain(ls, isl_ast_expr_get_val(expr));
	case isl_ast_expr_id:
		id = isl_ast_expr_get_id(expr);
		pos = find_space_dim(space, id);
		if (pos >= 0) {
			isl_id_free(id);
			return isl_aff_var_on_domain(ls, isl_dim_set, pos);
		}
		pos = isl_space_find_dim_by_id(space, isl_dim_param, id);
		isl_id_free(id);
		if (pos >= 0)
			return isl_aff_var_on_domain(ls, isl_dim_param, pos);
		break;
	case isl_ast_expr_op:
		n = isl_ast_expr_op_get_n_arg(expr);
		arg = n >= 1 ? isl_ast_expr_op_get_arg(expr, 0) : NULL;
		x = arg ? aff_from_expr(arg, space) : NULL;
		isl_ast_expr_free(arg);
		arg = n >= 2 ? isl_ast_expr_op_get_arg(expr, 1) : NULL;
		y = arg ? aff_from_expr(arg, space) : NULL;
		isl_ast_expr_free(arg);
		break;
	default:
		break;
	}
	isl_local_space_free(ls);
	if (!x || (!y && n == 2) || n > 2)
		goto bad;
	switch (isl_ast_expr_op_get_type(expr)) {
	case isl_ast_expr_op_minus:
		if (n == 1)
			return isl_aff_neg(x);
		break;
	case isl_ast_expr_op_add:
		return isl_aff_add(x, y);
	case isl_ast_expr_op_sub:
		return isl_aff_sub(x, y);
	case isl_ast_expr_op_mul:
		if (isl_aff_is_cst(x) > 0 || isl_aff_is_cst(y) > 0)
			return isl_aff_mul(x, y);
		break;
	default:
		break;
	}
bad:
	isl_aff_free(x);
	isl_aff_free(y);
	return NULL;
}

/* The index expressions "index" (n of them) as a function on "space"
 * (kept), NULL if one is not affine. */
static __isl_give isl_multi_aff *emitted(isl_ast_expr **index, int n,
	__isl_keep isl_space *space)
{
	isl_space *range = isl_space_drop_dims(isl_space_copy(space),
		isl_dim_set, 0, isl_space_dim(space, isl_dim_set));
	isl_multi_aff *ma;
	int d;

	range = isl_space_add_dims(range, isl_dim_set, n);
	ma = isl_multi_aff_zero(isl_space_map_from_domain_and_range(
		isl_space_copy(space), range));
	for (d = 0; ma && d < n; ++d) {
		isl_aff *aff = index[d] ? aff_from_expr(index[d], space) : NULL;

		if (!aff)
			return isl_multi_aff_free(ma);
		ma = isl_multi_aff_set_aff(ma, d, aff);
	}
	return ma;
}

/* The coefficient of input dimension "pos" in "aff" (taken), LONG_MIN
 * if "aff" is NULL or the coefficient not a small integer. */
static long coefficient(__isl_take isl_aff *aff, int pos)
{
	isl_val *v = aff ? isl_aff_get_coefficient_val(aff, isl_dim_in, pos) :
		NULL;
	long c = v && isl_val_is_int(v) && !div_involves(aff, pos) ?
		isl_val_get_num_si(v) : LONG_MIN;

	isl_val_free(v);
	isl_aff_free(aff);
	return c;
}

/* The stride of the emitted access "x" (taken) along dimension "pos"
 * (ein_user_stmt_strides). */
static int access_stride(__isl_take isl_multi_aff *x, int pos)
{
	int d, n = x ? isl_multi_aff_dim(x, isl_dim_out) : -1, stride = 0;

	for (d = 0; stride >= 0 && d < n; ++d) {
		long c = coefficient(isl_multi_aff_get_aff(x, d), pos);

		if (c != 0)
			stride = c == 1 && d == n - 1 ? 1 : -1;
	}
	isl_multi_aff_free(x);
	return n < 0 ? -1 : stride;
}

int ein_user_stmt_strides(const struct ein_scop *scop,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int *stride,
	long *step)
{
	isl_space *space = isl_pw_multi_aff_get_domain_space(us->at);
	const struct ein_scop_stmt *stmt = us->stmt;
	int i, pos = space ? find_space_dim(space, iter) : -1;

	for (i = 0; pos >= 0 && i < stmt->n_access; ++i) {
		int n = ein_scop_tensor_n_dim(scop,
			ein_scop_access_get_target(&stmt->access[i]));

		stride[i] = access_stride(emitted(us->index[i], n, space),
			pos);
	}
	for (i = 0; pos >= 0 && us->iter[i]; ++i)
		step[i] = coefficient(aff_from_expr(us->iter[i], space), pos);
	isl_space_free(space);
	return pos >= 0 ? 0 : -1;
}

int ein_user_stmt_access_steps(const struct ein_scop *scop,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int i,
	long *coef)
{
	isl_space *space = isl_pw_multi_aff_get_domain_space(us->at);
	int pos = space ? find_space_dim(space, iter) : -1;
	int n = ein_scop_tensor_n_dim(scop,
		ein_scop_access_get_target(&us->stmt->access[i]));
	isl_multi_aff *ma = pos >= 0 ? emitted(us->index[i], n, space) : NULL;
	int d;

	for (d = 0; ma && d < n; ++d)
		coef[d] = coefficient(isl_multi_aff_get_aff(ma, d), pos);
	isl_space_free(space);
	isl_multi_aff_free(ma);
	return ma ? 0 : -1;
}

int ein_user_stmt_access_delta(const struct ein_scop *scop,
	const struct ein_user_stmt *us, int i, int j, long *delta)
{
	isl_space *space = isl_pw_multi_aff_get_domain_space(us->at);
	int t = ein_scop_access_get_target(&us->stmt->access[i]);
	int n = ein_scop_tensor_n_dim(scop, t), d, ok;
	isl_multi_aff *a, *b;
	isl_val *v;

	if (!space || t != ein_scop_access_get_target(&us->stmt->access[j])) {
		isl_space_free(space);
		return 0;
	}
	a = emitted(us->index[i], n, space);
	b = emitted(us->index[j], n, space);
	isl_space_free(space);
	if (!a || !b) {
		isl_multi_aff_free(a);
		isl_multi_aff_free(b);
		return 0;
	}
	b = isl_multi_aff_sub(b, a);
	ok = b != NULL && n >= 1;
	for (d = 0; ok && d < n; ++d) {
		isl_aff *aff = isl_multi_aff_get_aff(b, d);

		ok = isl_aff_is_cst(aff) == isl_bool_true;
		v = ok ? isl_aff_get_constant_val(aff) : NULL;
		ok = v && isl_val_is_int(v) &&
			(d == n - 1 || isl_val_is_zero(v));
		if (ok && d == n - 1)
			*delta = isl_val_get_num_si(v);
		isl_val_free(v);
		isl_aff_free(aff);
	}
	isl_multi_aff_free(b);
	return ok;
}

/* Is "v" (taken) NULL or a multiple of "k"? */
static int val_multiple_of(__isl_take isl_val *v, long k)
{
	isl_val *kv = v ? isl_val_int_from_si(isl_val_get_ctx(v), k) : NULL;
	int ok = kv && isl_val_is_divisible_by(v, kv) == isl_bool_true;

	isl_val_free(v);
	isl_val_free(kv);
	return ok;
}

/* Does "aff" (taken) take only multiples of "k" on integers: no
 * division, and its constant and every coefficient multiples of "k"? */
static int aff_multiple_of(__isl_take isl_aff *aff, long k)
{
	static const enum isl_dim_type type[] = { isl_dim_in, isl_dim_param };
	int t, d, n, ok = aff && isl_aff_dim(aff, isl_dim_div) == 0 &&
		val_multiple_of(isl_aff_get_constant_val(aff), k);

	for (t = 0; ok && t < 2; ++t) {
		n = isl_aff_dim(aff, type[t]);
		ok = n >= 0;
		for (d = 0; ok && d < n; ++d)
			ok = val_multiple_of(isl_aff_get_coefficient_val(aff,
				type[t], d), k);
	}
	isl_aff_free(aff);
	return ok;
}

/* The largest power of 2 up to "k" (itself one) that divides the extent
 * "pa" (kept, a function of the sizes) for all sizes of "context"
 * (kept): the sizes a kernel is specialised to fix them. */
static long extent_factor(__isl_keep isl_pw_aff *pa,
	__isl_keep isl_set *context, long k)
{
	for (; k > 1; k /= 2) {
		isl_val *v = isl_val_int_from_si(isl_pw_aff_get_ctx(pa), k);
		isl_set *off = isl_pw_aff_non_zero_set(isl_pw_aff_mod_val(
			isl_pw_aff_copy(pa), v));
		isl_bool none;

		off = isl_set_intersect_params(off, isl_set_copy(context));
		none = isl_set_is_empty(off);
		isl_set_free(off);
		if (none == isl_bool_true)
			break;
	}
	return k;
}

/* "aff" (taken) with dimension "pos" replaced by "start" (kept, on the
 * same space, not involving it). */
static __isl_give isl_aff *at_start(__isl_take isl_aff *aff, int pos,
	__isl_keep isl_aff *start)
{
	isl_val *c = aff ? isl_aff_get_coefficient_val(aff, isl_dim_in, pos) :
		NULL;

	aff = isl_aff_set_coefficient_si(aff, isl_dim_in, pos, 0);
	return isl_aff_add(aff, isl_aff_scale_val(isl_aff_copy(start), c));
}

int ein_user_stmt_access_aligned(const struct ein_scop *scop,
	const struct ein_user_stmt *us, int i, __isl_keep isl_id *iter,
	__isl_keep isl_ast_expr *init, int lanes)
{
	isl_space *space = isl_pw_multi_aff_get_domain_space(us->at);
	int t = ein_scop_access_get_target(&us->stmt->access[i]);
	int n = ein_scop_tensor_n_dim(scop, t), d;
	int pos = space ? find_space_dim(space, iter) : -1;
	isl_multi_aff *ma = pos >= 0 ? emitted(us->index[i], n, space) : NULL;
	isl_aff *start = ma && init ? aff_from_expr(init, space) : NULL;
	long known = 1;
	int ok = start && n >= 1 && lanes > 1 && (lanes & (lanes - 1)) == 0;

	/* known: a power of 2 that divides the extents after d. */
	for (d = n - 1; ok && d >= 0; --d) {
		ok = aff_multiple_of(at_start(isl_multi_aff_get_aff(ma, d),
			pos, start), lanes / known);
		if (d > 0)
			known *= extent_factor(ein_scop_tensor_extent(scop, t,
				d), scop->context, lanes / known);
	}
	isl_space_free(space);
	isl_multi_aff_free(ma);
	isl_aff_free(start);
	return ok;
}

/* Does "ma" (kept) take the iterations "set" (kept) into the bounds of
 * "tensor" (in = 1), or all out of them (in = 0)? */
static int maps_inside(const struct ein_scop *scop, int tensor,
	__isl_keep isl_multi_aff *ma, __isl_keep isl_set *set, int in)
{
	isl_set *img = isl_set_apply(isl_set_copy(set),
		isl_map_from_multi_aff(isl_multi_aff_copy(ma)));
	isl_set *box;
	isl_bool ok;

	img = isl_set_intersect_params(img, isl_set_copy(scop->context));
	box = ein_scop_tensor_box(scop, tensor, isl_set_get_space(img));
	ok = !box ? isl_bool_false : in ? isl_set_is_subset(img, box) :
		isl_set_is_disjoint(img, box);
	isl_set_free(img);
	isl_set_free(box);
	return ok == isl_bool_true;
}

/* Does the buffer index "x" (kept) differ from the tensor index "e"
 * (kept) by an offset that does not change along dimension "pos": is "x"
 * e - lb(v) at the padded iterations too? */
static int same_offset(__isl_keep isl_multi_aff *x, __isl_keep isl_multi_aff *e,
	int pos)
{
	int d, n = isl_multi_aff_dim(x, isl_dim_out), ok;

	ok = n >= 0 && n == isl_multi_aff_dim(e, isl_dim_out);
	for (d = 0; ok && d < n; ++d) {
		isl_aff *diff = isl_aff_sub(isl_multi_aff_get_aff(x, d),
			isl_multi_aff_get_aff(e, d));

		ok = diff && isl_aff_involves_dims(diff, isl_dim_in, pos, 1) ==
			isl_bool_false;
		isl_aff_free(diff);
	}
	return ok;
}

/* Does access "a", with index expressions "index" in the emitted code,
 * stay within the bounds of what it reaches at the iterations "ext"
 * (those of the statement and the padded ones); and, if it
 * writes a buffer (never a tensor), do the padded iterations "pad" write
 * places of elements out of the tensor, which its copy back never reads
 * and which no other iteration of the statement accesses?  "ma" takes
 * the iterations to the statement's index variables. */
static int access_can_pad(const struct ein_scop *scop,
	const struct ein_scop_access *a, isl_ast_expr **index,
	__isl_keep isl_multi_aff *ma, int pos, __isl_keep isl_set *ext,
	__isl_keep isl_set *pad)
{
	int target = ein_scop_access_get_target(a);
	isl_space *space = isl_set_get_space(ext);
	isl_multi_aff *x = emitted(index, ein_scop_tensor_n_dim(scop, target),
		space);
	isl_multi_aff *e = NULL;
	int ok;

	isl_space_free(space);
	ok = x && !a->guard && (!a->is_write || target != a->tensor) &&
		ein_type_is_float(ein_scop_tensor_type(scop, target)) &&
		maps_inside(scop, target, x, ext, 1);
	if (ok && a->is_write) {
		e = extended(a->index, ma, pos);
		ok = e && same_offset(x, e, pos) &&
			maps_inside(scop, a->tensor, e, pad, 0);
	}
	isl_multi_aff_free(x);
	isl_multi_aff_free(e);
	return ok;
}

/* The iterations that a vector loop over dimension "pos" of "own" (kept)
 * runs when it is padded to whole vectors of "width" (vector_loop.c): on each
 * line along dimension pos, all else equal, from its first iteration lo
 * to lo + width * ceil(n / width) - 1, with n = hi - lo + 1 and hi its
 * last. */
static __isl_give isl_set *padded(__isl_keep isl_set *own, int pos,
	int width)
{
	isl_map *line = isl_map_move_dims(isl_map_from_domain(
		isl_set_copy(own)), isl_dim_out, 0, isl_dim_in, pos, 1);
	isl_space *one = isl_space_range(isl_map_get_space(line));
	isl_pw_aff *lo = isl_map_dim_min(isl_map_copy(line), 0);
	isl_pw_aff *hi = isl_map_dim_max(line, 0);
	isl_val *w = isl_val_int_from_si(isl_set_get_ctx(own), width);
	isl_pw_aff *end;
	isl_map *from, *to;

	end = isl_pw_aff_sub(hi, isl_pw_aff_copy(lo));
	end = isl_pw_aff_add_constant_val(end, isl_val_copy(w));
	end = isl_pw_aff_floor(isl_pw_aff_scale_down_val(end,
		isl_val_copy(w)));
	end = isl_pw_aff_add(isl_pw_aff_copy(lo), isl_pw_aff_scale_val(end, w));
	from = isl_map_apply_range(isl_map_from_pw_aff(lo),
		isl_map_lex_le(isl_space_copy(one)));
	to = isl_map_apply_range(isl_map_from_pw_aff(end), isl_map_lex_gt(one));
	from = isl_map_intersect(from, to);
	from = isl_map_move_dims(from, isl_dim_in, pos, isl_dim_out, 0, 1);
	return isl_set_reset_space(isl_map_domain(from),
		isl_set_get_space(own));
}

static isl_stat grab_multi_aff(__isl_take isl_set *set,
	__isl_take isl_multi_aff *ma, void *user)
{
	isl_multi_aff **res = user;

	isl_set_free(set);
	isl_multi_aff_free(*res);
	*res = ma;
	return isl_stat_ok;
}

int ein_user_stmt_can_pad(const struct ein_scop *scop,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int width)
{
	isl_space *space = isl_pw_multi_aff_get_domain_space(us->at);
	int pos = find_space_dim(space, iter);
	isl_multi_aff *ma = NULL;
	isl_set *own, *ext, *pad;
	int i, ok;

	isl_space_free(space);
	if (pos < 0 || width < 2 || divides_integers(us->stmt->rhs) ||
	    isl_pw_multi_aff_n_piece(us->at) != 1 ||
	    isl_pw_multi_aff_foreach_piece(us->at, &grab_multi_aff, &ma) < 0)
		return (isl_multi_aff_free(ma), 0);
	own = isl_pw_multi_aff_domain(isl_pw_multi_aff_copy(us->at));
	ext = padded(own, pos, width);
	pad = isl_set_subtract(isl_set_copy(ext), own);
	ok = ma != NULL;
	for (i = 0; ok && i < isl_multi_aff_dim(ma, isl_dim_out); ++i) {
		isl_aff *aff = isl_multi_aff_get_aff(ma, i);

		ok = aff && !div_involves(aff, pos);
		isl_aff_free(aff);
	}
	for (i = 0; ok && i < us->stmt->n_access; ++i)
		ok = access_can_pad(scop, &us->stmt->access[i],
			us->index[i], ma, pos, ext, pad);
	isl_multi_aff_free(ma);
	isl_set_free(ext);
	isl_set_free(pad);
	return ok;
}
