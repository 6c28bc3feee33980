/*
 * range.c: iteration domains and inferred shapes, with isl.
 *
 * The range of an index variable is the largest one that keeps every access
 * it takes part in within bounds for all values of the other indices in
 * their ranges, as in Tensor Comprehensions: each index's range is a slab
 * { I : lo(sizes) <= i < hi(sizes) }, first found from the accesses whose
 * other indices already have a range (and from "where i in lo:hi"), then
 * narrowed until nothing changes.  The domain is the product of the
 * ranges, so for Y(i) +=! X(i + r) * W(r), r is in 0..R-1 and i in
 * 0..N-R, never a parallelogram reaching below 0.  An access guarded by
 * an affine condition (guard.h) is used only for the indices that no
 * unguarded access bounds, so that the padded access I(h + r - 1) of a
 * convolution does not shrink h; for those it allows the values where its
 * guard can hold with the access in bounds (as well as those where the
 * access is in bounds for all values of the other indices), so that a
 * padded stride-2 convolution with an inferred output writes its row 0
 * (range 0 <= 2y <= H, not 1 <= y, 2y + 2 <= H).  Every access is then checked to stay in
 * bounds over the domain within its guard; one that may not is an error
 * with a witness.  Statements are visited in source order so that a
 * temporary's shape, inferred from the statements assigning it, is known
 * to the statements that read it.  A tensor without a declared shape gets
 * extent_d = 1 + max f_d over the domains of the statements assigning it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/local_space.h>
#include <isl/val.h>
#include <isl/id.h>
#include <isl/set.h>
#include <isl/aff.h>
#include <isl/point.h>
#include "ctx.h"
#include "diag.h"
#include "poly/affine.h"
#include "frontend/guard.h"
#include "frontend/range.h"

__isl_give isl_space *ein_func_stmt_space(ein_ctx *ctx,
	const struct ein_func *func, int pos)
{
	const struct ein_func_stmt *stmt = &func->stmt[pos];
	isl_ctx *ictx = ein_ctx_get_isl(ctx);
	isl_space *space = ein_func_get_param_space(ctx, func);
	char name[32];
	int i;

	space = isl_space_add_dims(space, isl_dim_set, stmt->n_index);
	for (i = 0; i < stmt->n_index; ++i)
		space = isl_space_set_dim_id(space, isl_dim_set, i,
			isl_id_alloc(ictx, stmt->index[i], NULL));
	snprintf(name, sizeof(name), "S%d", pos);
	return isl_space_set_tuple_name(space, isl_dim_set, name);
}

/* { I : 0 <= f(I) < extent }, with extent given over the parameters. */
static isl_set *in_bounds(__isl_take isl_pw_aff *f,
	__isl_keep isl_pw_aff *extent)
{
	isl_space *space = isl_pw_aff_get_domain_space(f);
	isl_pw_aff *e = isl_pw_aff_insert_domain(isl_pw_aff_copy(extent),
		space);
	isl_set *lower = isl_pw_aff_nonneg_set(isl_pw_aff_copy(f));

	return isl_set_intersect(lower, isl_pw_aff_lt_set(f, e));
}

/* One dimension of an access to a tensor of known shape, which must stay
 * within 0 .. extent - 1.
 * access: the access, for messages; dim: the dimension;
 * in: { I : 0 <= f(I) < extent } in the statement's space;
 * guard: where the access is evaluated (guard.h), NULL if everywhere;
 * uses: the indices f involves, as a bit set. */
struct bound {
	const struct ein_ast_expr *access;
	int dim;
	isl_set *in;
	isl_set *guard;
	uint64_t uses;
};

/* The state of range inference for one statement.
 * ctx, func: for messages and tensors;
 * space: the statement's set space; context: the sizes' constraints
 * (as a set in space); n_bound, bound: the bounds of its accesses;
 * range: for each index, the set of its values (a slab of space) or
 * NULL while unknown;
 * guarded: the indices that guarded accesses may bound (a bit set, empty
 *	while the unguarded accesses are being used). */
struct ranges {
	ein_ctx *ctx;
	const struct ein_func *func;
	isl_space *space;
	isl_set *context;
	int n_bound;
	struct bound bound[256];
	isl_set *range[64];
	uint64_t guarded;
};

static uint64_t index_uses(const struct ein_ast_expr *x)
{
	uint64_t uses = 0;
	int i;

	if (x->kind == EIN_EXPR_IDENT && x->ident_kind == EIN_IDENT_INDEX)
		uses |= UINT64_C(1) << x->slot;
	for (i = 0; i < x->n_arg; ++i)
		uses |= index_uses(x->args[i]);
	return uses;
}

