/*
 * sema.c: name resolution and checks of one definition.
 *
 * Pre: an ein_ast_def as the parser builds it.
 * Post: an ein_func whose tensors, sizes and statement indices are known,
 *	and whose AST identifiers and accesses carry their resolution
 *	(ident_kind and slot).  Shapes of declared tensors are isl_pw_affs
 *	over the sizes.
 *
 * Index variables are implicit: an identifier that is not a size and that
 * appears in the indices of some access of a statement (or in its where
 * clause) is an index variable of that statement.  Those of the left-hand
 * side come first; the others are reduction indices.  A name that a where
 * clause ranges over is an index too when the statement uses it only as a
 * value.  A tensor of rank 0 named without parentheses reads its element.
 * An input named again alone among the outputs is updated in place: one
 * tensor, an output whose initial value is the caller's data.
 */
#include <stdlib.h>
#include <string.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/aff.h>
#include <isl/id.h>
#include <isl/point.h>
#include <isl/val.h>
#include "ctx.h"
#include "diag.h"
#include "frontend/builtin.h"
#include "poly/affine.h"
#include "frontend/sema.h"
#include "frontend/type.h"

int ein_func_find_tensor(const struct ein_func *func, const char *name)
{
	int i;

	for (i = 0; i < func->n_tensor; ++i)
		if (!strcmp(func->tensor[i].name, name))
			return i;
	return -1;
}

int ein_func_find_size(const struct ein_func *func, const char *name)
{
	int i;

	for (i = 0; i < func->n_size; ++i)
		if (!strcmp(func->size[i], name))
			return i;
	return -1;
}

static void func_stmt_clear(struct ein_func_stmt *stmt)
{
	free(stmt->index);
	free(stmt->index_loc);
	isl_set_free(stmt->domain);
}

static void tensor_clear(struct ein_tensor *tensor)
{
	int i;

	if (tensor->shape)
		for (i = 0; i < tensor->n_dim; ++i)
			isl_pw_aff_free(tensor->shape[i]);
	free(tensor->shape);
}

void ein_func_free(struct ein_func *func)
{
	int i;

	if (!func)
		return;
	for (i = 0; i < func->n_tensor; ++i)
		tensor_clear(&func->tensor[i]);
	for (i = 0; i < func->n_stmt; ++i)
		func_stmt_clear(&func->stmt[i]);
	free(func->tensor);
	free(func->stmt);
	free(func->size);
	isl_set_free(func->context);
	free(func);
}

isl_space *ein_func_get_param_space(ein_ctx *ctx, const struct ein_func *func)
{
	isl_ctx *ictx = ein_ctx_get_isl(ctx);
	isl_space *space = isl_space_params_alloc(ictx, func->n_size);
	int i;

	for (i = 0; i < func->n_size; ++i)
		space = isl_space_set_dim_id(space, isl_dim_param, i,
			isl_id_alloc(ictx, func->size[i], NULL));
	return space;
}

int ein_func_eval_shape(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, int pos, int64_t *shape)
{
	const struct ein_tensor *t = &func->tensor[pos];
	int d, i;

	for (d = 0; d < t->n_dim; ++d) {
		isl_pw_aff *pa = isl_pw_aff_copy(t->shape[d]);
		isl_point *pnt = isl_point_zero(isl_pw_aff_get_domain_space(pa));
		isl_val *v;

		for (i = 0; i < func->n_size; ++i)
			pnt = isl_point_set_coordinate_val(pnt, isl_dim_param,
				i, isl_val_int_from_si(ein_ctx_get_isl(ctx),
					sizes[i]));
		v = isl_pw_aff_eval(pa, pnt);
		if (!v || !isl_val_is_int(v)) {
			isl_val_free(v);
			return -1;
		}
		shape[d] = isl_val_get_num_si(v);
		isl_val_free(v);
	}
	return 0;
}

/* Add "name" to the sizes of func unless it is there already. */
static int add_size(struct ein_func *func, const char *name)
{
	const char **size;

	if (ein_func_find_size(func, name) >= 0)
		return 0;
	size = realloc(func->size, (func->n_size + 1) * sizeof(*size));
	if (!size)
		return -1;
	func->size = size;
	func->size[func->n_size++] = name;
	return 0;
}

