/*
 * features.c: the cost model's features of a schedule (features.h).
 *
 * Every set is intersected with the sizes before it is counted, so that
 * its parameters are fixed and ein_count_points counts it exactly (or
 * estimates a huge one, never enumerating).  Tiles are computed from the
 * schedule's prefixes (ein_schedule_get_prefix): for the innermost L
 * loops of a statement with n loops, the prefix of its first n - L loops
 * maps each instance to the outer iteration that runs it; the tile is
 * the preimage of the smallest such iteration.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include "diag.h"
#include "frontend/type.h"
#include "interp/interp.h"
#include "poly/count.h"
#include "poly/deps.h"
#include "poly/scop.h"
#include "poly/specialize.h"
#include "sched/apply.h"
#include "sched/features.h"
#include "sched/lookup.h"

#define MAX_LEVEL 4
#define MAX_TRIP 3

static const char *const names[EIN_FEATURES_N] = {
	"log_flops", "log_bytes", "intensity", "n_stmt", "n_loop",
	"footprint_1", "reuse_1", "footprint_2", "reuse_2",
	"footprint_3", "reuse_3", "footprint_4", "reuse_4",
	"trip_1", "trip_2", "trip_3", "vector", "vector_inner",
	"contiguous", "invariant", "strided", "unroll", "parallel_trip",
	"parallel_depth", "n_fused", "n_pack", "n_accumulate",
	"n_prefetch", "stream", "share_vector", "share_parallel",
	"vector_bytes", "reduction_inner", "acc_registers",
};

const char *ein_features_name(int i)
{
	return i >= 0 && i < EIN_FEATURES_N ? names[i] : NULL;
}

/* The state of one computation.
 * s, scop: the schedule and its model; sizes: the sizes as a parameter
 * set; main: the main statement; n_loop: its loops;
 * tile[L]: its tile at level L (0 .. n_loop), iters[L] its instances;
 * memo: what earlier computations for the same definition and sizes
 *	found (NULL: none). */
struct feat {
	ein_ctx *ctx;
	struct ein_features_memo *memo;
	const struct ein_func *func;
	struct ein_schedule *s;
	struct ein_scop *scop;
	isl_set *sizes;
	int main;
	int n_loop;
	isl_set **tile;
	double *iters;
};

/* The counts of earlier computations; "def": the definition's own
 * features, once "have_def" is set. */
struct ein_features_memo {
	struct ein_count_memo *count;
	int have_def;
	double def[EIN_FEATURE_N_STMT + 1];
};

struct ein_features_memo *ein_features_memo_alloc(void)
{
	struct ein_features_memo *memo = calloc(1, sizeof(*memo));

	if (memo)
		memo->count = ein_count_memo_alloc();
	if (memo && !memo->count) {
		free(memo);
		memo = NULL;
	}
	return memo;
}

void ein_features_memo_free(struct ein_features_memo *memo)
{
	if (!memo)
		return;
	ein_count_memo_free(memo->count);
	free(memo);
}

static double lg(double x)
{
	return log2(1 + (x > 0 ? x : 0));
}

/* "set" (taken) counted at the sizes; -1 on error. */
static double count(struct feat *ft, __isl_take isl_set *set)
{
	double n;

	set = isl_set_intersect_params(set, isl_set_copy(ft->sizes));
	n = set ? ein_count_points_memo(ft->memo ? ft->memo->count : NULL,
		set, NULL) : -1;
	isl_set_free(set);
	return n;
}

/* The sizes as a parameter set of func's sizes. */
static __isl_give isl_set *size_set(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes)
{
	isl_set *set = isl_set_universe(ein_func_get_param_space(ctx, func));
	int i;

	for (i = 0; i < func->n_size; ++i)
		set = ein_specialize_fix(set, isl_dim_param, i, sizes[i]);
	return set;
}

/* The statement with the most instances: a computation, an update
 * preferred to its initialisation.  -1 on error. */
static int main_stmt(struct feat *ft)
{
	int i, best = -1;
	double most = -1;

	for (i = 0; i < ein_schedule_n_stmt(ft->s); ++i) {
		const struct ein_scop_stmt *st = ein_schedule_get_stmt(ft->s, i);
		double n;

		if (st->kind != EIN_STMT_COMPUTE)
			continue;
		n = count(ft, isl_set_copy(st->domain));
		if (n < 0)
			return -1;
		if (st->is_init)
			n *= 0.5;
		if (n > most)
			most = n, best = i;
	}
	return best;
}