/* Add the bounds of access "expr", evaluated in "guard" (taken), if its
 * tensor has a known shape. */
static int add_bounds(const struct ein_ast_expr *expr,
	__isl_take isl_set *guard, void *user)
{
	struct ranges *r = user;
	const struct ein_tensor *t = &r->func->tensor[expr->slot];
	int i;

	for (i = 0; t->shape && i < expr->n_arg && r->n_bound < 256; ++i) {
		struct bound *b = &r->bound[r->n_bound];
		isl_pw_aff *f;

		f = ein_affine_from_expr(r->ctx, r->space, expr->args[i]);
		if (!f)
			continue;
		b->access = expr;
		b->dim = i;
		b->in = in_bounds(f, t->shape[i]);
		b->guard = guard ? isl_set_copy(guard) : NULL;
		b->uses = index_uses(expr->args[i]);
		r->n_bound++;
	}
	isl_set_free(guard);
	return 0;
}

/* Collect the bounds of every access in "expr" to a tensor of known
 * shape, with their guards. */
static void collect_bounds(const struct ein_ast_expr *expr, struct ranges *r)
{
	ein_guard_foreach_access(r->ctx, r->space, expr, &add_bounds, r);
}

/* The explicit ranges "where i in lo:hi". */
static void where_ranges(ein_ctx *ctx, const struct ein_func_stmt *stmt,
	struct ranges *r)
{
	int i, pos;

	for (i = 0; i < stmt->ast->n_where; ++i) {
		struct ein_ast_where *w = stmt->ast->where[i];
		isl_pw_aff *lo, *hi, *var;
		isl_set *slab;

		for (pos = 0; pos < stmt->n_index; ++pos)
			if (!strcmp(stmt->index[pos], w->name))
				break;
		lo = ein_affine_from_expr(ctx, r->space, w->lo);
		hi = ein_affine_from_expr(ctx, r->space, w->hi);
		var = isl_pw_aff_var_on_domain(
			isl_local_space_from_space(isl_space_copy(r->space)),
			isl_dim_set, pos);
		slab = isl_pw_aff_ge_set(isl_pw_aff_copy(var), lo);
		slab = isl_set_intersect(slab, isl_pw_aff_lt_set(var, hi));
		r->range[pos] = r->range[pos] ?
			isl_set_intersect(r->range[pos], slab) : slab;
	}
}

/* The values of index x for which bound b holds whatever values the
 * other indices it uses take in their ranges: the complement of the
 * values of x for which some such values break it. */
static isl_set *valid_values(struct ranges *r, const struct bound *b, int x)
{
	isl_set *bad = isl_set_copy(r->context);
	int i, n = isl_space_dim(r->space, isl_dim_set);

	for (i = 0; i < n; ++i)
		if (i != x && (b->uses >> i) & 1)
			bad = isl_set_intersect(bad,
				isl_set_copy(r->range[i]));
	bad = isl_set_subtract(bad, isl_set_copy(b->in));
	for (i = 0; i < n; ++i)
		if (i != x)
			bad = isl_set_eliminate(bad, isl_dim_set, i, 1);
	return isl_set_coalesce(isl_set_subtract(isl_set_copy(r->context),
		bad));
}

/* The values of index x for which the guarded access of bound b can be
 * evaluated in bounds: those for which some values of the other indices
 * in their ranges (or any value, for those without one yet) satisfy the
 * guard and keep the access within its extent.  For a padded stride-2
 * convolution "(2y + r >= 1 && ...) ? I(2y + r - 1) : 0" these are
 * 0 <= 2y <= H, where the guard can hold, not the values for which
 * every r keeps I(2y + r - 1) in bounds (1 <= y and 2y + 2 <= H), which
 * would leave row 0 of the output unwritten. */
static isl_set *reachable_values(struct ranges *r, const struct bound *b,
	int x)
{
	isl_set *set = isl_set_intersect(isl_set_copy(r->context),
		isl_set_copy(b->guard));
	int i, n = isl_space_dim(r->space, isl_dim_set);

	set = isl_set_intersect(set, isl_set_copy(b->in));
	for (i = 0; i < n; ++i)
		if (i != x && r->range[i])
			set = isl_set_intersect(set,
				isl_set_copy(r->range[i]));
	for (i = 0; i < n; ++i)
		if (i != x)
			set = isl_set_eliminate(set, isl_dim_set, i, 1);
	return isl_set_coalesce(set);
}

static isl_bool is_bounded(__isl_keep isl_set *range, int pos);

