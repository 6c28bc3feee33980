/*
 * recompute.c: "compute_at ... recompute", lowered to a statement whose
 * instances are the pairs (iteration, instance it needs).
 *
 * Pre: a legal schedule in which statement T is computed at C's first m
 *	levels and marked recompute (apply.c has checked that T assigns a
 *	temporary that only C reads, from inputs only, so that an instance
 *	gives the same value wherever and however often it runs).
 * Post: with v = C's first m loop values and N = { v -> t : C reads in
 *	iteration v what instance t writes }, T's domain is { [v, t] : t in
 *	N(v) }, its accesses and guards are pulled back through [v, t] -> t,
 *	and its shared levels take v (schedule.h): every iteration of C's
 *	loops computes all the values of T it reads, before C, overlapping
 *	its neighbours'.  Storage contraction (contract.c) then keeps T for
 *	one iteration: each thread of a parallel loop has its own.
 *
 * The dependences stay those of the model before: the legality checks
 * have seen T placed where each instance is first needed (store), and
 * recomputing an instance that reads only inputs changes no value.
 */
#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>
#include "diag.h"
#include "sched/recompute.h"

/* N = { v -> t }: the instances of "t_stmt" whose results "c" reads in
 * iteration v of its first "level" levels. */
static __isl_give isl_map *needed(struct ein_schedule *s, int t_stmt,
	int c, int level)
{
	struct ein_scop *scop = ein_schedule_get_scop(s);
	const struct ein_scop_stmt *ts = &scop->stmt[t_stmt];
	isl_multi_pw_aff *pre = ein_schedule_get_prefix(s, c, level);
	isl_map *r = ein_scop_stmt_tensor_accesses(&scop->stmt[c],
		ts->access[0].tensor, 1);
	isl_map *w = ein_scop_access_get_map(ts, &ts->access[0]);
	isl_map *n;

	if (!pre || !r) {
		isl_multi_pw_aff_free(pre);
		isl_map_free(r);
		return isl_map_free(w);
	}
	n = isl_map_reverse(isl_map_from_multi_pw_aff(pre));
	n = isl_map_apply_range(isl_map_apply_range(n, r),
		isl_map_reverse(w));
	n = isl_map_intersect_params(n, isl_set_copy(scop->context));
	return isl_map_coalesce(n);
}

/* [v, t] -> t on the space of "dom", whose last "n" dimensions are t,
 * into the space of "orig". */
static __isl_give isl_multi_aff *projection(__isl_keep isl_set *dom,
	__isl_keep isl_set *orig)
{
	isl_space *space = isl_space_map_from_domain_and_range(
		isl_set_get_space(dom), isl_set_get_space(orig));
	isl_local_space *ls = isl_local_space_from_space(
		isl_set_get_space(dom));
	int n = isl_set_dim(orig, isl_dim_set);
	int first = isl_set_dim(dom, isl_dim_set) - n, d;
	isl_multi_aff *ma = isl_multi_aff_zero(space);

	for (d = 0; d < n; ++d)
		ma = isl_multi_aff_set_aff(ma, d, isl_aff_var_on_domain(
			isl_local_space_copy(ls), isl_dim_set, first + d));
	isl_local_space_free(ls);
	return ma;
}

/* Give statement "stmt" the domain "dom" (taken), its accesses and
 * guards pulled back through "proj". */
static int rebase(struct ein_scop_stmt *stmt, __isl_take isl_set *dom,
	__isl_keep isl_multi_aff *proj)
{
	int k;

	isl_set_free(stmt->domain);
	stmt->domain = dom;
	for (k = 0; k < stmt->n_access; ++k) {
		struct ein_scop_access *a = &stmt->access[k];

		int guarded = a->guard != NULL;

		a->index = isl_multi_pw_aff_pullback_multi_aff(a->index,
			isl_multi_aff_copy(proj));
		if (guarded)
			a->guard = isl_set_preimage_multi_aff(a->guard,
				isl_multi_aff_copy(proj));
		if (!a->index || (guarded && !a->guard))
			return -1;
	}
	return dom ? 0 : -1;
}

/* Lower the recomputation of statement "i". */
static int lower_one(struct ein_schedule *s, int i)
{
	struct ein_scop_stmt *stmt = ein_schedule_get_stmt(s, i);
	int level = ein_schedule_get_level(s, i);
	isl_map *n = needed(s, i, ein_schedule_get_parent(s, i), level);
	isl_set *dom;
	isl_multi_aff *proj;
	int ok;

	if (!n)
		return -1;
	dom = isl_set_flatten(isl_map_wrap(n));
	dom = isl_set_set_tuple_name(dom, stmt->name);
	proj = dom ? projection(dom, stmt->domain) : NULL;
	if (!proj)
		return (isl_set_free(dom), -1);
	ok = rebase(stmt, dom, proj);
	if (ok == 0)
		ok = ein_schedule_lower_recompute(s, i, proj);
	isl_multi_aff_free(proj);
	return ok;
}

int ein_sched_recompute_lower(ein_ctx *ctx, struct ein_schedule *s)
{
	isl_ctx *ictx = isl_set_get_ctx(ein_schedule_get_scop(s)->context);
	const char *msg;
	int i;

	for (i = 0; i < ein_schedule_n_stmt(s); ++i) {
		if (ein_schedule_is_recompute(s, i) != 1 ||
		    lower_one(s, i) == 0)
			continue;
		msg = isl_ctx_last_error_msg(ictx);
		ein_internal(ctx, "cannot lower 'recompute': %s",
			msg ? msg : "out of memory");
		return -1;
	}
	return 0;
}