/* The instances of the main statement run by the first iteration of its
 * first "outer" loops (all of them when "outer" is 0). */
static __isl_give isl_set *first_tile(struct feat *ft, int outer)
{
	const struct ein_scop_stmt *st = ein_schedule_get_stmt(ft->s, ft->main);
	isl_set *dom = isl_set_intersect_params(isl_set_copy(st->domain),
		isl_set_copy(ft->sizes));
	isl_multi_pw_aff *prefix;
	isl_map *map;
	isl_set *first;

	if (outer == 0)
		return dom;
	prefix = ein_schedule_get_prefix(ft->s, ft->main,
		ein_schedule_loop_level(ft->s, ft->main, outer - 1));
	map = isl_map_intersect_domain(isl_map_from_multi_pw_aff(prefix),
		dom);
	first = isl_set_lexmin(isl_map_range(isl_map_copy(map)));
	return isl_map_domain(isl_map_intersect_range(map, first));
}

/* Fill ft->tile and ft->iters for every level. */
static int tiles(struct feat *ft)
{
	int L;

	ft->tile = calloc(ft->n_loop + 1, sizeof(*ft->tile));
	ft->iters = calloc(ft->n_loop + 1, sizeof(*ft->iters));
	if (!ft->tile || !ft->iters)
		return -1;
	for (L = 0; L <= ft->n_loop; ++L) {
		ft->tile[L] = first_tile(ft, ft->n_loop - L);
		ft->iters[L] = count(ft, isl_set_copy(ft->tile[L]));
		if (ft->iters[L] < 0)
			return -1;
	}
	return 0;
}

/* The elements access "a" touches in "tile" (kept); "local": of the
 * buffer it was redirected to, if any, rather than of its tensor. */
static __isl_give isl_set *touched(const struct ein_scop_access *a,
	__isl_keep isl_set *tile, int local)
{
	isl_multi_pw_aff *idx = local ?
		ein_scop_access_get_target_index(a) : a->index;
	isl_space *dom = isl_multi_pw_aff_get_domain_space(idx);
	isl_space *space = isl_set_get_space(tile);
	isl_map *map;

	if (isl_space_is_equal(dom, space) != isl_bool_true)
		idx = a->index;
	isl_space_free(dom);
	isl_space_free(space);
	map = isl_map_from_multi_pw_aff(isl_multi_pw_aff_copy(idx));

	return isl_map_range(isl_map_intersect_domain(map,
		isl_set_copy(tile)));
}

/* The bytes of the distinct elements the main statement touches in
 * tile level L (each tensor once), and their number in *elems. */
static double footprint(struct feat *ft, int L, double *elems)
{
	const struct ein_scop_stmt *st = ein_schedule_get_stmt(ft->s, ft->main);
	int n_tensor = ein_scop_n_tensor(ft->scop), t, a;
	double bytes = 0;

	*elems = 0;
	for (t = 0; t < n_tensor; ++t) {
		isl_set *u = NULL;
		double n;

		for (a = 0; a < st->n_access; ++a) {
			isl_set *e;

			if (st->access[a].tensor != t)
				continue;
			e = touched(&st->access[a], ft->tile[L], 0);
			u = u ? isl_set_union(u, e) : e;
		}
		if (!u)
			continue;
		n = count(ft, u);
		if (n < 0)
			return -1;
		*elems += n;
		bytes += n * ein_type_size(ein_scop_tensor_type(ft->scop, t));
	}
	return bytes;
}

/* How access "a" walks along the innermost loop: 0 invariant, 1 stride
 * one (its last subscript takes consecutive values, the others fixed),
 * 2 otherwise; -1 on error.  A redirected access is judged on the buffer
 * it reads, where the generated code reads. */
