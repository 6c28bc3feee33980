/*
 * gpu_map.c: the device mapping of the OpenCL target (gpu_map.h).
 *
 * Before and after the default mapping of a statement over i, j whose
 * loops carry no dependence, k a reduction:
 *
 *	band i                          mark gpu_block 1   (i.o = i / 16)
 *	  band j             ==>          mark gpu_block 0   (j.o = j / 16)
 *	    band k                          mark gpu_thread 1  (i.i = i % 16)
 *	                                      mark gpu_thread 0  (j.i = j % 16)
 *	                                        band k     (in the work-item)
 *
 * Precondition: the statements' loops as the default schedule or a
 * schedule file left them.  Postcondition: mapped loops as gpu_map.h
 * draws them, each free of carried dependences.
 */
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "sched/apply.h"
#include "sched/gpu_map.h"

/* The tile sizes of the default mapping: one dimension, two. */
#define TILE_1D 64
#define TILE_2D 16
/* The most work-items of a group the mapping asks for. */
#define MAX_GROUP 1024

/* The number of loops of "stmt" mapped to blocks (threads 0) or to
 * threads. */
static int n_mapped(const struct ein_schedule *s, int stmt, int threads)
{
	int k, n = 0;

	for (k = 0; k < ein_schedule_n_loop(s, stmt); ++k) {
		struct ein_loop_attr *a = ein_schedule_loop_attr(
			(struct ein_schedule *) s, stmt, k);

		n += threads ? a->gpu_thread != 0 : a->gpu_block != 0;
	}
	return n;
}

int ein_sched_gpu_is_mapped(const struct ein_schedule *s, int stmt)
{
	int i;

	for (i = 0; i < ein_schedule_n_stmt(s); ++i)
		if ((stmt < 0 || i == stmt) &&
		    (n_mapped(s, i, 0) || n_mapped(s, i, 1)))
			return 1;
	return 0;
}

/* Does loop "loop" of "stmt" run "stmt" alone?  -1 on error. */
static int runs_alone(const struct ein_schedule *s, int stmt, int loop)
{
	int i, n = ein_schedule_n_stmt(s), member[n + 1];

	if (ein_schedule_loop_members(s, stmt, loop, member) < 0)
		return -1;
	for (i = 0; i < n; ++i)
		if (i != stmt && member[i])
			return 0;
	return 1;
}

/* The work-items loop "loop" of "stmt" needs: its largest trip count,
 * 0 if it has no constant one or too large a one. */
static long group_extent(const struct ein_schedule *s, int stmt, int loop)
{
	long bound;

	if (ein_schedule_loop_trip_bound(s, stmt, loop, &bound) < 0 ||
	    bound < 1 || bound > MAX_GROUP)
		return 0;
	return bound;
}

/* Report that argument "arg" cannot be mapped, "why" (with the loop's and
 * the statement's names). */
static int map_error(ein_ctx *ctx, const struct ein_sched_arg *arg,
	const char *why, const char *stmt, const char *hint)
{
	ein_error_at(ctx, arg->loc, why, arg->name, stmt);
	if (hint)
		ein_hint(ctx, "%s", hint);
	return -1;
}

/* Check that the "n" loops "arg" are loops first..first+n-1 of "stmt",
 * in order, each running "stmt" alone, and that none is mapped or
 * vectorised. */