/* Resolve the identifiers of "expr", an extent, as size symbols (new
 * ones are added); anything but integers, sizes and arithmetic is an
 * error, and ein_affine_from_expr checks the rest.  Returns -1 on
 * error. */
static int resolve_extent(ein_ctx *ctx, struct ein_func *func,
	struct ein_ast_expr *expr)
{
	int i, ok = 0;

	switch (expr->kind) {
	case EIN_EXPR_IDENT:
		if (add_size(func, expr->name) < 0) {
			ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
			return -1;
		}
		expr->ident_kind = EIN_IDENT_SIZE;
		expr->slot = ein_func_find_size(func, expr->name);
		return 0;
	case EIN_EXPR_INT:
		return 0;
	case EIN_EXPR_UNARY:
	case EIN_EXPR_BINARY:
		for (i = 0; i < expr->n_arg; ++i)
			if (resolve_extent(ctx, func, expr->args[i]) < 0)
				ok = -1;
		return ok;
	default:
		ein_error_at(ctx, expr->loc, "an extent may only combine "
			"sizes and integers with +, -, *, / and %%");
		return -1;
	}
}

/* Collect the size symbols of "param"'s shape and check its constants.
 * An input's extents are sizes or integers, from which a caller's
 * tensors give the sizes' values; an output's may be affine
 * expressions of sizes, such as (H + 1) / 2. */
static void collect_sizes(ein_ctx *ctx, struct ein_func *func,
	struct ein_ast_param *param, int output)
{
	int i;

	for (i = 0; i < param->n_dim; ++i) {
		struct ein_ast_expr *dim = param->dims[i];

		if (dim->kind == EIN_EXPR_IDENT ||
		    (output && dim->kind != EIN_EXPR_INT)) {
			if (resolve_extent(ctx, func, dim) == 0 &&
			    !ein_affine_is_quasi_affine(dim))
				ein_error_at(ctx, dim->loc, "the extent of a "
					"dimension of '%s' is not affine in "
					"the sizes", param->name);
		} else if (dim->kind != EIN_EXPR_INT || dim->ival < 1) {
			ein_error_at(ctx, dim->loc, "the extent of a dimension "
				"of '%s' must be a size symbol or a positive "
				"integer", param->name);
			if (dim->kind != EIN_EXPR_INT)
				ein_hint(ctx, "expressions of sizes, as in "
					"float32(H / 2) O, may give the shape "
					"of an output only");
		}
	}
}

/* Add a tensor to func; returns its position or -1. */
static int add_tensor(ein_ctx *ctx, struct ein_func *func, const char *name,
	enum ein_role role, struct ein_ast_param *param, struct ein_loc loc)
{
	struct ein_tensor *t;
	int pos = ein_func_find_tensor(func, name);

	if (pos >= 0) {
		ein_error_at(ctx, loc, "tensor '%s' is declared twice", name);
		return -1;
	}
	if (ein_func_find_size(func, name) >= 0) {
		ein_error_at(ctx, loc, "'%s' is already a size symbol", name);
		return -1;
	}
	t = realloc(func->tensor, (func->n_tensor + 1) * sizeof(*t));
	if (!t)
		return -1;
	func->tensor = t;
	t = &func->tensor[func->n_tensor];
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->role = role;
	t->param = param;
	t->loc = loc;
	t->type = param ? param->type : EIN_TYPE_NONE;
	t->n_dim = param ? param->n_dim : -1;
	t->declared = param && param->n_dim >= 0;
	return func->n_tensor++;
}

/* The extent "dim" of a declared shape of "t" as a piecewise quasi-affine
 * function of the sizes, or NULL after reporting an extent that is not
 * one or that is below 1 for all sizes. */