static int stride(struct feat *ft, const struct ein_scop_access *a)
{
	isl_set *e = touched(a, ft->tile[1], 1);
	isl_size dim = isl_set_dim(e, isl_dim_set);
	double n = count(ft, isl_set_copy(e)), rest;
	isl_set *min, *max;
	isl_val *lo, *hi;
	int r = 2;

	if (n < 0 || dim < 0)
		return isl_set_free(e), -1;
	if (n <= 1 || dim == 0)
		return isl_set_free(e), 0;
	rest = count(ft, isl_set_project_out(isl_set_copy(e), isl_dim_set,
		dim - 1, 1));
	min = isl_set_lexmin(isl_set_copy(e));
	max = isl_set_lexmax(e);
	lo = isl_set_plain_get_val_if_fixed(min, isl_dim_set, dim - 1);
	hi = isl_set_plain_get_val_if_fixed(max, isl_dim_set, dim - 1);
	if (rest == 1 && lo && hi && isl_val_is_int(lo) && isl_val_is_int(hi) &&
	    isl_val_get_num_si(hi) - isl_val_get_num_si(lo) + 1 == n)
		r = 1;
	isl_val_free(lo);
	isl_val_free(hi);
	isl_set_free(min);
	isl_set_free(max);
	return r;
}

/* The footprint and reuse features of levels 1 .. MAX_LEVEL, and the
 * trips of the innermost loops. */
static int tile_features(struct feat *ft, double *f)
{
	int L;

	for (L = 1; L <= MAX_LEVEL && L <= ft->n_loop; ++L) {
		double elems, bytes = footprint(ft, L, &elems);

		if (bytes < 0)
			return -1;
		f[EIN_FEATURE_FOOTPRINT_1 + 2 * (L - 1)] = lg(bytes);
		f[EIN_FEATURE_REUSE_1 + 2 * (L - 1)] = elems > 0 ?
			log2(ft->iters[L] / elems) : 0;
	}
	for (L = 1; L <= MAX_TRIP && L <= ft->n_loop; ++L)
		f[EIN_FEATURE_TRIP_1 + L - 1] = ft->iters[L - 1] > 0 ?
			lg(ft->iters[L] / ft->iters[L - 1]) : 0;
	return 0;
}

/* The share of the main statement's accesses that are stride one,
 * invariant and other along its innermost loop; whether the innermost
 * loop is a reduction (the written element does not change). */
static int access_features(struct feat *ft, double *f)
{
	const struct ein_scop_stmt *st = ein_schedule_get_stmt(ft->s, ft->main);
	int a, n[3] = { 0, 0, 0 };

	if (ft->n_loop == 0 || st->n_access == 0)
		return 0;
	for (a = 0; a < st->n_access; ++a) {
		int k = stride(ft, &st->access[a]);

		if (k < 0)
			return -1;
		++n[k];
		if (st->access[a].is_write)
			f[EIN_FEATURE_REDUCTION_INNER] = k == 0;
	}
	f[EIN_FEATURE_INVARIANT] = (double) n[0] / st->n_access;
	f[EIN_FEATURE_CONTIGUOUS] = (double) n[1] / st->n_access;
	f[EIN_FEATURE_STRIDED] = (double) n[2] / st->n_access;
	return 0;
}

/* The trip of the main statement's loop "l" in its first tile. */
static double trip(struct feat *ft, int l)
{
	int L = ft->n_loop - l;

	return ft->iters[L - 1] > 0 ? ft->iters[L] / ft->iters[L - 1] : 0;
}

/* The local buffers of kind "kind" the main statement's loops ask for. */
static int n_local(struct feat *ft, enum ein_local_kind kind)
{
	int l, k, n = 0;

	for (l = 0; l < ft->n_loop; ++l)
		for (k = 0; k < ein_schedule_n_local(ft->s, ft->main, l); ++k)
			n += ein_schedule_get_local(ft->s, ft->main, l,
				k)->kind == kind;
	return n;
}

/* The vector registers of "target"'s register file. */
static int vector_registers(const char *target)
{
	return ein_sched_target_vectors(target).registers;
}

/* The vector registers that the main statement's accumulated tiles
 * need: for each accumulate at a loop, the elements of its tensor that
 * the statement writes in one iteration of that loop, in vectors of
 * "vbytes"; -1 on error. */
static double acc_vectors(struct feat *ft, int vbytes)
{
	const struct ein_scop_stmt *st = ein_schedule_get_stmt(ft->s, ft->main);
	double vectors = 0;
	int l, k, a;

	for (l = 0; l < ft->n_loop; ++l)
		for (k = 0; k < ein_schedule_n_local(ft->s, ft->main, l); ++k) {
			const struct ein_local *loc =
				ein_schedule_get_local(ft->s, ft->main, l, k);

			if (loc->kind != EIN_LOCAL_ACCUMULATE)
				continue;
			for (a = 0; a < st->n_access; ++a) {
				double n;

				if (!st->access[a].is_write ||
				    st->access[a].tensor != loc->tensor)
					continue;
				n = count(ft, touched(&st->access[a],
					ft->tile[ft->n_loop - l - 1], 0));
				if (n < 0)
					return -1;
				vectors += n * ein_type_size(
					ein_scop_tensor_type(ft->scop,
						loc->tensor)) / vbytes;
				break;
			}
		}
	return vectors;
}

