/*
 * dataflow.c: reads of temporaries before they are written, and elements
 * of outputs never written.
 *
 * Outputs start from the caller's data, so reading them first is
 * meaningful ("+=" without "!"); temporaries start undefined.  A read of
 * a temporary is correct when the elements it reads are covered by the
 * writes that happen before it:
 *
 *	R \ (dom R x W_before) \ (lex_gt o W_self) = {}
 *
 * where R maps each instance of the reading statement (within the guard
 * of the read) to the element it reads, W_before is the set of elements
 * written by earlier statements (and by the statement's own "!"
 * initialisation), and lex_gt o W_self maps an instance to the elements
 * that earlier instances of the same statement wrote.
 *
 * An output that the definition does not read must be written whole:
 *
 *	box(O) \ U_S lhs_S(D_S) = {}
 *
 * for every value of the sizes, where box(O) is { O[i] : 0 <= i < shape }
 * and lhs_S(D_S) the elements statement S writes over its domain.  isl
 * decides it on the sizes as parameters; nothing is enumerated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/aff.h>
#include "diag.h"
#include "poly/affine.h"
#include "frontend/guard.h"
#include "frontend/range.h"
#include "frontend/dataflow.h"

/* The state of the check of one statement.
 * ctx, func: as given; pos: the statement; space: its set space;
 * failed: set when a read was reported. */
struct flow {
	ein_ctx *ctx;
	const struct ein_func *func;
	int pos;
	isl_space *space;
	int failed;
};

/* The access "expr" from the domain "dom" (taken) of a statement, a map
 * to the elements of its tensor. */
static isl_map *access_map(ein_ctx *ctx, const struct ein_func *func,
	__isl_take isl_set *dom, const struct ein_ast_expr *expr)
{
	isl_space *space = isl_set_get_space(dom);
	isl_map *map = isl_map_from_domain(isl_set_copy(dom));
	int d;

	for (d = 0; d < expr->n_arg; ++d) {
		isl_pw_aff *pa = ein_affine_from_expr(ctx, space,
			expr->args[d]);

		map = isl_map_flat_range_product(map, isl_map_from_pw_aff(pa));
	}
	map = isl_map_intersect_domain(map, dom);
	isl_space_free(space);
	return isl_map_set_tuple_name(map, isl_dim_out,
		func->tensor[expr->slot].name);
}

/* The elements of tensor "t" that the statements before "pos" write. */
static isl_set *written_before(struct flow *f, int t)
{
	isl_space *space = isl_space_copy(f->space);
	isl_set *written;
	int j;

	space = isl_space_drop_dims(space, isl_dim_set, 0,
		isl_space_dim(space, isl_dim_set));
	space = isl_space_add_dims(space, isl_dim_set,
		f->func->tensor[t].n_dim);
	space = isl_space_set_tuple_name(space, isl_dim_set,
		f->func->tensor[t].name);
	written = isl_set_empty(space);
	for (j = 0; j < f->pos; ++j) {
		const struct ein_func_stmt *s = &f->func->stmt[j];

		if (s->ast->lhs->slot != t)
			continue;
		written = isl_set_union(written, isl_map_range(access_map(
			f->ctx, f->func, isl_set_copy(s->domain),
			s->ast->lhs)));
	}
	return written;
}

/* The elements that the instances of statement "pos" before each one
 * write if it writes "t" without "!" (NULL otherwise); those its "!"
 * initialisation writes are added to *init. */
static isl_map *written_by_self(struct flow *f, int t, isl_set **init)
{
	const struct ein_func_stmt *s = &f->func->stmt[f->pos];
	isl_map *w, *before;

	if (s->ast->lhs->slot != t)
		return NULL;
	w = access_map(f->ctx, f->func, isl_set_copy(s->domain), s->ast->lhs);
	if (s->ast->init) {
		*init = isl_set_union(*init, isl_map_range(w));
		return NULL;
	}
	before = isl_map_lex_gt(isl_set_get_space(s->domain));
	before = isl_map_intersect_range(before, isl_set_copy(s->domain));
	return isl_map_apply_range(before, w);
}

/* The instances of "read" (taken) that may read an unwritten element of
 * tensor "t". */
static isl_set *unwritten(struct flow *f, int t, __isl_take isl_map *read)
{
	isl_set *written = written_before(f, t);
	isl_map *self = written_by_self(f, t, &written);
	isl_map *covered = isl_map_from_domain_and_range(
		isl_map_domain(isl_map_copy(read)), written);

	read = isl_map_subtract(read, covered);
	if (self)
		read = isl_map_subtract(read, self);
	return isl_map_domain(read);
}