static isl_pw_aff *dim_extent(ein_ctx *ctx, __isl_keep isl_space *params,
	const struct ein_func *func, const struct ein_tensor *t,
	const struct ein_ast_expr *dim)
{
	isl_pw_aff *pa = ein_affine_from_expr(ctx, params, dim);
	isl_set *some;
	isl_bool empty;

	if (!pa)
		return NULL;
	some = isl_pw_aff_pos_set(isl_pw_aff_copy(pa));
	some = isl_set_intersect(some, isl_set_copy(func->context));
	empty = isl_set_is_empty(some);
	isl_set_free(some);
	if (empty == isl_bool_false)
		return pa;
	if (empty == isl_bool_true)
		ein_error_at(ctx, dim->loc, "the extent of a dimension of '%s' "
			"is below 1 for all sizes", t->name);
	return isl_pw_aff_free(pa);
}

/* Give the tensors with declared shapes their extents. */
static int declare_shapes(ein_ctx *ctx, struct ein_func *func)
{
	isl_space *params = ein_func_get_param_space(ctx, func);
	int i, d, ok = 0;

	for (i = 0; i < func->n_tensor; ++i) {
		struct ein_tensor *t = &func->tensor[i];

		if (!t->declared)
			continue;
		t->shape = calloc(t->n_dim + 1, sizeof(*t->shape));
		if (!t->shape)
			break;
		for (d = 0; d < t->n_dim; ++d) {
			t->shape[d] = dim_extent(ctx, params, func, t,
				t->param->dims[d]);
			if (!t->shape[d])
				ok = -1;
		}
	}
	isl_space_free(params);
	return i < func->n_tensor ? -1 : ok;
}

/* The context: every size is at least 1. */
static isl_set *size_context(ein_ctx *ctx, const struct ein_func *func)
{
	isl_set *set = isl_set_universe(ein_func_get_param_space(ctx, func));
	int i;

	for (i = 0; i < func->n_size; ++i)
		set = isl_set_lower_bound_si(set, isl_dim_param, i, 1);
	return set;
}

/* The input of func->def named "name", NULL if none. */
static struct ein_ast_param *find_input(const struct ein_func *func,
	const char *name)
{
	int i;

	for (i = 0; i < func->def->n_input; ++i)
		if (!strcmp(func->def->inputs[i]->name, name))
			return func->def->inputs[i];
	return NULL;
}

/* Is input "p" updated in place: named again, alone (without type or
 * shape), among the outputs?  It is then declared once, as an output
 * with the input's type and shape, whose initial value is the caller's
 * data (docs/language.md, "In-place kernels"). */
static int is_in_place(const struct ein_func *func,
	const struct ein_ast_param *p)
{
	int i;

	for (i = 0; i < func->def->n_output; ++i) {
		const struct ein_ast_param *o = func->def->outputs[i];

		if (o->type == EIN_TYPE_NONE && o->n_dim < 0 &&
		    !strcmp(o->name, p->name))
			return 1;
	}
	return 0;
}

/* Declare output "o": an in-place input's name takes the input's
 * declaration. */
static void declare_output(ein_ctx *ctx, struct ein_func *func,
	struct ein_ast_param *o)
{
	struct ein_ast_param *in = find_input(func, o->name);
	int pos;

	if (in && o->type == EIN_TYPE_NONE && o->n_dim < 0) {
		pos = add_tensor(ctx, func, o->name, EIN_ROLE_OUTPUT, in,
			o->loc);
		if (pos >= 0)
			func->tensor[pos].in_place = 1;
		return;
	}
	pos = add_tensor(ctx, func, o->name, EIN_ROLE_OUTPUT, o, o->loc);
	if (pos < 0 && in)
		ein_hint(ctx, "to update input '%s' in place, name it alone "
			"among the outputs: -> (%s)", o->name, o->name);
}

/* The first identifier of "expr", an extent, that is not a size of
 * "func", NULL if none. */
static const struct ein_ast_expr *unknown_size(const struct ein_func *func,
	const struct ein_ast_expr *expr)
{
	const struct ein_ast_expr *found = NULL;
	int i;

	if (expr->kind == EIN_EXPR_IDENT)
		return ein_func_find_size(func, expr->name) < 0 ? expr : NULL;
	for (i = 0; !found && i < expr->n_arg; ++i)
		found = unknown_size(func, expr->args[i]);
	return found;
}