/* The features of the main statement's loop attributes. */
static int loop_features(struct feat *ft, double *f)
{
	double unroll = 1;
	int l;

	f[EIN_FEATURE_PARALLEL_DEPTH] = -1;
	for (l = 0; l < ft->n_loop; ++l) {
		const struct ein_loop_attr *at =
			ein_schedule_loop_attr(ft->s, ft->main, l);

		if (at->vector > 0) {
			f[EIN_FEATURE_VECTOR] = at->vector;
			f[EIN_FEATURE_VECTOR_INNER] = l == ft->n_loop - 1;
		}
		if (at->stream)
			f[EIN_FEATURE_STREAM] = 1;
		if (at->unroll)
			unroll *= at->unroll < 0 ? trip(ft, l) : at->unroll;
		if (at->parallel && f[EIN_FEATURE_PARALLEL_DEPTH] < 0) {
			f[EIN_FEATURE_PARALLEL_DEPTH] = l;
			f[EIN_FEATURE_PARALLEL_TRIP] = lg(trip(ft, l));
		}
	}
	f[EIN_FEATURE_UNROLL] = log2(unroll);
	f[EIN_FEATURE_N_PACK] = n_local(ft, EIN_LOCAL_PACK);
	f[EIN_FEATURE_N_ACCUMULATE] = n_local(ft, EIN_LOCAL_ACCUMULATE);
	f[EIN_FEATURE_N_PREFETCH] = n_local(ft, EIN_LOCAL_PREFETCH);
	return 0;
}

/* The shares of the computations with a vector and with a parallel loop,
 * and the statements that run in the main one's outermost loop. */
static int stmt_features(struct feat *ft, double *f)
{
	int n = ein_schedule_n_stmt(ft->s), i, l, n_comp = 0, n_vec = 0;
	int n_par = 0, *member = calloc(n + 1, sizeof(*member));

	if (!member)
		return -1;
	for (i = 0; i < n; ++i) {
		int vec = 0, par = 0;

		if (ein_schedule_get_stmt(ft->s, i)->kind != EIN_STMT_COMPUTE)
			continue;
		++n_comp;
		for (l = 0; l < ein_schedule_n_loop(ft->s, i); ++l) {
			const struct ein_loop_attr *at =
				ein_schedule_loop_attr(ft->s, i, l);

			vec |= at->vector > 0;
			par |= at->parallel;
		}
		n_vec += vec;
		n_par += par;
	}
	f[EIN_FEATURE_SHARE_VECTOR] = n_comp ? (double) n_vec / n_comp : 0;
	f[EIN_FEATURE_SHARE_PARALLEL] = n_comp ? (double) n_par / n_comp : 0;
	if (ft->n_loop > 0 &&
	    ein_schedule_loop_members(ft->s, ft->main, 0, member) < 0)
		return free(member), -1;
	for (i = 0; ft->n_loop > 0 && i < n; ++i)
		f[EIN_FEATURE_N_FUSED] += member[i] &&
			ein_schedule_get_stmt(ft->s, i)->kind ==
				EIN_STMT_COMPUTE;
	free(member);
	return 0;
}

/* The features of the definition itself: flops, bytes, statements. */
static int def_features(struct feat *ft, const int64_t *sizes, double *f)
{
	const struct ein_func *func = ft->func;
	double flops, bytes = 0;
	int t, d;

	if (ft->memo && ft->memo->have_def) {
		memcpy(f, ft->memo->def, sizeof(ft->memo->def));
		return 0;
	}
	flops = ein_interp_count_flops(ft->ctx, func, sizes, NULL);
	if (flops < 0)
		return -1;
	for (t = 0; t < func->n_tensor; ++t) {
		int64_t shape[16];
		double n = ein_type_size(func->tensor[t].type);

		if (func->tensor[t].n_dim > 16 ||
		    ein_func_eval_shape(ft->ctx, func, sizes, t, shape) < 0)
			return -1;
		for (d = 0; d < func->tensor[t].n_dim; ++d)
			n *= shape[d];
		bytes += n;
	}
	f[EIN_FEATURE_LOG_FLOPS] = lg(flops);
	f[EIN_FEATURE_LOG_BYTES] = lg(bytes);
	f[EIN_FEATURE_INTENSITY] = lg(bytes > 0 ? flops / bytes : 0);
	f[EIN_FEATURE_N_STMT] = func->n_stmt;
	if (ft->memo) {
		memcpy(ft->memo->def, f, sizeof(ft->memo->def));
		ft->memo->have_def = 1;
	}
	return 0;
}