/* The slab min <= x <= max of the values of index x in "set" (taken), a
 * set that constrains x only, so that the ranges stay simple functions of
 * the sizes rather than growing existentials from round to round; "set"
 * itself if x is unbounded in it. */
static isl_set *slab_hull(__isl_take isl_set *set, int x)
{
	isl_space *space = isl_set_get_space(set);
	isl_pw_aff *var, *lo, *hi;
	isl_set *slab;

	if (is_bounded(set, x) != isl_bool_true) {
		isl_space_free(space);
		return set;
	}
	lo = isl_pw_aff_insert_domain(isl_set_dim_min(isl_set_copy(set), x),
		isl_space_copy(space));
	hi = isl_pw_aff_insert_domain(isl_set_dim_max(set, x),
		isl_space_copy(space));
	var = isl_pw_aff_var_on_domain(isl_local_space_from_space(space),
		isl_dim_set, x);
	slab = isl_pw_aff_ge_set(isl_pw_aff_copy(var), lo);
	slab = isl_set_intersect(slab, isl_pw_aff_le_set(var, hi));
	return isl_set_coalesce(slab);
}

/* The values that bound b allows for index x: those for which it always
 * holds and, for a guarded access, also those for which its guard can
 * hold (the instances where it does not evaluate the other branch), as
 * one slab. */
static isl_set *allowed_values(struct ranges *r, const struct bound *b,
	int x)
{
	isl_set *v = valid_values(r, b, x);

	if (!b->guard)
		return v;
	return slab_hull(isl_set_union(v, reachable_values(r, b, x)), x);
}

/* Can bound b give index x a range: does it use x, and no other index
 * whose range is unknown?  A guarded access counts only for the indices
 * that no unguarded access bounds, and only when all the indices it uses
 * are such: "(h + r >= 1) ? I(h + r - 1) : 0" must not narrow h. */
static int determines(const struct ranges *r, const struct bound *b, int x)
{
	int i;

	if (!((b->uses >> x) & 1))
		return 0;
	if (b->guard && (b->uses & ~r->guarded))
		return 0;
	for (i = 0; i < 64; ++i)
		if (i != x && ((b->uses >> i) & 1) && !r->range[i])
			return 0;
	return 1;
}

/* Narrow the range of index x with every bound that determines it.
 * Returns 1 if the range changed. */
static int narrow(struct ranges *r, int x)
{
	isl_set *range = r->range[x] ? isl_set_copy(r->range[x]) : NULL;
	isl_bool same;
	int i;

	for (i = 0; i < r->n_bound; ++i) {
		isl_set *v;

		if (!determines(r, &r->bound[i], x))
			continue;
		v = allowed_values(r, &r->bound[i], x);
		range = range ? isl_set_intersect(range, v) : v;
	}
	if (!range)
		return 0;
	range = isl_set_coalesce(range);
	same = r->range[x] ? isl_set_is_equal(range, r->range[x]) :
		isl_bool_false;
	isl_set_free(r->range[x]);
	r->range[x] = range;
	return same == isl_bool_false;
}

/* Give each index the largest range keeping all accesses in bounds for
 * every value of the other indices, as Tensor Comprehensions does: an
 * index is first bounded by the accesses whose other indices are already
 * bounded, and ranges narrow until nothing changes (a few rounds). */
static void narrow_all(struct ranges *r, int n)
{
	int round, x, changed = 1;

	for (round = 0; changed && round < 2 * n + 2; ++round) {
		changed = 0;
		for (x = 0; x < n; ++x)
			changed |= narrow(r, x);
	}
}

/* Infer from the unguarded accesses first; the indices left without a
 * range may then be bounded by guarded accesses too. */
static void infer_ranges(struct ranges *r, int n)
{
	int x;

	narrow_all(r, n);
	for (x = 0; x < n; ++x)
		if (!r->range[x])
			r->guarded |= UINT64_C(1) << x;
	if (r->guarded)
		narrow_all(r, n);
}

static void ranges_clear(struct ranges *r)
{
	int i;

	for (i = 0; i < r->n_bound; ++i) {
		isl_set_free(r->bound[i].in);
		isl_set_free(r->bound[i].guard);
	}
	for (i = 0; i < 64; ++i)
		isl_set_free(r->range[i]);
	isl_set_free(r->context);
	isl_space_free(r->space);
}

/* Extend the inferred shape of the tensor that statement "stmt" assigns
 * with the largest index values in "dom". */