static int check_place(ein_ctx *ctx, struct ein_schedule *s, int stmt,
	int first, int n, const struct ein_sched_arg *arg)
{
	const char *name = ein_schedule_get_stmt(s, stmt)->name;
	int i, k;

	for (i = 0; i < n; ++i) {
		k = ein_schedule_find_loop(s, stmt, arg[i].name);
		if (k < 0)
			return map_error(ctx, &arg[i], "no loop '%s' in %s",
				name, NULL);
		if (k != first + i)
			return map_error(ctx, &arg[i], "loop '%s' of %s is not "
				"where the grid needs it: the blocks' loops "
				"are the outermost, the threads' inside them, "
				"next to each other, in the order given", name,
				"reorder the loops before mapping them");
		if (ein_schedule_loop_attr(s, stmt, k)->vector)
			return map_error(ctx, &arg[i], "loop '%s' of %s is "
				"vectorised: a work-item's vectors cannot be "
				"spread over the grid", name, "vectorize a loop "
				"inside the gpu_threads loops");
		if (ein_schedule_get_parent(s, stmt) >= 0 ||
		    runs_alone(s, stmt, k) != 1)
			return map_error(ctx, &arg[i], "loop '%s' of %s runs "
				"other statements: a mapped loop runs its own "
				"statement only", name, NULL);
	}
	return 0;
}

/* Where the threads' loops of "stmt" start, the first "arg" names: right
 * inside the "nb" blocks' loops or deeper, sequential loops that all the
 * work-items of a group run between them (opencl/emit.c puts a barrier
 * at the end of their iterations).  Where "arg" names no loop, or one
 * among the blocks', right inside them, for check_place to report. */
static int thread_start(struct ein_schedule *s, int stmt, int nb,
	const struct ein_sched_arg *arg)
{
	int k = ein_schedule_find_loop(s, stmt, arg->name);

	return k < nb ? nb : k;
}

/* Mark the "n" loops from "first" of "stmt" as mapped, the last to
 * dimension 0; threads also get their extents ("extent"). */
static void mark(struct ein_schedule *s, int stmt, int first, int n,
	int threads, const long *extent)
{
	int i;

	for (i = 0; i < n; ++i) {
		struct ein_loop_attr *a = ein_schedule_loop_attr(s, stmt,
			first + i);

		if (threads) {
			a->gpu_thread = n - i;
			a->gpu_size = (int) extent[i];
		} else {
			a->gpu_block = n - i;
		}
	}
}

int ein_sched_gpu_mark(ein_ctx *ctx, struct ein_schedule *s, int stmt,
	int threads, int n, const struct ein_sched_arg *arg)
{
	const char *name = ein_schedule_get_stmt(s, stmt)->name;
	int nb = n_mapped(s, stmt, 0), i, first = 0;
	long extent[EIN_GPU_MAX_DIM], items = 1;

	if (n > EIN_GPU_MAX_DIM)
		return map_error(ctx, &arg[EIN_GPU_MAX_DIM], "loop '%s' of %s "
			"is one too many: a grid has 3 dimensions", name, NULL);
	if (n_mapped(s, stmt, threads))
		return map_error(ctx, &arg[0], "loop '%s' of %s: the "
			"statement's loops are already mapped to the grid",
			name, "give gpu_blocks and gpu_threads once each");
	if (threads && !nb)
		return map_error(ctx, &arg[0], "loop '%s' of %s: the threads' "
			"loops are inside the blocks' loops, which are not "
			"mapped yet", name, "map the outer loops with "
			"gpu_blocks first");
	if (threads)
		first = thread_start(s, stmt, nb, &arg[0]);
	if (check_place(ctx, s, stmt, first, n, arg) < 0)
		return -1;
	for (i = 0; threads && i < n; ++i) {
		extent[i] = group_extent(s, stmt, first + i);
		items *= extent[i];
		if (!extent[i] || items > MAX_GROUP)
			return map_error(ctx, &arg[i], "loop '%s' of %s has no "
				"constant trip count of at most 1024 work-items "
				"(all threads' loops together)", name,
				"split the loop and map its inner loop");
	}
	mark(s, stmt, first, n, threads, extent);
	return 0;
}

/* Is loop "loop" of "stmt" free of carried dependences (reductions
 * count)?  1 if so, 0 if not, -1 on error. */
static int is_parallel(struct ein_schedule *s, const struct ein_deps *deps,
	int stmt, int loop)
{
	int n = ein_schedule_n_stmt(s), member[n + 1], r = -1;
	isl_union_map *map = ein_schedule_get_map(s);
	char *why = NULL;

	if (map && ein_schedule_loop_members(s, stmt, loop, member) == 0)
		r = ein_deps_check_carried(deps, map,
			ein_schedule_loop_dim(s, stmt, loop), member, 0, &why);
	free(why);
	isl_union_map_free(map);
	return r;
}

