/*
 * contract.c: storage contraction of temporaries whose values live
 * within one iteration of a loop (a producer computed at its consumer).
 *
 * A temporary T needs storage for one iteration only when every value of
 * it is produced and consumed within one iteration v of the schedule's
 * first k loops: the flow dependences on T, computed on the schedule as
 * it runs (copies included), join only instances with the same prefix v
 * (the first 2k dimensions of the flat 2d+1 schedule).  T is then stored
 * in a buffer holding the bounding box of the elements an iteration
 * touches (pack.h's box), at e - lb(v).  That index is one-to-one within
 * an iteration, and every instance scheduled between two of prefix v has
 * prefix v (the schedule is lexicographic), so no write of another
 * iteration comes between a read and the write it reads: every read
 * still finds its value.  Threads: a parallel loop among the k loops
 * runs whole iterations, and each call of its body has its own buffer; a
 * parallel loop deeper inside shares its caller's (scop.h, storage): it
 * is legal on T, so its iterations touch distinct elements of T, which
 * are distinct elements of the buffer.  The deepest k that passes gives
 * the smallest buffer.
 *
 * A read without a source (a temporary read before it is written) keeps
 * the temporary whole, as does an output or an input.
 *
 * Softmax with "e: compute_at Y i" keeps one row of e (N floats) per
 * thread instead of M x N, and one element of mx and of s.
 */
#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/union_set.h>
#include <isl/union_map.h>
#include <isl/flow.h>
#include <isl/aff.h>
#include "diag.h"
#include "sched/pack.h"
#include "sched/contract.h"

/* The accesses that reach tensor "t" (not redirected to a buffer), as
 * relations from the statements' domains to t's elements, at the sizes
 * of the scop's context: the writes in *w, the reads in *r.  (The
 * statements that recompute adds under fixed sizes carry them in their
 * domains, the source statements do not: without the context, reads at
 * other sizes had no source and blur3's bx, recomputed per strip of
 * rows, was kept whole at --fix-sizes, an internal error; issue 23.) */
static void accesses(const struct ein_scop *scop, int t,
	__isl_give isl_union_map **w, __isl_give isl_union_map **r)
{
	isl_space *space = isl_set_get_space(scop->context);
	int i, k;

	*w = isl_union_map_empty(isl_space_copy(space));
	*r = isl_union_map_empty(space);
	for (i = 0; i < scop->n_stmt; ++i)
		for (k = 0; k < scop->stmt[i].n_access; ++k) {
			const struct ein_scop_access *a =
				&scop->stmt[i].access[k];
			isl_map *m;

			if (ein_scop_access_get_target(a) != t)
				continue;
			m = isl_map_intersect_params(ein_scop_access_get_map(
				&scop->stmt[i], a), isl_set_copy(scop->context));
			if (a->is_write)
				*w = isl_union_map_add_map(*w, m);
			else
				*r = isl_union_map_add_map(*r, m);
		}
}

/* The flow dependences of "r" on "w" (both taken) under the flat
 * schedule "sched", in *dep; returns 1 if every read has a source, 0 if
 * not, -1 on error. */
static int flow(__isl_take isl_union_map *w, __isl_take isl_union_map *r,
	__isl_keep isl_union_map *sched, __isl_give isl_union_map **dep)
{
	isl_union_access_info *ai = isl_union_access_info_from_sink(r);
	isl_union_flow *fl;
	isl_union_map *none;
	isl_bool empty;

	ai = isl_union_access_info_set_must_source(ai, w);
	ai = isl_union_access_info_set_schedule_map(ai,
		isl_union_map_copy(sched));
	fl = isl_union_access_info_compute_flow(ai);
	*dep = isl_union_flow_get_must_dependence(fl);
	none = isl_union_flow_get_may_no_source(fl);
	isl_union_flow_free(fl);
	empty = isl_union_map_is_empty(none);
	isl_union_map_free(none);
	if (empty < 0 || !*dep)
		return -1;
	return empty;
}

struct prefix_data {
	int n;
	isl_union_map *res;
};

static isl_stat add_prefix(__isl_take isl_map *map, void *user)
{
	struct prefix_data *data = user;
	int n = isl_map_dim(map, isl_dim_out);

	map = isl_map_project_out(map, isl_dim_out, data->n, n - data->n);
	data->res = isl_union_map_add_map(data->res, map);
	return data->res ? isl_stat_ok : isl_stat_error;
}

