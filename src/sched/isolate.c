/*
 * isolate.c: full-tile separation (isolate.h).
 *
 * For a statement whose loops at levels l1 < l2 < ... want full tiles, let
 * P be the points of its schedule space (the level values of its
 * instances) and L = l1 - 1 the loop just outside the outermost of them.
 * A loop at level l is full for a prefix p (the values of levels 0..l-1)
 * when its values for p are the T consecutive values from their minimum,
 * T its largest trip count; the prefixes where it is not are
 *	bad_l = dom({ p -> v : min(p) <= v < min(p) + T } \ { p -> v in P }).
 * The prefixes at level L where loop l is full are the projection of P on
 * levels 0..L minus bad_l projected there.  Simplified in the context of
 * P, that set depends only on a few levels (for a tile, the outer loop of
 * the tile); the deepest of them, d, is where isolating splits the
 * iterations best, so the set is projected on levels 0..d.  Each loop is
 * isolated on its own (the sets of loops with the same d intersected):
 * in a tile at the edge of j, the loop over i is still full and unrolled
 * without conditions.  Isolating at a parallel loop would split it in two
 * loops, the partial tiles' one outside the loop the threads share (run
 * by one thread, after the others: the last column panel of an SGEMM of
 * odd size); the set is then isolated one level deeper, for every value
 * of that level, so that the parallel loop stays whole and its iterations
 * choose between the full and the general code.
 *
 * Only speed depends on the set: isl generates every instance whatever
 * is isolated, so an approximation can never make a kernel wrong.
 */

#include <stdio.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/val.h>
#include <isl/id.h>
#include <isl/space.h>
#include <isl/ilp.h>
#include <isl/union_set.h>
#include <isl/schedule_node.h>
#include "sched/isolate.h"

/* The level values of the instances of "stmt". */
static __isl_give isl_set *points(const struct ein_isolate_stmt *stmt)
{
	isl_space *space = isl_set_get_space(stmt->domain);
	isl_multi_pw_aff *mpa;
	int k;

	space = isl_space_map_from_domain_and_range(isl_space_copy(space),
		isl_space_add_dims(isl_space_params(space), isl_dim_set,
			stmt->n_level));
	mpa = isl_multi_pw_aff_zero(space);
	for (k = 0; k < stmt->n_level; ++k)
		mpa = isl_multi_pw_aff_set_pw_aff(mpa, k,
			isl_pw_aff_copy(stmt->val[k]));
	return isl_map_range(isl_map_intersect_domain(
		isl_map_from_multi_pw_aff(mpa), isl_set_copy(stmt->domain)));
}

/* The projection of "set" on its first "n" dimensions. */
static __isl_give isl_set *prefix(__isl_take isl_set *set, int n)
{
	isl_size dim = isl_set_dim(set, isl_dim_set);

	if (dim < 0)
		return isl_set_free(set);
	return isl_set_project_out(set, isl_dim_set, n, dim - n);
}

/* { [x] -> [y] : x <= y < x + t }. */
static __isl_give isl_map *run_of(isl_ctx *ctx, long t)
{
	char str[80];

	snprintf(str, sizeof(str), "{ [x] -> [y] : x <= y < x + %ld }", t);
	return isl_map_read_from_str(ctx, str);
}

/* The prefixes (levels 0..l-1) of "pts" for which level "l" is not full;
 * empty if its trip count has no constant bound (a loop over a whole
 * symbolic extent has no tiles). */
static __isl_give isl_set *partial(__isl_keep isl_set *pts, int l)
{
	isl_map *m = isl_map_from_range(prefix(isl_set_copy(pts), l + 1));
	isl_pw_aff *lo, *trip;
	isl_val *t;
	isl_map *box;
	long n = 0;

	m = isl_map_move_dims(m, isl_dim_in, 0, isl_dim_out, 0, l);
	lo = isl_map_dim_min(isl_map_copy(m), 0);
	trip = isl_pw_aff_sub(isl_map_dim_max(isl_map_copy(m), 0),
		isl_pw_aff_copy(lo));
	t = isl_pw_aff_max_val(trip);
	if (t && isl_val_is_int(t))
		n = isl_val_get_num_si(t) + 1;
	isl_val_free(t);
	if (n <= 0) {
		isl_space *space = isl_space_domain(isl_map_get_space(m));

		isl_pw_aff_free(lo);
		isl_map_free(m);
		return isl_set_empty(space);
	}
	box = isl_map_apply_range(isl_map_from_pw_aff(lo),
		run_of(isl_map_get_ctx(m), n));
	return isl_map_domain(isl_map_subtract(box, m));
}

/* The deepest of levels 0..k that "set" constrains, 0 if none. */
static int deepest_involved(__isl_keep isl_set *set, int k)
{
	for (; k > 0; --k)
		if (isl_set_involves_dims(set, isl_dim_set, k, 1) == isl_bool_true)
			return k;
	return 0;
}

/* The most operations isl may spend on one convex hull.  Wrapping facets
 * is exponential in the dimension: a split of a split (12 levels) took
 * minutes; the hulls that do help take a few thousand. */