/* Report "bad" (taken), the instances that read unwritten elements, if
 * any, with message "msg" at "loc". */
static void report(struct flow *f, __isl_take isl_set *bad,
	struct ein_loc loc, const char *msg)
{
	isl_bool empty = isl_set_is_empty(bad);

	if (empty == isl_bool_false) {
		ein_error_at(f->ctx, loc, "%s", msg);
		ein_range_hint_witness(f->ctx, isl_set_sample_point(bad));
		f->failed = 1;
		return;
	}
	isl_set_free(bad);
	if (empty < 0)
		f->failed = 1;
}

/* Check one read "expr" of the right-hand side, within "guard". */
static int check_read(const struct ein_ast_expr *expr,
	__isl_take isl_set *guard, void *user)
{
	struct flow *f = user;
	const struct ein_func_stmt *s = &f->func->stmt[f->pos];
	isl_set *dom = isl_set_copy(s->domain);
	isl_map *read;
	char msg[256];

	if (f->func->tensor[expr->slot].role != EIN_ROLE_TEMP) {
		isl_set_free(guard);
		isl_set_free(dom);
		return 0;
	}
	if (guard)
		dom = isl_set_intersect(dom, guard);
	read = access_map(f->ctx, f->func, dom, expr);
	snprintf(msg, sizeof(msg), "temporary '%s' is read at elements that "
		"no earlier statement writes", expr->name);
	report(f, unwritten(f, expr->slot, read), expr->loc, msg);
	return 0;
}

/* "T(i) += x" without "!" reads T(i) first: on a temporary, something
 * must have written it. */
static void check_update(struct flow *f)
{
	const struct ein_func_stmt *s = &f->func->stmt[f->pos];
	const struct ein_ast_expr *lhs = s->ast->lhs;
	isl_map *read;
	int n_error = ein_diag_n_error(f->ctx);
	char msg[256];

	if (s->ast->op == EIN_ASSIGN_SET || s->ast->init ||
	    f->func->tensor[lhs->slot].role != EIN_ROLE_TEMP)
		return;
	read = access_map(f->ctx, f->func, isl_set_copy(s->domain), lhs);
	snprintf(msg, sizeof(msg), "'%s' reads temporary '%s' before it is "
		"written", ein_assign_name(s->ast->op, 0), lhs->name);
	report(f, unwritten(f, lhs->slot, read), s->ast->op_loc, msg);
	if (ein_diag_n_error(f->ctx) != n_error)
		ein_hint(f->ctx, "did you mean '%s'?",
			ein_assign_name(s->ast->op, 1));
}

/* The elements of tensor "t" within its shape, for every value of the
 * sizes in the context, named as the indices "name" (NULL: unnamed). */
static isl_set *tensor_box(ein_ctx *ctx, const struct ein_func *func, int t,
	const char **name)
{
	const struct ein_tensor *tensor = &func->tensor[t];
	isl_space *space = ein_func_get_param_space(ctx, func);
	isl_set *box;
	int d;

	space = isl_space_add_dims(space, isl_dim_set, tensor->n_dim);
	for (d = 0; name && d < tensor->n_dim; ++d)
		space = isl_space_set_dim_name(space, isl_dim_set, d, name[d]);
	space = isl_space_set_tuple_name(space, isl_dim_set, tensor->name);
	box = isl_set_universe(space);
	box = isl_set_intersect_params(box, isl_set_copy(func->context));
	for (d = 0; d < tensor->n_dim; ++d) {
		isl_pw_aff *var = isl_pw_aff_var_on_domain(
			isl_local_space_from_space(isl_set_get_space(box)),
			isl_dim_set, d);
		isl_pw_aff *ext = isl_pw_aff_insert_domain(
			isl_pw_aff_copy(tensor->shape[d]),
			isl_set_get_space(box));
		isl_set *zero = isl_pw_aff_nonneg_set(isl_pw_aff_copy(var));

		box = isl_set_intersect(box, zero);
		box = isl_set_intersect(box, isl_pw_aff_lt_set(var, ext));
	}
	return box;
}

/* The elements of the tensor assigned by "stmt" that it writes (its "!"
 * initialisation writes the same ones). */
static isl_set *stmt_writes(ein_ctx *ctx, const struct ein_func *func,
	const struct ein_func_stmt *stmt)
{
	isl_map *w = access_map(ctx, func, isl_set_copy(stmt->domain),
		stmt->ast->lhs);

	return isl_map_range(w);
}