static void infer_shape(struct ein_func *func,
	const struct ein_func_stmt *stmt, __isl_keep isl_set *dom)
{
	struct ein_tensor *t = &func->tensor[stmt->ast->lhs->slot];
	int d;

	if (t->declared)
		return;
	if (!t->shape)
		t->shape = calloc(t->n_dim + 1, sizeof(*t->shape));
	if (!t->shape)
		return;
	for (d = 0; d < t->n_dim; ++d) {
		isl_pw_aff *max = isl_set_dim_max(isl_set_copy(dom), d);

		max = isl_pw_aff_add_constant_val(max,
			isl_val_one(isl_set_get_ctx(dom)));
		max = isl_pw_aff_gist(max, isl_set_copy(func->context));
		max = isl_pw_aff_coalesce(max);
		if (t->shape[d])
			max = isl_pw_aff_union_max(t->shape[d], max);
		t->shape[d] = max;
	}
}

/* An inferred shape starts at index 0, so the left-hand side of a
 * tensor without a declared shape must not reach a negative index in
 * "dom" (a temporary whose index only guarded accesses bound ranges
 * from where the guard can first hold, -1 for a padded convolution's
 * window, and would write before its buffer).  An error at the index
 * if it may; a declared shape is checked with the other accesses. */
static int check_lhs_nonnegative(ein_ctx *ctx, const struct ein_func *func,
	const struct ein_func_stmt *stmt, __isl_keep isl_set *dom)
{
	const struct ein_ast_expr *lhs = stmt->ast->lhs;
	const struct ein_tensor *t = &func->tensor[lhs->slot];
	isl_bool empty = isl_bool_true;
	int d;

	for (d = 0; !t->declared && d < t->n_dim; ++d) {
		isl_set *neg = isl_set_upper_bound_si(isl_set_copy(dom),
			isl_dim_set, d, -1);

		empty = isl_set_is_empty(neg);
		isl_set_free(neg);
		if (empty != isl_bool_true)
			break;
	}
	if (empty == isl_bool_error)
		return -1;
	if (empty == isl_bool_true)
		return 0;
	ein_error_at(ctx, lhs->args[d]->loc, "index %d of '%s' may be "
		"negative, before the start of its inferred shape", d,
		t->name);
	ein_hint(ctx, "bound it with 'where %s in 0:...'",
		lhs->args[d]->name);
	return -1;
}

/* Is the range "range" of index "pos" bounded above and below by
 * functions of the sizes? */
static isl_bool is_bounded(__isl_keep isl_set *range, int pos)
{
	isl_set *set = isl_set_copy(range);
	int n = isl_set_dim(range, isl_dim_set);
	isl_bool bounded;

	set = isl_set_project_out(set, isl_dim_set, pos + 1, n - pos - 1);
	set = isl_set_project_out(set, isl_dim_set, 0, pos);
	bounded = isl_set_dim_has_lower_bound(set, isl_dim_set, 0);
	if (bounded == isl_bool_true)
		bounded = isl_set_dim_has_upper_bound(set, isl_dim_set, 0);
	isl_set_free(set);
	return bounded;
}

static isl_set *domain(struct ranges *r, int n);

/* Is index "pos" bounded by functions of the sizes?  Its range alone may
 * not be when it depends on other indices ("where k in 0:i + 1"): then
 * the product of all the ranges, once every index has one, tells. */
static isl_bool index_is_bounded(struct ranges *r, int n, int pos)
{
	isl_bool bounded;
	isl_set *dom;
	int i;

	if (!r->range[pos])
		return isl_bool_false;
	bounded = is_bounded(r->range[pos], pos);
	for (i = 0; i < n; ++i)
		if (!r->range[i])
			return bounded;
	if (bounded != isl_bool_false)
		return bounded;
	dom = domain(r, n);
	bounded = is_bounded(dom, pos);
	isl_set_free(dom);
	return bounded;
}

static int check_ranges(ein_ctx *ctx, const struct ein_func_stmt *stmt,
	struct ranges *r)
{
	int i, ok = 0;

	for (i = 0; i < stmt->n_index; ++i) {
		if (index_is_bounded(r, stmt->n_index, i) == isl_bool_true)
			continue;
		ein_error_at(ctx, stmt->index_loc[i], "index '%s' has no "
			"range: no access to a tensor of known shape bounds "
			"it", stmt->index[i]);
		ein_hint(ctx, "give it one with 'where %s in LO:HI'",
			stmt->index[i]);
		ok = -1;
	}
	return ok;
}