/* Declare temporary "p", which the body declares with its type and
 * shape.  Its extents are expressions of the sizes of the inputs and
 * outputs, as a typed output's: a size that only a temporary's shape
 * named would have no value that a caller's tensors give. */
static void declare_temp(ein_ctx *ctx, struct ein_func *func,
	struct ein_ast_param *p)
{
	int i;

	for (i = 0; i < p->n_dim; ++i) {
		const struct ein_ast_expr *x = unknown_size(func, p->dims[i]);

		if (x) {
			ein_error_at(ctx, x->loc, "'%s' in the shape of "
				"temporary '%s' is not a size of the inputs "
				"or outputs", x->name, p->name);
			return;
		}
	}
	collect_sizes(ctx, func, p, 1);
	add_tensor(ctx, func, p->name, EIN_ROLE_TEMP, p, p->loc);
}

/* Declare the inputs and outputs of func->def, then the temporaries its
 * body declares.  An input updated in
 * place is declared among the outputs only. */
static void declare_params(ein_ctx *ctx, struct ein_func *func)
{
	struct ein_ast_def *def = func->def;
	int i;

	for (i = 0; i < def->n_input; ++i)
		collect_sizes(ctx, func, def->inputs[i], 0);
	for (i = 0; i < def->n_output; ++i)
		if (def->outputs[i]->n_dim >= 0)
			collect_sizes(ctx, func, def->outputs[i], 1);
	for (i = 0; i < def->n_input; ++i) {
		struct ein_ast_param *p = def->inputs[i];

		if (p->type == EIN_TYPE_NONE || p->n_dim < 0)
			ein_error_at(ctx, p->loc, "input '%s' needs a type and "
				"a shape, as in float32(M, N) %s",
				p->name, p->name);
		if (!is_in_place(func, p))
			add_tensor(ctx, func, p->name, EIN_ROLE_INPUT, p,
				p->loc);
	}
	for (i = 0; i < def->n_output; ++i)
		declare_output(ctx, func, def->outputs[i]);
	for (i = 0; i < def->n_temp; ++i)
		declare_temp(ctx, func, def->temps[i]);
}

/* Add index "name" first seen at "loc" to "stmt" unless it is there;
 * return its position. */
static int add_index(struct ein_func_stmt *stmt, const char *name,
	struct ein_loc loc)
{
	const char **index;
	struct ein_loc *iloc;
	int i;

	for (i = 0; i < stmt->n_index; ++i)
		if (!strcmp(stmt->index[i], name))
			return i;
	index = realloc(stmt->index, (stmt->n_index + 1) * sizeof(*index));
	if (index)
		stmt->index = index;
	iloc = realloc(stmt->index_loc, (stmt->n_index + 1) * sizeof(*iloc));
	if (iloc)
		stmt->index_loc = iloc;
	if (!index || !iloc)
		return -1;
	stmt->index[stmt->n_index] = name;
	stmt->index_loc[stmt->n_index] = loc;
	return stmt->n_index++;
}

/* Add the identifiers in the indices of every access in "expr" that are
 * not sizes as index variables of "stmt".  "in_index" is set inside the
 * index list of an access. */
static void collect_indices(struct ein_func *func, struct ein_func_stmt *stmt,
	struct ein_ast_expr *expr, int in_index)
{
	int i;

	if (expr->kind == EIN_EXPR_IDENT && in_index &&
	    ein_func_find_size(func, expr->name) < 0)
		add_index(stmt, expr->name, expr->loc);
	for (i = 0; i < expr->n_arg; ++i)
		collect_indices(func, stmt, expr->args[i],
			in_index || expr->kind == EIN_EXPR_ACCESS);
}

/* The position of index "name" in stmt, -1 if none. */
static int find_index(const struct ein_func_stmt *stmt, const char *name)
{
	int i;

	for (i = 0; i < stmt->n_index; ++i)
		if (!strcmp(stmt->index[i], name))
			return i;
	return -1;
}

