/*
 * prefetch.c: "STMT: prefetch X at L from F N" lowered to a prefetch
 * statement of the scop.
 *
 * Pre: a legal schedule in which loop L of statement S (level l of S's
 *	vector) asks to prefetch tensor X (an input or output of the
 *	definition) for the iteration N later of loop F, L itself or a loop
 *	around it (level f <= l).
 * Post: with v the values of S's first l levels and Fp(v) the elements of
 *	X that S accesses in the iteration v (pack.c's footprint), the
 *	statement "X_prefetch<k>" with domain
 *
 *	  { [v, e', x] : v in dom Fp, lo(v, e') <= x <= hi(v, e'),
 *	                 (x - lo(v, e')) mod W = 0 or x = hi(v, e') }
 *
 *	where [e', x] ranges over Fp(v + N u_f) (u_f: one more iteration of
 *	F), lo and hi are the first and last x of the row e' there, and W is
 *	the number of elements in a cache line.  Each instance prefetches
 *	X[e', x]: the row's first element, one every W after it and its
 *	last, so that each line the row touches is prefetched whatever the
 *	alignment of X (the last one at most twice), and never an address
 *	outside the row.  It is placed in L as a copy in is (schedule.c):
 *	in each iteration v, before the statements there.
 *
 * Where v + N u_f is not an iteration of S (the last rows), nothing is
 * prefetched.  A prefetch is a hint that changes no value: it has no
 * dependences, and may run in any loop.
 */
#include <stdio.h>
#include <string.h>
#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>
#include <isl/val.h>
#include "diag.h"
#include "frontend/type.h"
#include "sched/pack.h"
#include "sched/prefetch.h"

/* Is dimension d of the values "dom" always equal to dimension f?  The
 * first dimensions of a statement computed at another are that one's
 * loops, and the statement's own copy of such a loop runs in step. */
static isl_bool in_step(__isl_keep isl_set *dom, int d, int f)
{
	isl_set *eq = isl_set_equate(isl_set_universe(isl_set_get_space(dom)),
		isl_dim_set, d, isl_dim_set, f);
	isl_bool r = isl_set_is_subset(dom, eq);

	isl_set_free(eq);
	return r;
}

/* "fp" (taken), v -> Fp(v), as v -> Fp(v + ahead u_f) where Fp(v) is
 * defined, u_f moving loop f and those in step with it. */
static __isl_give isl_map *shift_ahead(__isl_take isl_map *fp, int f,
	int ahead)
{
	isl_space *space = isl_space_domain(isl_map_get_space(fp));
	isl_multi_aff *ma = isl_multi_aff_identity(
		isl_space_map_from_set(space));
	isl_set *dom = isl_map_domain(isl_map_copy(fp));
	int d, n = isl_set_dim(dom, isl_dim_set);

	for (d = 0; d < n; ++d) {
		isl_bool step = in_step(dom, d, f);
		isl_aff *aff;

		if (step < 0)
			ma = isl_multi_aff_free(ma);
		if (step != isl_bool_true)
			continue;
		aff = isl_multi_aff_get_aff(ma, d);
		ma = isl_multi_aff_set_aff(ma, d,
			isl_aff_add_constant_si(aff, ahead));
	}
	fp = isl_map_apply_range(isl_map_from_multi_aff(ma), fp);
	return isl_map_intersect_domain(fp, dom);
}

/* The first (or last, if "max") last coordinate of each row of "rows"
 * (taken), [v, e'] -> x. */
static __isl_give isl_pw_aff *row_end(__isl_take isl_map *rows, int max)
{
	isl_pw_multi_aff *pma = max ? isl_map_lexmax_pw_multi_aff(rows) :
		isl_map_lexmin_pw_multi_aff(rows);
	isl_pw_aff *pa = isl_pw_multi_aff_get_pw_aff(pma, 0);

	isl_pw_multi_aff_free(pma);
	return pa;
}

/* The elements [v, e', x] of the rows of "tile" (taken), an unnamed set
 * of nv loop values and n >= 1 coordinates of X, that start a line of w
 * elements from the row's first, or end the row. */
static __isl_give isl_set *line_starts(__isl_take isl_set *tile, int nv,
	int n, int w)
{
	int last = nv + n - 1;
	isl_space *space = isl_set_get_space(tile);
	isl_map *rows = isl_map_move_dims(isl_map_from_range(tile),
		isl_dim_in, 0, isl_dim_out, 0, last);
	isl_multi_aff *proj = isl_multi_aff_project_out_map(
		isl_space_copy(space), isl_dim_set, last, 1);
	isl_pw_aff *lo = isl_pw_aff_pullback_multi_aff(
		row_end(isl_map_copy(rows), 0), isl_multi_aff_copy(proj));
	isl_pw_aff *hi = isl_pw_aff_pullback_multi_aff(row_end(rows, 1),
		proj);
	isl_pw_aff *x = isl_pw_aff_var_on_domain(
		isl_local_space_from_space(space), isl_dim_set, last);
	isl_set *in_row = isl_set_intersect(
		isl_pw_aff_ge_set(isl_pw_aff_copy(x), isl_pw_aff_copy(lo)),
		isl_pw_aff_le_set(isl_pw_aff_copy(x), isl_pw_aff_copy(hi)));
	isl_pw_aff *off = isl_pw_aff_mod_val(
		isl_pw_aff_sub(isl_pw_aff_copy(x), lo),
		isl_val_int_from_si(isl_set_get_ctx(in_row), w));
	isl_set *on_line = isl_set_union(isl_pw_aff_zero_set(off),
		isl_pw_aff_eq_set(x, hi));

	return isl_set_coalesce(isl_set_intersect(in_row, on_line));
}