/* Does "s" run every dependence's source before its sink, reductions
 * included (the default mapping keeps the source's order of each
 * element's updates, as the default schedule does)?  1 if so, 0 if not,
 * -1 on error. */
static int keeps_order(struct ein_schedule *s, const struct ein_deps *deps)
{
	isl_union_map *map = ein_schedule_get_map(s);
	char *why = NULL;
	int r = map ? ein_deps_check_order(deps, map, 1, &why) : -1;

	free(why);
	isl_union_map_free(map);
	return r;
}

/* Move loop "k" of "stmt" to position "n" (k >= n), the loops between
 * one place in. */
static int hoist(struct ein_schedule *s, int stmt, int n, int k)
{
	int order[k - n + 1], i;

	order[0] = k;
	for (i = n; i < k; ++i)
		order[i - n + 1] = i;
	return k == n ? 0 : ein_schedule_reorder(s, stmt, k - n + 1, order);
}

/* Would loop "k" of "stmt", moved to position "n", be a loop that runs
 * the statement alone, carries no dependence, and keep the schedule
 * legal?  1 if so, 0 if not, -1 on error. */
static int can_hoist(struct ein_schedule *s, const struct ein_deps *deps,
	int stmt, int n, int k)
{
	struct ein_schedule *t = ein_schedule_copy(s);
	int r = t ? hoist(t, stmt, n, k) : -1;

	if (r == 0)
		r = runs_alone(t, stmt, n);
	if (r == 1 && k != n)
		r = keeps_order(t, deps);
	if (r == 1)
		r = is_parallel(t, deps, stmt, n);
	ein_schedule_free(t);
	return r;
}

/* Bring up to two loops of "stmt" that carry no dependence to its front,
 * the outermost first (matmul's update i, k, j becomes i, j, k), and
 * return their number; -1 on error. */
static int n_parallel(struct ein_schedule *s, const struct ein_deps *deps,
	int stmt)
{
	int k, n = 0, r;

	if (ein_schedule_get_parent(s, stmt) >= 0)
		return 0;
	for (k = 0; n < 2 && k < ein_schedule_n_loop(s, stmt); ++k) {
		r = can_hoist(s, deps, stmt, n, k);
		if (r < 0 || (r == 1 && hoist(s, stmt, n, k) < 0))
			return -1;
		n += r;
	}
	return n;
}

/* Tile the first "n" (1 or 2) loops of "stmt" and map them: i.o (j.o) to
 * blocks, i.i (j.i) to threads. */
static int map_stmt(struct ein_schedule *s, int stmt, int n)
{
	static const int order[] = { 0, 2, 1, 3 };
	long extent[2], tile = n == 1 ? TILE_1D : TILE_2D;
	int i;

	for (i = n - 1; i >= 0; --i)
		if (ein_schedule_split(s, stmt, i, tile) < 0)
			return -1;
	if (n == 2 && ein_schedule_reorder(s, stmt, 4, order) < 0)
		return -1;
	for (i = 0; i < n; ++i)
		if (!(extent[i] = group_extent(s, stmt, n + i)))
			return -1;
	mark(s, stmt, 0, n, 0, NULL);
	mark(s, stmt, n, n, 1, extent);
	return 0;
}

int ein_sched_gpu_default(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps)
{
	int i, n;

	for (i = 0; i < ein_schedule_n_stmt(s); ++i) {
		n = n_parallel(s, deps, i);
		if (n < 0 || (n > 0 && map_stmt(s, i, n) < 0)) {
			if (ein_diag_n_error(ctx) == 0)
				ein_internal(ctx, "cannot map %s to the grid",
					ein_schedule_get_stmt(s, i)->name);
			return -1;
		}
	}
	return ein_sched_check(ctx, s, deps, 0);
}