static void resolve_expr(ein_ctx *ctx, struct ein_func *func,
	struct ein_func_stmt *stmt, struct ein_ast_expr *expr);

/* "beta", the name of a tensor of rank 0, reads its only element: make
 * the identifier the access "beta()" to tensor "pos", so that every later
 * pass sees an access. */
static void read_scalar(struct ein_ast_expr *expr, int pos)
{
	expr->kind = EIN_EXPR_ACCESS;
	expr->ident_kind = EIN_IDENT_UNRESOLVED;
	expr->slot = pos;
}

static void resolve_ident(ein_ctx *ctx, struct ein_func *func,
	struct ein_func_stmt *stmt, struct ein_ast_expr *expr)
{
	int pos = find_index(stmt, expr->name);

	if (pos >= 0) {
		expr->ident_kind = EIN_IDENT_INDEX;
		expr->slot = pos;
		return;
	}
	pos = ein_func_find_size(func, expr->name);
	if (pos >= 0) {
		expr->ident_kind = EIN_IDENT_SIZE;
		expr->slot = pos;
		return;
	}
	pos = ein_func_find_tensor(func, expr->name);
	if (pos >= 0 && func->tensor[pos].n_dim == 0) {
		read_scalar(expr, pos);
		return;
	}
	if (pos >= 0) {
		ein_error_at(ctx, expr->loc, "tensor '%s' used without "
			"indices", expr->name);
		return;
	}
	ein_error_at(ctx, expr->loc, "unknown name '%s'", expr->name);
	ein_hint(ctx, "an index variable must index some tensor of the "
		"statement; sizes come from the parameters' shapes");
}

/* Does a statement after those seen so far assign tensor "name"? */
static int assigned_later(const struct ein_func *func, const char *name)
{
	int i;

	for (i = func->n_stmt; i < func->def->n_stmt; ++i)
		if (!strcmp(func->def->stmts[i]->lhs->name, name))
			return 1;
	return 0;
}

/* The builtin function closest to "name", or NULL: one edit away for
 * names of three or four letters, two for longer ones (shorter names are
 * more likely tensors). */
static const char *near_builtin(const char *name)
{
	size_t len = strlen(name);

	return ein_builtin_nearest(name, len < 3 ? 0 : len < 5 ? 2 : 3);
}

/* An unknown name used as "NAME(args)": a misspelt function if it is
 * close to one, else an unknown tensor. */
static void report_unknown(ein_ctx *ctx, struct ein_ast_expr *expr)
{
	const char *fn = near_builtin(expr->name);

	if (fn) {
		ein_error_at(ctx, expr->loc, "unknown function '%s'",
			expr->name);
		ein_hint(ctx, "did you mean '%s'?", fn);
	} else
		ein_error_at(ctx, expr->loc, "unknown tensor '%s'",
			expr->name);
}

static void resolve_access(ein_ctx *ctx, struct ein_func *func,
	struct ein_func_stmt *stmt, struct ein_ast_expr *expr)
{
	int pos = ein_func_find_tensor(func, expr->name);
	const struct ein_tensor *t;

	if (pos < 0) {
		int n_arg = ein_builtin_arity(expr->name);

		if (n_arg >= 0) {
			ein_error_at(ctx, expr->loc, "'%s' takes %d "
				"argument%s, not %d", expr->name, n_arg,
				n_arg == 1 ? "" : "s", expr->n_arg);
			return;
		}
		if (assigned_later(func, expr->name))
			ein_error_at(ctx, expr->loc, "temporary '%s' is read "
				"before any statement writes it", expr->name);
		else
			report_unknown(ctx, expr);
		return;
	}
	t = &func->tensor[pos];
	expr->slot = pos;
	if (t->n_dim >= 0 && t->n_dim != expr->n_arg)
		ein_error_at(ctx, expr->loc, "tensor '%s' has %d dimension%s "
			"but is indexed with %d", expr->name, t->n_dim,
			t->n_dim == 1 ? "" : "s", expr->n_arg);
}