/* The vector register's bytes on "target". */
static int vector_bytes(const char *target)
{
	return ein_sched_target_vectors(target).bytes;
}

/* The share of "target"'s vector registers that the accumulated tiles
 * take: on AVX2 (16 registers) a BLIS tile of 6 x 16 floats takes 12,
 * 3 x 16 six; the AVX-512 corpus alone could not tell the model that
 * the half-height tile wastes an AVX2 machine's registers (SGEMM 1024^3
 * 3 x 16 at 0.59x OpenBLAS, 6 x 16 at 0.82; docs/performance.md). */
static int register_features(struct feat *ft, const char *target, double *f)
{
	double v = acc_vectors(ft, vector_bytes(target));

	if (v < 0)
		return -1;
	f[EIN_FEATURE_ACC_REGISTERS] = v / vector_registers(target);
	return 0;
}

static void feat_clear(struct feat *ft)
{
	int L;

	for (L = 0; ft->tile && L <= ft->n_loop; ++L)
		isl_set_free(ft->tile[L]);
	free(ft->tile);
	free(ft->iters);
	isl_set_free(ft->sizes);
}

int ein_features_of_schedule_memo(ein_ctx *ctx, const struct ein_func *func,
	struct ein_schedule *s, const int64_t *sizes, const char *target,
	struct ein_features_memo *memo, double *f)
{
	struct feat ft = { .ctx = ctx, .memo = memo, .func = func, .s = s,
		.scop = ein_schedule_get_scop(s) };
	int r = -1;

	memset(f, 0, EIN_FEATURES_N * sizeof(*f));
	ft.sizes = size_set(ctx, func, sizes);
	ft.main = ft.sizes ? main_stmt(&ft) : -1;
	if (ft.main >= 0) {
		ft.n_loop = ein_schedule_n_loop(s, ft.main);
		f[EIN_FEATURE_N_LOOP] = ft.n_loop;
		f[EIN_FEATURE_VECTOR_BYTES] = vector_bytes(target);
		if (tiles(&ft) == 0 && loop_features(&ft, f) == 0 &&
		    register_features(&ft, target, f) == 0 &&
		    tile_features(&ft, f) == 0 &&
		    access_features(&ft, f) == 0 &&
		    stmt_features(&ft, f) == 0 &&
		    def_features(&ft, sizes, f) == 0)
			r = 0;
	}
	feat_clear(&ft);
	if (r < 0)
		ein_internal(ctx, "the cost model's features of '%s' could "
			"not be computed", func->def->name);
	return r;
}

int ein_features_of_schedule(ein_ctx *ctx, const struct ein_func *func,
	struct ein_schedule *s, const int64_t *sizes, const char *target,
	double *f)
{
	return ein_features_of_schedule_memo(ctx, func, s, sizes, target, NULL,
		f);
}

int ein_features_compute(ein_ctx *ctx, const struct ein_func *func,
	__isl_keep struct ein_sched_file *file, const int64_t *sizes,
	const char *target, int strict, double *f)
{
	struct ein_scop *scop = ein_scop_from_func(ctx, func);
	struct ein_schedule *src = scop ? ein_schedule_source(scop) : NULL;
	struct ein_deps *deps = src ? ein_deps_compute(scop,
		ein_schedule_get_map(src)) : NULL;
	struct ein_schedule *s = deps ? ein_schedule_default(scop) : NULL;
	int r = s ? 0 : -1;

	if (r == 0 && file)
		r = ein_sched_apply(ctx, s, deps, file, strict);
	if (r == 0)
		r = ein_features_of_schedule(ctx, func, s, sizes, target, f);
	ein_schedule_free(s);
	ein_deps_free(deps);
	ein_schedule_free(src);
	ein_scop_free(scop);
	return r;
}