void ein_range_hint_witness(ein_ctx *ctx, __isl_take isl_point *pnt)
{
	static const enum isl_dim_type types[2] = { isl_dim_param,
		isl_dim_set };
	isl_space *space = isl_point_get_space(pnt);
	char buf[512];
	int len = 0, i, t;

	buf[0] = '\0';
	for (t = 0; t < 2; ++t)
		for (i = 0; i < isl_space_dim(space, types[t]); ++i) {
			isl_val *v = isl_point_get_coordinate_val(pnt,
				types[t], i);
			const char *name = isl_space_get_dim_name(space,
				types[t], i);

			if (len < (int) sizeof(buf) - 64)
				len += snprintf(buf + len, sizeof(buf) - len,
					"%s%s = %ld", len ? ", " : "",
					name ? name : "?",
					isl_val_get_num_si(v));
			isl_val_free(v);
		}
	isl_space_free(space);
	isl_point_free(pnt);
	ein_hint(ctx, "for example at %s", buf);
}

/* Check that every access stays in bounds over the domain "dom" where it
 * is evaluated (within its guard): the inferred ranges guarantee it unless
 * explicit ranges, guards or several accesses disagree, which is then the
 * user's error, shown with a witness. */
static int check_in_bounds(ein_ctx *ctx, const struct ranges *r,
	__isl_keep isl_set *dom)
{
	int i, ok = 0;

	for (i = 0; i < r->n_bound; ++i) {
		const struct bound *b = &r->bound[i];
		isl_set *out = isl_set_copy(dom);
		isl_bool empty;

		if (b->guard)
			out = isl_set_intersect(out, isl_set_copy(b->guard));
		out = isl_set_subtract(out, isl_set_copy(b->in));
		empty = isl_set_is_empty(out);

		if (empty == isl_bool_false) {
			ein_error_at(ctx, b->access->args[b->dim]->loc,
				"index %d of '%s' may be out of bounds",
				b->dim, b->access->name);
			ein_range_hint_witness(ctx, isl_set_sample_point(
				isl_set_copy(out)));
			ok = -1;
		}
		isl_set_free(out);
		if (empty < 0)
			ok = -1;
	}
	return ok;
}

/* The domain of a statement: the product of its indices' ranges under
 * the sizes' context. */
static isl_set *domain(struct ranges *r, int n)
{
	isl_set *dom = isl_set_copy(r->context);
	int i;

	for (i = 0; i < n; ++i)
		dom = isl_set_intersect(dom, isl_set_copy(r->range[i]));
	return isl_set_coalesce(dom);
}

static int infer_stmt(ein_ctx *ctx, struct ein_func *func, int pos)
{
	struct ein_func_stmt *stmt = &func->stmt[pos];
	struct ranges *r = calloc(1, sizeof(*r));
	int n_error = ein_diag_n_error(ctx), ok = -1;
	isl_set *dom = NULL;

	if (!r)
		return -1;
	r->ctx = ctx;
	r->func = func;
	r->space = ein_func_stmt_space(ctx, func, pos);
	r->context = isl_set_intersect_params(
		isl_set_universe(isl_space_copy(r->space)),
		isl_set_copy(func->context));
	if (stmt->n_index > 64)
		ein_error_at(ctx, stmt->ast->loc, "too many indices (at most "
			"64)");
	else {
		collect_bounds(stmt->ast->lhs, r);
		collect_bounds(stmt->ast->rhs, r);
		where_ranges(ctx, stmt, r);
	}
	if (ein_diag_n_error(ctx) == n_error) {
		infer_ranges(r, stmt->n_index);
		ok = check_ranges(ctx, stmt, r);
	}
	if (ok == 0) {
		dom = domain(r, stmt->n_index);
		ok = check_in_bounds(ctx, r, dom);
	}
	if (ok == 0 && isl_set_is_empty(dom) != isl_bool_false) {
		ein_error_at(ctx, stmt->ast->loc, "this statement never runs: "
			"the ranges of its indices are empty for all sizes");
		ok = -1;
	}
	if (ok == 0)
		ok = check_lhs_nonnegative(ctx, func, stmt, dom);
	if (ok == 0) {
		infer_shape(func, stmt, dom);
		stmt->domain = isl_set_copy(dom);
	}
	isl_set_free(dom);
	ranges_clear(r);
	free(r);
	return ok;
}

int ein_range_infer(ein_ctx *ctx, struct ein_func *func)
{
	int i, ok = 0;

	for (i = 0; i < func->n_stmt; ++i)
		if (infer_stmt(ctx, func, i) < 0)
			ok = -1;
	for (i = 0; ok == 0 && i < func->n_tensor; ++i)
		if (!func->tensor[i].shape &&
		    func->tensor[i].role != EIN_ROLE_INPUT) {
			ein_error_at(ctx, func->tensor[i].loc, "output '%s' "
				"is never assigned", func->tensor[i].name);
			ok = -1;
		}
	return ok;
}