/* The first "n" dimensions of the flat schedule "sched". */
static __isl_give isl_union_map *prefix(__isl_keep isl_union_map *sched,
	int n)
{
	struct prefix_data data = { n, NULL };

	data.res = isl_union_map_empty(isl_union_map_get_space(sched));
	if (isl_union_map_foreach_map(sched, &add_prefix, &data) < 0)
		return isl_union_map_free(data.res);
	return data.res;
}

/* Does every dependence of "dep" join instances with equal values of
 * "pre"? */
static isl_bool within(__isl_keep isl_union_map *dep,
	__isl_keep isl_union_map *pre)
{
	isl_union_map *pp, *id;
	isl_bool ok;

	pp = isl_union_map_apply_domain(isl_union_map_copy(dep),
		isl_union_map_copy(pre));
	pp = isl_union_map_apply_range(pp, isl_union_map_copy(pre));
	id = isl_union_set_identity(isl_union_map_domain(
		isl_union_map_copy(pp)));
	ok = isl_union_map_is_subset(pp, id);
	isl_union_map_free(pp);
	isl_union_map_free(id);
	return ok;
}

/* Redirect every access to "t" to buffer "b" at x - lb(pre(s)). */
static int redirect(struct ein_scop *scop, int t, int b,
	__isl_keep isl_union_map *pre, __isl_keep isl_multi_pw_aff *lb)
{
	const char *name = ein_scop_tensor_name(scop, b);
	isl_space *vspace = isl_multi_pw_aff_get_domain_space(lb);
	int i, k, ok = 0;

	for (i = 0; ok == 0 && i < scop->n_stmt; ++i) {
		struct ein_scop_stmt *stmt = &scop->stmt[i];
		isl_multi_pw_aff *p = NULL;

		for (k = 0; ok == 0 && k < stmt->n_access; ++k) {
			struct ein_scop_access *a = &stmt->access[k];
			isl_multi_pw_aff *idx;

			if (ein_scop_access_get_target(a) != t)
				continue;
			if (!p)
				p = isl_multi_pw_aff_from_pw_multi_aff(
					isl_pw_multi_aff_from_map(
					isl_union_map_extract_map(pre,
					isl_space_map_from_domain_and_range(
					isl_set_get_space(stmt->domain),
					isl_space_copy(vspace)))));
			idx = isl_multi_pw_aff_set_tuple_name(
				isl_multi_pw_aff_copy(a->index), isl_dim_out,
				name);
			idx = isl_multi_pw_aff_sub(idx,
				isl_multi_pw_aff_pullback_multi_pw_aff(
					isl_multi_pw_aff_copy(lb),
					isl_multi_pw_aff_copy(p)));
			ok = ein_scop_access_redirect(a, b, idx);
		}
		isl_multi_pw_aff_free(p);
	}
	isl_space_free(vspace);
	return ok;
}

/* Store "t" per iteration of the first "k" loops, prefix "pre" of the
 * schedule. */
static int contract(struct ein_scop *scop, int t, int k,
	__isl_keep isl_union_map *pre, __isl_keep isl_union_map *acc)
{
	isl_union_map *fp_u = isl_union_map_apply_range(
		isl_union_map_reverse(isl_union_map_copy(pre)),
		isl_union_map_copy(acc));
	isl_map *fp;
	isl_multi_pw_aff *lb;
	int b, ok;

	fp_u = isl_union_map_intersect_params(fp_u,
		isl_set_copy(scop->context));
	fp = isl_map_coalesce(isl_map_from_union_map(fp_u));
	b = fp ? ein_sched_box_buffer(scop, t, "local", fp, NULL,
		&lb, NULL) : -1;
	isl_map_free(fp);
	if (b < 0)
		return -1;
	scop->buffer[b - scop->func->n_tensor].storage = k;
	ok = redirect(scop, t, b, pre, lb);
	isl_multi_pw_aff_free(lb);
	return ok;
}

/* The deepest number of loops k (0: none) such that every flow
 * dependence "dep" stays within one iteration of the first k loops of
 * "sched"; its prefix in *pre.  -1 on error.  A dependence within one
 * iteration of k loops is within one iteration of fewer, so when the
 * first loop fails, every k does: that one is tried first (a
 * temporary produced and consumed in loops of their own, the usual
 * case, then costs one test instead of one per loop; issue 23). */