/* Resolve the names in "expr", a right-hand side or an index. */
static void resolve_expr(ein_ctx *ctx, struct ein_func *func,
	struct ein_func_stmt *stmt, struct ein_ast_expr *expr)
{
	int i;

	if (expr->kind == EIN_EXPR_IDENT)
		resolve_ident(ctx, func, stmt, expr);
	else if (expr->kind == EIN_EXPR_ACCESS)
		resolve_access(ctx, func, stmt, expr);
	else if (expr->kind == EIN_EXPR_CALL &&
		 ein_builtin_get(expr->fn)->n_arg != expr->n_arg)
		ein_error_at(ctx, expr->loc, "'%s' takes %d argument%s, not "
			"%d", expr->name, ein_builtin_get(expr->fn)->n_arg,
			ein_builtin_get(expr->fn)->n_arg == 1 ? "" : "s",
			expr->n_arg);
	for (i = 0; i < expr->n_arg; ++i)
		resolve_expr(ctx, func, stmt, expr->args[i]);
}

/* Check the left-hand side of "stmt": a tensor that may be written, indexed
 * by distinct index variables.  A tensor assigned for the first time that
 * is neither an input nor an output becomes a temporary. */
static void check_lhs(ein_ctx *ctx, struct ein_func *func,
	struct ein_func_stmt *stmt)
{
	struct ein_ast_expr *lhs = stmt->ast->lhs;
	int i, pos = ein_func_find_tensor(func, lhs->name);

	if (pos >= 0 && func->tensor[pos].role == EIN_ROLE_INPUT) {
		ein_error_at(ctx, lhs->loc, "cannot assign to input '%s'",
			lhs->name);
		ein_hint(ctx, "to update it in place, name it alone among "
			"the outputs too: -> (%s)", lhs->name);
	}
	if (pos < 0)
		pos = add_tensor(ctx, func, lhs->name, EIN_ROLE_TEMP, NULL,
			lhs->loc);
	if (pos >= 0 && func->tensor[pos].n_dim < 0)
		func->tensor[pos].n_dim = lhs->n_arg;
	for (i = 0; i < lhs->n_arg; ++i) {
		struct ein_ast_expr *idx = lhs->args[i];

		if (idx->kind != EIN_EXPR_IDENT ||
		    ein_func_find_size(func, idx->name) >= 0) {
			ein_error_at(ctx, idx->loc, "the indices of the "
				"assigned tensor must be index variables");
			continue;
		}
		if (add_index(stmt, idx->name, idx->loc) != i)
			ein_error_at(ctx, idx->loc, "index '%s' appears twice "
				"on the left-hand side", idx->name);
	}
	stmt->n_lhs = stmt->n_index;
}

/* A statement with reduction indices must reduce: "=" would keep only the
 * last value. */
static void check_reduction_op(ein_ctx *ctx, struct ein_func_stmt *stmt)
{
	if (stmt->n_index == stmt->n_lhs || stmt->ast->op != EIN_ASSIGN_SET)
		return;
	ein_error_at(ctx, stmt->index_loc[stmt->n_lhs], "index '%s' appears "
		"only on the right-hand side, so it is a reduction index, but "
		"'=' does not reduce", stmt->index[stmt->n_lhs]);
	ein_hint(ctx, "did you mean '+=!'?");
}

static void check_where(ein_ctx *ctx, struct ein_func *func,
	struct ein_func_stmt *stmt)
{
	int i;

	for (i = 0; i < stmt->ast->n_where; ++i) {
		struct ein_ast_where *w = stmt->ast->where[i];

		if (find_index(stmt, w->name) < 0)
			ein_error_at(ctx, w->loc, "'%s' is not an index of "
				"this statement", w->name);
		resolve_expr(ctx, func, stmt, w->lo);
		resolve_expr(ctx, func, stmt, w->hi);
	}
}

/* The first identifier "name" in "expr" outside the indices of accesses
 * (where it is an index anyway), NULL if none. */