/* The "from" loop of "local" in "stmt", whose loop "loop" asks for it,
 * checked to be that loop or one around it: a directive after the
 * prefetch may have split or moved it.  -1 after an error. */
static int from_loop(ein_ctx *ctx, struct ein_schedule *s, int stmt,
	int loop, const struct ein_local *local)
{
	int from = ein_schedule_find_loop(s, stmt, local->from);

	if (from >= 0 && from <= loop)
		return from;
	ein_error_at(ctx, local->loc, "'prefetch' counts the iterations of "
		"loop '%s', which is no longer loop '%s' or around it",
		local->from, ein_schedule_loop_name(s, stmt, loop));
	ein_hint(ctx, "a later directive split or moved it: write 'prefetch' "
		"after the statement's split, tile and reorder");
	return -1;
}

/* A statement name "<x>_prefetch<k>" not taken in "scop", in "buf". */
static void unique_name(struct ein_scop *scop, const char *x, char *buf,
	size_t size)
{
	int k;

	for (k = 0; ; ++k) {
		snprintf(buf, size, "%.40s_prefetch%d", x, k);
		if (!ein_scop_find_stmt(scop, buf))
			return;
	}
}

/* The domain of the prefetch of "local" in loop "loop" of "stmt", whose
 * "from" loop is "from", named "name"; NULL on error. */
static __isl_give isl_set *prefetch_domain(struct ein_schedule *s,
	int stmt, int loop, int from, const struct ein_local *local,
	const char *name)
{
	struct ein_scop *scop = ein_schedule_get_scop(s);
	int t = local->tensor, n = ein_scop_tensor_n_dim(scop, t);
	int l = ein_schedule_loop_level(s, stmt, loop);
	int f = ein_schedule_loop_level(s, stmt, from) - 1;
	int w = EIN_CACHE_LINE / ein_type_size(scop->func->tensor[t].type);
	isl_multi_pw_aff *prefix = ein_schedule_get_prefix(s, stmt, l);
	isl_map *fp = prefix ? ein_sched_footprint(scop, &scop->stmt[stmt],
		prefix, t) : NULL;
	isl_set *tile;

	isl_multi_pw_aff_free(prefix);
	if (!fp)
		return NULL;
	tile = isl_set_flatten(isl_map_wrap(shift_ahead(fp, f, local->ahead)));
	tile = isl_set_reset_tuple_id(tile);
	if (n > 0)
		tile = line_starts(tile, l, n, w);
	return isl_set_set_tuple_name(tile, name);
}

/* Are the elements that "index" (kept) names on "dom" (kept) in the
 * bounds of tensor "t"?  This module promises it (a prefetch outside
 * would touch memory the kernel was not given), and checks it. */
static isl_bool in_bounds(const struct ein_scop *scop, int t,
	__isl_keep isl_set *dom, __isl_keep isl_multi_pw_aff *index)
{
	isl_set *img = isl_set_apply(isl_set_copy(dom),
		isl_map_from_multi_pw_aff(isl_multi_pw_aff_copy(index)));
	isl_set *box = ein_scop_tensor_box(scop, t, isl_set_get_space(img));
	isl_bool ok = box ? isl_set_is_subset(img, box) : isl_bool_error;

	isl_set_free(img);
	isl_set_free(box);
	return ok;
}

/* Lower the prefetch "local" of loop "loop" of statement "stmt". */
static int lower_one(ein_ctx *ctx, struct ein_schedule *s, int stmt,
	int loop, const struct ein_local *local)
{
	struct ein_scop *scop = ein_schedule_get_scop(s);
	int t = local->tensor, n = ein_scop_tensor_n_dim(scop, t);
	int l = ein_schedule_loop_level(s, stmt, loop);
	int from = from_loop(ctx, s, stmt, loop, local);
	const char *x = ein_scop_tensor_name(scop, t);
	char name[64];
	isl_set *dom;
	isl_multi_pw_aff *index;

	if (from < 0)
		return -2;
	unique_name(scop, x, name, sizeof(name));
	dom = prefetch_domain(s, stmt, loop, from, local, name);
	if (!dom)
		return -1;
	index = ein_sched_select_dims(isl_set_get_space(dom), l, n, x);
	if (in_bounds(scop, t, dom, index) != isl_bool_true) {
		ein_internal(ctx, "the prefetch %s may leave the bounds of "
			"'%s'", name, x);
		isl_set_free(dom);
		isl_multi_pw_aff_free(index);
		return -2;
	}
	if (!ein_scop_add_prefetch(scop, scop->stmt[stmt].src, dom, t, index))
		return -1;
	return ein_schedule_add_copy(s, stmt, l, x) < 0 ? -1 : 0;
}

int ein_sched_prefetch_lower(ein_ctx *ctx, struct ein_schedule *s)
{
	isl_ctx *ictx = isl_set_get_ctx(ein_schedule_get_scop(s)->context);
	int i, k, j, r = 0, n = ein_schedule_n_stmt(s);
	const char *msg;

	for (i = 0; r == 0 && i < n; ++i)
		for (k = 0; r == 0 && k < ein_schedule_n_loop(s, i); ++k)
			for (j = 0; r == 0 &&
			     j < ein_schedule_n_local(s, i, k); ++j) {
				struct ein_local local =
					*ein_schedule_get_local(s, i, k, j);

				if (local.kind == EIN_LOCAL_PREFETCH)
					r = lower_one(ctx, s, i, k, &local);
			}
	if (r != -1)
		return r < 0 ? -1 : 0;
	msg = isl_ctx_last_error_msg(ictx);
	ein_internal(ctx, "cannot make the prefetches: %s",
		msg ? msg : "out of memory");
	return -1;
}