static int deepest(__isl_keep isl_union_map *sched, __isl_keep isl_union_map *dep,
	__isl_give isl_union_map **pre)
{
	isl_map_list *list = isl_union_map_get_map_list(sched);
	isl_map *m = isl_map_list_get_at(list, 0);
	int k = m ? (isl_map_dim(m, isl_dim_out) - 1) / 2 : -1;
	isl_bool ok;

	isl_map_free(m);
	isl_map_list_free(list);
	*pre = NULL;
	if (k > 1) {
		*pre = prefix(sched, 2);
		ok = within(dep, *pre);
		*pre = isl_union_map_free(*pre);
		if (ok < 0)
			return -1;
		if (!ok)
			return 0;
	}
	for (; k > 0; --k) {
		*pre = prefix(sched, 2 * k);
		ok = within(dep, *pre);
		if (ok < 0)
			return -1;
		if (ok)
			return k;
		*pre = isl_union_map_free(*pre);
	}
	return k;
}

/* Does a read of "r" run in a top-level loop nest of "sched" (a value of
 * its first dimension) where no write of "w" runs?  Then that read's
 * value, if it has one, comes from another nest: a flow dependence
 * leaves an iteration of even the first loop (or the read has no source),
 * whatever the rest of the flow is, and the temporary keeps its storage
 * without the flow (isl's dataflow analysis on the whole schedule) being
 * computed.  Every temporary of a definition scheduled without
 * compute_at is such, and a compile computed the flow of each: a third
 * of the automatic schedule of the 12-statement CNN of tests/onnx
 * (issue 23). */
static isl_bool apart(__isl_keep isl_union_map *sched,
	__isl_keep isl_union_map *w, __isl_keep isl_union_map *r)
{
	isl_union_map *top = prefix(sched, 1);
	isl_union_set *tw, *tr;
	isl_bool inside;

	tw = isl_union_set_apply(isl_union_map_domain(isl_union_map_copy(w)),
		isl_union_map_copy(top));
	tr = isl_union_set_apply(isl_union_map_domain(isl_union_map_copy(r)),
		top);
	inside = isl_union_set_is_subset(tr, tw);
	isl_union_set_free(tw);
	isl_union_set_free(tr);
	return inside < 0 ? isl_bool_error : !inside;
}

/* Contract temporary "t" if it can be. */
static int contract_temp(struct ein_schedule *s, int t,
	__isl_keep isl_union_map *sched)
{
	struct ein_scop *scop = ein_schedule_get_scop(s);
	isl_union_map *w, *r, *acc, *dep = NULL, *pre = NULL;
	int complete, k = 0;

	accesses(scop, t, &w, &r);
	acc = isl_union_map_union(isl_union_map_copy(w),
		isl_union_map_copy(r));
	if (isl_union_map_is_empty(acc) == isl_bool_true) {
		isl_union_map_free(w);
		isl_union_map_free(r);
		isl_union_map_free(acc);
		return 0;
	}
	complete = apart(sched, w, r);
	if (complete == isl_bool_true) {
		isl_union_map_free(w);
		isl_union_map_free(r);
		isl_union_map_free(acc);
		return 0;
	}
	if (complete == isl_bool_false)
		complete = flow(w, r, sched, &dep);
	else {
		isl_union_map_free(w);
		isl_union_map_free(r);
	}
	if (complete > 0)
		k = deepest(sched, dep, &pre);
	if (complete >= 0 && k > 0)
		k = contract(scop, t, k, pre, acc) < 0 ? -1 : k;
	isl_union_map_free(pre);
	isl_union_map_free(dep);
	isl_union_map_free(acc);
	return complete < 0 || k < 0 ? -1 : 0;
}

int ein_sched_contract(ein_ctx *ctx, struct ein_schedule *s)
{
	struct ein_scop *scop = ein_schedule_get_scop(s);
	isl_ctx *ictx = isl_set_get_ctx(scop->context);
	const struct ein_func *func = scop->func;
	isl_union_map *sched = ein_schedule_get_map(s);
	const char *msg;
	int t, ok = sched ? 0 : -1;

	for (t = 0; ok == 0 && t < func->n_tensor; ++t)
		if (func->tensor[t].role == EIN_ROLE_TEMP)
			ok = contract_temp(s, t, sched);
	isl_union_map_free(sched);
	if (ok == 0)
		return 0;
	msg = isl_ctx_last_error_msg(ictx);
	ein_internal(ctx, "cannot contract the storage of a temporary: %s",
		msg ? msg : "out of memory");
	return -1;
}