static struct ein_ast_expr *find_value_use(struct ein_ast_expr *expr,
	const char *name)
{
	struct ein_ast_expr *found = NULL;
	int i;

	if (expr->kind == EIN_EXPR_IDENT && !strcmp(expr->name, name))
		return expr;
	if (expr->kind == EIN_EXPR_ACCESS)
		return NULL;
	for (i = 0; !found && i < expr->n_arg; ++i)
		found = find_value_use(expr->args[i], name);
	return found;
}

/* The first use of "name" as a value in the right-hand side of "stmt" or
 * in the bounds of its where clauses other than "self", NULL if none. */
static struct ein_ast_expr *where_name_use(struct ein_ast_stmt *stmt,
	const struct ein_ast_where *self, const char *name)
{
	struct ein_ast_expr *use = find_value_use(stmt->rhs, name);
	int i;

	for (i = 0; !use && i < stmt->n_where; ++i) {
		if (stmt->where[i] == self)
			continue;
		use = find_value_use(stmt->where[i]->lo, name);
		if (!use)
			use = find_value_use(stmt->where[i]->hi, name);
	}
	return use;
}

/* A name that a where clause gives a range is an index of the statement
 * even when no access uses it, provided the statement uses it as a value
 * ("y(i) +=! x(i) * k where k in 0:i + 1"): add those after the indices
 * of the accesses.  A where name used nowhere stays an error
 * (check_where). */
static void collect_where_indices(struct ein_func *func,
	struct ein_func_stmt *stmt)
{
	int i;

	for (i = 0; i < stmt->ast->n_where; ++i) {
		struct ein_ast_where *w = stmt->ast->where[i];
		struct ein_ast_expr *use;

		if (find_index(stmt, w->name) >= 0 ||
		    ein_func_find_size(func, w->name) >= 0)
			continue;
		use = where_name_use(stmt->ast, w, w->name);
		if (use)
			add_index(stmt, w->name, use->loc);
	}
}

static void check_stmt(ein_ctx *ctx, struct ein_func *func,
	struct ein_func_stmt *stmt)
{
	check_lhs(ctx, func, stmt);
	collect_indices(func, stmt, stmt->ast->rhs, 0);
	collect_where_indices(func, stmt);
	resolve_expr(ctx, func, stmt, stmt->ast->lhs);
	resolve_expr(ctx, func, stmt, stmt->ast->rhs);
	check_where(ctx, func, stmt);
	check_reduction_op(ctx, stmt);
}

/* A declared temporary that no statement assigns is a mistake (a
 * misspelt name, a statement left out). */
static void check_temps_assigned(ein_ctx *ctx, const struct ein_func *func)
{
	int i, j;

	for (i = 0; i < func->n_tensor; ++i) {
		const struct ein_tensor *t = &func->tensor[i];

		if (t->role != EIN_ROLE_TEMP || !t->param)
			continue;
		for (j = 0; j < func->n_stmt; ++j)
			if (!strcmp(func->stmt[j].ast->lhs->name, t->name))
				break;
		if (j == func->n_stmt)
			ein_error_at(ctx, t->loc, "temporary '%s' is declared "
				"but no statement assigns it", t->name);
	}
}

struct ein_func *ein_sema_def(ein_ctx *ctx, struct ein_ast_def *def)
{
	struct ein_func *func = calloc(1, sizeof(*func));
	int n_error = ein_diag_n_error(ctx), i;

	if (!func)
		return NULL;
	func->def = def;
	declare_params(ctx, func);
	func->stmt = calloc(def->n_stmt + 1, sizeof(*func->stmt));
	if (!func->stmt)
		return (ein_func_free(func), NULL);
	for (i = 0; i < def->n_stmt; ++i) {
		func->stmt[i].ast = def->stmts[i];
		func->n_stmt++;
		check_stmt(ctx, func, &func->stmt[i]);
	}
	if (def->n_stmt == 0)
		ein_error_at(ctx, def->loc, "definition '%s' has no "
			"statements", def->name);
	else
		check_temps_assigned(ctx, func);
	ein_type_check(ctx, func);
	func->context = size_context(ctx, func);
	if (ein_diag_n_error(ctx) != n_error || declare_shapes(ctx, func) < 0)
		return (ein_func_free(func), NULL);
	return func;
}