/* Report the elements "bad" (taken) of output "t" that no statement
 * writes, if any: the set, simplified under the sizes' context, and an
 * example. */
static int report_unwritten(ein_ctx *ctx, const struct ein_func *func,
	int t, __isl_take isl_set *bad)
{
	isl_bool empty = isl_set_is_empty(bad);
	isl_point *pnt;
	char *str;

	if (empty != isl_bool_false) {
		isl_set_free(bad);
		return empty < 0 ? -1 : 0;
	}
	pnt = isl_set_sample_point(isl_set_copy(bad));
	bad = isl_set_coalesce(isl_set_gist_params(bad,
		isl_set_copy(func->context)));
	str = isl_set_to_str(bad);
	isl_set_free(bad);
	ein_error_at(ctx, func->tensor[t].loc, "no statement writes some "
		"elements of output '%s': %s", func->tensor[t].name,
		str && strlen(str) < 600 ? str : "(a set too long to show)");
	free(str);
	ein_hint(ctx, "declare the output's shape to match the writes, "
		"or write those elements too");
	ein_range_hint_witness(ctx, pnt);
	return -1;
}

/* Does "expr" read tensor "t"? */
static int expr_reads(const struct ein_ast_expr *expr, int t)
{
	int i;

	if (expr->kind == EIN_EXPR_ACCESS && expr->slot == t)
		return 1;
	for (i = 0; i < expr->n_arg; ++i)
		if (expr_reads(expr->args[i], t))
			return 1;
	return 0;
}

/* Does "func" read output "t": in an expression, or by an update
 * without "!" ("C(i) += x" reads C(i))?  Its caller's data is then part
 * of the definition's meaning, and an update of some elements only
 * leaves the others as the caller gave them on purpose. */
static int func_reads(const struct ein_func *func, int t)
{
	int i;

	for (i = 0; i < func->n_stmt; ++i) {
		const struct ein_ast_stmt *s = func->stmt[i].ast;

		if (expr_reads(s->rhs, t))
			return 1;
		if (s->lhs->slot == t && s->op != EIN_ASSIGN_SET && !s->init)
			return 1;
	}
	return 0;
}

/* Check that the statements assigning output "t" write every element of
 * its shape, for all sizes: its box minus the images of their domains
 * under their left-hand sides must be empty.  Nothing else initialises an
 * output, so an element left out would keep whatever the caller's buffer
 * held (a padded convolution whose inferred range missed row 0 did that,
 * and the reference interpreter agreed).  An output the definition reads
 * is an input as well, which it may update in part; so is one declared
 * updated in place ("-> (A)" for an input A), even if it never reads it. */
static int check_output(ein_ctx *ctx, const struct ein_func *func, int t)
{
	const char **name = NULL;
	isl_set *left;
	int i;

	for (i = 0; i < func->n_stmt; ++i)
		if (func->stmt[i].ast->lhs->slot == t && !name)
			name = func->stmt[i].index;
	if (!name || !func->tensor[t].shape || func->tensor[t].in_place ||
	    func_reads(func, t))
		return 0;
	left = tensor_box(ctx, func, t, name);
	for (i = 0; i < func->n_stmt; ++i)
		if (func->stmt[i].ast->lhs->slot == t)
			left = isl_set_subtract(left,
				stmt_writes(ctx, func, &func->stmt[i]));
	return report_unwritten(ctx, func, t, left);
}

/* Check every output, see check_output. */
static int check_outputs(ein_ctx *ctx, const struct ein_func *func)
{
	int i, ok = 0;

	for (i = 0; i < func->n_tensor; ++i)
		if (func->tensor[i].role == EIN_ROLE_OUTPUT &&
		    check_output(ctx, func, i) < 0)
			ok = -1;
	return ok;
}

int ein_dataflow_check(ein_ctx *ctx, const struct ein_func *func)
{
	struct flow f = { ctx, func, 0, NULL, 0 };

	for (f.pos = 0; f.pos < func->n_stmt; ++f.pos) {
		f.space = isl_set_get_space(func->stmt[f.pos].domain);
		check_update(&f);
		ein_guard_foreach_access(ctx, f.space,
			func->stmt[f.pos].ast->rhs, &check_read, &f);
		isl_space_free(f.space);
	}
	if (check_outputs(ctx, func) < 0)
		f.failed = 1;
	return f.failed ? -1 : 0;
}