#define HULL_MAX_OPERATIONS 200000

/* The convex hull of "set", or NULL if isl gives up on it (out of its
 * operation budget), in which case the error is cleared. */
static __isl_give isl_set *bounded_hull(__isl_keep isl_set *set)
{
	isl_ctx *ctx = isl_set_get_ctx(set);
	unsigned long max = isl_ctx_get_max_operations(ctx);
	isl_basic_set *hull;

	isl_ctx_reset_operations(ctx);
	isl_ctx_set_max_operations(ctx, HULL_MAX_OPERATIONS);
	hull = isl_set_convex_hull(isl_set_copy(set));
	isl_ctx_set_max_operations(ctx, max);
	if (!hull && isl_ctx_last_error(ctx) == isl_error_quota)
		isl_ctx_reset_error(ctx);
	return hull ? isl_set_from_basic_set(hull) : NULL;
}

/* "set" as one convex set if its convex hull has no other integer
 * points.  isl isolates the convex hull of a set with several disjuncts,
 * not the set: the full tiles of a loop whose values start at 1 - s
 * (index-set splitting of a padded convolution), "w.o > 0 or s > 0",
 * would otherwise be the whole loop, "8 w.o + s >= 1" is exact.  "set"
 * itself when the hull is too costly: isolating it is then less
 * precise, never wrong (see the top of this file). */
static __isl_give isl_set *convex(__isl_take isl_set *set)
{
	isl_set *hull;
	isl_bool exact;

	if (!set || isl_set_n_basic_set(set) <= 1)
		return set;
	hull = bounded_hull(set);
	if (!hull)
		return isl_ctx_last_error(isl_set_get_ctx(set)) ==
			isl_error_none ? set : isl_set_free(set);
	exact = isl_set_is_subset(hull, set);
	if (exact == isl_bool_true)
		return (isl_set_free(set), hull);
	isl_set_free(hull);
	return exact < 0 ? isl_set_free(set) : set;
}

/* The iterations (levels 0..d, returned in *d) in which level "l" of
 * "pts" is full, for a tile whose outer loops end at level "k"; NULL if
 * it always is, or never. */
static __isl_give isl_set *full_at(__isl_keep isl_set *pts, int k, int l,
	int *d)
{
	isl_set *ctx = prefix(isl_set_copy(pts), k + 1);
	isl_set *good, *bad = partial(pts, l);

	bad = isl_set_project_out(bad, isl_dim_set, k + 1, l - 1 - k);
	good = isl_set_subtract(isl_set_copy(ctx), bad);
	if (!good || isl_set_is_empty(good) != isl_bool_false) {
		isl_set_free(ctx);
		return isl_set_free(good);
	}
	good = isl_set_gist(convex(good), ctx);
	if (!good || isl_set_plain_is_universe(good) != isl_bool_false)
		return isl_set_free(good);
	*d = deepest_involved(good, k);
	return isl_set_project_out(good, isl_dim_set, *d + 1, k - *d);
}

int ein_isolate_find(const struct ein_isolate_stmt *stmt, isl_set **full)
{
	isl_set *pts;
	int l, k = -1;

	for (l = 0; l < stmt->n_level; ++l)
		full[l] = NULL;
	for (l = 1; l < stmt->n_level && k < 0; ++l)
		if (stmt->sensitive[l])
			k = l - 1;
	if (k < 0)
		return 0;
	pts = points(stmt);
	if (!pts)
		return -1;
	for (l = k + 1; l < stmt->n_level; ++l) {
		isl_set *good;
		int d = 0;

		if (!stmt->sensitive[l])
			continue;
		good = full_at(pts, k, l, &d);
		while (good && stmt->parallel && stmt->parallel[d] && d < l) {
			good = isl_set_add_dims(good, isl_dim_set, 1);
			good = isl_set_intersect(good,
				prefix(isl_set_copy(pts), ++d + 1));
		}
		if (good)
			full[d] = full[d] ? isl_set_intersect(full[d], good) :
				good;
	}
	isl_set_free(pts);
	return 0;
}

__isl_give isl_schedule_node *ein_isolate_band(
	__isl_take isl_schedule_node *node, __isl_take isl_set *full)
{
	enum isl_ast_loop_type type;
	isl_size level;
	isl_map *map;
	isl_set *opt;

	if (!full)
		return node;
	level = isl_set_dim(full, isl_dim_set) - 1;
	type = isl_schedule_node_band_member_get_ast_loop_type(node, 0);
	map = isl_map_move_dims(isl_map_from_domain(full), isl_dim_out, 0,
		isl_dim_in, level, 1);
	opt = isl_set_set_tuple_name(isl_map_wrap(map), "isolate");
	node = isl_schedule_node_band_set_ast_build_options(node,
		isl_union_set_from_set(opt));
	node = isl_schedule_node_band_member_set_ast_loop_type(node, 0, type);
	return isl_schedule_node_band_member_set_isolate_ast_loop_type(node, 0,
		type);
}
