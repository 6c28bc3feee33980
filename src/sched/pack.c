/*
 * pack.c: the local buffers of pack and accumulate, lowered to buffers and
 * copy statements of the scop.
 *
 * Pre: a legal schedule whose loops may ask for local buffers: loop L of
 *	statement S, at level l of S's vector, for tensor X (a tensor S
 *	reads, or for accumulate its output).
 * Post: for each, with v the values of S's first l levels (the loops up
 *	to and including L) and F = { v -> e } the elements of X that S
 *	accesses (within their guards) in the iteration v:
 *	- a buffer "X_pack<k>" ("X_acc<k>"): the bounding box of F(v), in
 *	  the order of X's dimensions, whose extent in dimension d is the
 *	  largest over v of max F_d(v) - min F_d(v) + 1 (a constant when a
 *	  tile size bounds it, else a function of the sizes);
 *	- a copy in "X_pack<k>_in" with domain { [v, e] : e in F(v) } that
 *	  stores X[e] at buffer[e - lb(v)], lb(v) = min F(v) per dimension
 *	  (for accumulate only if S reads its output), and for accumulate a
 *	  copy out "X_acc<k>_out" that stores it back;
 *	- S's accesses to X redirected to buffer[x - lb(v(s))].
 *	The copies run in the iteration v of L just before (after) the
 *	statements at the next level, and loop over e in the order of X's
 *	dimensions, so that both sides are walked contiguously:
 *
 *	  L                           L
 *	  └─ S's inner loops   =>     └─ sequence
 *	                                 ├─ X_pack0_in: for e
 *	                                 ├─ S's inner loops
 *	                                 └─ (X_acc0_out: for e)
 *
 * A layout ("pack X at L layout k i", "... layout j/16 k j%16") orders
 * the dimensions of the buffer and may split them into blocks: the box
 * is X's, and the buffer's index of element e is a function of its
 * offset e - lb(v) (to_buffer: the offset, or floor(offset / N) and
 * offset mod N).  The copies loop over e in X's order, reading X
 * contiguously, except that a copy in whose layout only reorders X's
 * dimensions (moving the last) loops in the buffer's order, so that its
 * stores are contiguous, that a copy in whose layout blocks X's last
 * dimension and keeps the place in the block innermost walks the blocks
 * outermost (block_copy), and that a copy still moving X's last
 * dimension is kept scalar (add_copy).
 *
 * The copies touch only elements S accesses (never the rest of the box,
 * which may lie out of X's bounds, or belong to another thread's
 * iterations for accumulate).  The dependences are not recomputed: the
 * copies keep those of the source when nothing else in L writes X (pack)
 * or accesses it (accumulate), which apply.c checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>
#include <isl/val.h>
#include <isl/ilp.h>
#include <isl/stride_info.h>
#include "diag.h"
#include "sched/pack.h"

/* The lowering of one local buffer.
 * s, scop: the schedule and its scop;
 * stmt, level, local: S, the level of L in S's vector, the request;
 * prefix: S's domain -> v;
 * fp: the footprint F, v -> X[e];
 * lb: v -> B[lb(v)], defined for every v (0 where F(v) is empty);
 * stride: the stride of the box in each of its dimensions;
 * buffer, name: the buffer's tensor position and name (the scop's). */
struct lower {
	struct ein_schedule *s;
	struct ein_scop *scop;
	int stmt;
	int level;
	const struct ein_local *local;
	isl_multi_pw_aff *prefix;
	isl_map *fp;
	isl_multi_pw_aff *lb;
	isl_multi_val *stride;
	int buffer;
	const char *name;
};

static void lower_clear(struct lower *lw)
{
	isl_multi_pw_aff_free(lw->prefix);
	isl_map_free(lw->fp);
	isl_multi_pw_aff_free(lw->lb);
	isl_multi_val_free(lw->stride);
}

__isl_give isl_map *ein_sched_footprint(const struct ein_scop *scop,
	const struct ein_scop_stmt *stmt, __isl_keep isl_multi_pw_aff *prefix,
	int tensor)
{
	isl_map *acc = ein_scop_stmt_tensor_accesses(stmt, tensor, 0);
	isl_map *p = isl_map_from_multi_pw_aff(
		isl_multi_pw_aff_copy(prefix));

	if (!acc)
		return isl_map_free(p);
	acc = isl_map_apply_range(isl_map_reverse(p), acc);
	acc = isl_map_intersect_params(acc, isl_set_copy(scop->context));
	return isl_map_coalesce(acc);
}

/* F, the footprint of S's accesses to X. */
static __isl_give isl_map *footprint(struct lower *lw)
{
	return ein_sched_footprint(lw->scop, &lw->scop->stmt[lw->stmt],
		lw->prefix, lw->local->tensor);
}

/* Are fp's values for different v disjoint, and is "a" equal to it? */
static isl_bool same_and_disjoint(__isl_keep isl_map *fp,
	__isl_keep isl_map *a)
{
	isl_bool ok = isl_map_is_injective(fp);

	if (ok == isl_bool_true)
		ok = isl_map_is_equal(fp, a);
	return ok;
}

int ein_sched_pack_init_in_buffer(struct ein_schedule *s, int stmt,
	int loop, int tensor)
{
	struct ein_scop *scop = ein_schedule_get_scop(s);
	int n = ein_schedule_n_stmt(s), member[n + 1];
	int init = ein_schedule_get_init(s, stmt), level;
	isl_multi_pw_aff *ps, *pi;
	isl_map *fs, *fi;
	isl_bool ok;

	if (init < 0)
		return -1;
	if (ein_schedule_loop_members(s, stmt, loop, member) < 0)
		return -2;
	if (!member[init])
		return -1;
	level = ein_schedule_loop_level(s, stmt, loop);
	ps = ein_schedule_get_prefix(s, stmt, level);
	pi = ein_schedule_get_prefix(s, init, level);
	fs = ps ? ein_sched_footprint(scop, &scop->stmt[stmt], ps,
		tensor) : NULL;
	fi = pi ? ein_sched_footprint(scop, &scop->stmt[init], pi,
		tensor) : NULL;
	ok = fs && fi ? same_and_disjoint(fs, fi) : isl_bool_error;
	isl_multi_pw_aff_free(ps);
	isl_multi_pw_aff_free(pi);
	isl_map_free(fs);
	isl_map_free(fi);
	if (ok < 0)
		return -2;
	return ok ? init : -1;
}

/* "pa" (taken) extended with 0 where it is not defined in its space. */
static __isl_give isl_pw_aff *total(__isl_take isl_pw_aff *pa)
{
	isl_space *space = isl_pw_aff_get_domain_space(pa);
	isl_pw_aff *zero = isl_pw_aff_zero_on_domain(
		isl_local_space_from_space(space));

	return isl_pw_aff_union_max(pa, zero);
}

/* lb: v -> B[min F_d(v) for each d].  The footprint lies in X's bounds,
 * so each minimum is at least 0 and extending lb by 0 changes nothing
 * where it is defined. */
static __isl_give isl_multi_pw_aff *lower_bound(__isl_keep isl_map *fp,
	const char *name)
{
	int d, n = isl_map_dim(fp, isl_dim_out);
	isl_space *space = isl_map_get_space(fp);
	isl_pw_aff_list *list = isl_pw_aff_list_alloc(isl_map_get_ctx(fp), n);

	for (d = 0; d < n; ++d)
		list = isl_pw_aff_list_add(list,
			total(isl_map_dim_min(isl_map_copy(fp), d)));
	space = isl_space_set_tuple_name(space, isl_dim_out, name);
	return isl_multi_pw_aff_from_pw_aff_list(space, list);
}

/* The largest value of the only dimension of "set" (taken) over all
 * values of the sizes, or NULL if there is none (it grows with a size). */
static __isl_give isl_val *max_over_sizes(__isl_take isl_set *set)
{
	int n = isl_set_dim(set, isl_dim_param);
	isl_aff *x;
	isl_val *v;

	set = isl_set_move_dims(set, isl_dim_set, 1, isl_dim_param, 0, n);
	x = isl_aff_var_on_domain(isl_local_space_from_space(
		isl_set_get_space(set)), isl_dim_set, 0);
	v = isl_set_max_val(set, x);
	isl_aff_free(x);
	isl_set_free(set);
	if (v && !isl_val_is_int(v))
		v = isl_val_free(v);
	return v;
}

/* The stride s of dimension d of "fp": for each v, F_d(v) lies on
 * lb_d(v) + s Z.  1 where isl finds no constant stride above 1. */
static __isl_give isl_val *range_stride(__isl_keep isl_map *fp, int d)
{
	isl_stride_info *si = isl_map_get_range_stride_info(fp, d);
	isl_val *s = si ? isl_stride_info_get_stride(si) : NULL;

	isl_stride_info_free(si);
	if (s && (!isl_val_is_int(s) || isl_val_cmp_si(s, 1) < 0))
		s = isl_val_set_si(s, 1);
	return s;
}

/* "pa" (taken) divided by "s" (taken), rounded down: the number of
 * strides from the box's corner (a multiple of s where it is used). */
static __isl_give isl_pw_aff *div_stride(__isl_take isl_pw_aff *pa,
	__isl_take isl_val *s)
{
	if (s && isl_val_is_one(s))
		return (isl_val_free(s), pa);
	return isl_pw_aff_floor(isl_pw_aff_scale_down_val(pa, s));
}

/* The extent of the box of "fp" in dimension d, whose values lie on a
 * lattice of stride "s": the largest number of lattice points of F_d(v)
 * over v, as a constant when it is bounded, else as a function of the
 * sizes (at least 1, so that it is defined for all sizes). */
static __isl_give isl_pw_aff *extent(__isl_keep isl_map *fp,
	__isl_keep isl_set *ctx_set, int d, __isl_take isl_val *s)
{
	isl_pw_aff *w = isl_pw_aff_sub(isl_map_dim_max(isl_map_copy(fp), d),
		isl_map_dim_min(isl_map_copy(fp), d));
	isl_set *widths;
	isl_val *bound;
	isl_pw_aff *one;

	w = div_stride(w, s);
	w = isl_pw_aff_add_constant_val(w, isl_val_one(isl_map_get_ctx(fp)));
	widths = isl_map_range(isl_map_from_pw_aff(w));
	widths = isl_set_intersect_params(widths, isl_set_copy(ctx_set));
	bound = max_over_sizes(isl_set_copy(widths));
	if (bound) {
		isl_set_free(widths);
		return isl_pw_aff_val_on_domain(isl_set_copy(ctx_set), bound);
	}
	one = isl_pw_aff_val_on_domain(isl_set_copy(ctx_set),
		isl_val_one(isl_set_get_ctx(ctx_set)));
	return isl_pw_aff_union_max(isl_set_dim_max(widths, 0), one);
}

/* Is "name" a tensor of the scop or one of its buffers? */
static int name_taken(const struct ein_scop *scop, const char *name)
{
	int t;

	for (t = 0; t < ein_scop_n_tensor(scop); ++t)
		if (!strcmp(ein_scop_tensor_name(scop, t), name))
			return 1;
	return 0;
}

/* The strides of the box of "fp" in its dimensions: those of "fp" if
 * "compact", else 1. */
static __isl_give isl_multi_val *box_strides(__isl_keep isl_map *fp,
	int compact)
{
	isl_space *space = isl_space_range(isl_map_get_space(fp));
	isl_multi_val *mv = isl_multi_val_zero(space);
	int d, n = isl_map_dim(fp, isl_dim_out);

	for (d = 0; d < n; ++d)
		mv = isl_multi_val_set_val(mv, d, compact ?
			range_stride(fp, d) : isl_val_one(isl_map_get_ctx(fp)));
	return mv;
}

/* The extent of the buffer's dimension "k" under "layout" (NULL: the
 * tensor's order) from the extents "ext" of the tensor's dimensions:
 * ext_d, ceil(ext_d / N) blocks, or min(ext_d, N) places in a block. */
static __isl_give isl_pw_aff *layout_extent(const struct ein_local *layout,
	isl_pw_aff **ext, int k)
{
	int d = layout ? layout->layout[k] : k;
	int b = layout ? layout->block[k] : 0;
	isl_pw_aff *pa = isl_pw_aff_copy(ext[d]);
	isl_val *v;

	if (b == 0)
		return pa;
	v = isl_val_int_from_si(isl_pw_aff_get_ctx(pa), b > 0 ? b : -b);
	if (b < 0)
		return isl_pw_aff_min(pa, isl_pw_aff_val_on_domain(
			isl_pw_aff_domain(isl_pw_aff_copy(ext[d])), v));
	pa = isl_pw_aff_add_constant_val(pa, isl_val_sub_ui(
		isl_val_copy(v), 1));
	return isl_pw_aff_floor(isl_pw_aff_scale_down_val(pa, v));
}

int ein_sched_box_buffer(struct ein_scop *scop, int tensor, const char *kind,
	__isl_keep isl_map *fp, const struct ein_local *layout,
	__isl_give isl_multi_pw_aff **lb, __isl_give isl_multi_val **stride)
{
	const char *x = ein_scop_tensor_name(scop, tensor);
	int d, k, b = -1, n = isl_map_dim(fp, isl_dim_out), n_buf;
	isl_pw_aff **ext = calloc(n + 1, sizeof(*ext)), **buf;
	isl_multi_val *mv = box_strides(fp, stride != NULL);
	char name[64];

	if (layout && !layout->n_layout)
		layout = NULL;
	n_buf = layout ? layout->n_layout : n;
	buf = calloc(n_buf + 1, sizeof(*buf));

	*lb = NULL;
	for (k = 0; ; ++k) {
		snprintf(name, sizeof(name), "%.40s_%s%d", x, kind, k);
		if (!name_taken(scop, name))
			break;
	}
	for (d = 0; ext && d < n; ++d)
		ext[d] = extent(fp, scop->context, d,
			isl_multi_val_get_val(mv, d));
	for (k = 0; ext && buf && k < n_buf; ++k)
		buf[k] = layout_extent(layout, ext, k);
	if (ext && buf)
		b = ein_scop_add_buffer(scop, name, tensor, n_buf, buf);
	else
		free(buf);
	for (d = 0; ext && d < n; ++d)
		isl_pw_aff_free(ext[d]);
	free(ext);
	if (b >= 0)
		*lb = lower_bound(fp, name);
	if (stride && *lb)
		*stride = isl_multi_val_copy(mv);
	isl_multi_val_free(mv);
	return *lb ? b : -1;
}

/* The offsets "off" (taken) of an element from the box's corner, in X's
 * dimensions, counted in strides: off / stride per dimension. */
static __isl_give isl_multi_pw_aff *compact(const struct lower *lw,
	__isl_take isl_multi_pw_aff *off)
{
	int d, n = isl_multi_pw_aff_dim(off, isl_dim_out);

	for (d = 0; d < n; ++d)
		off = isl_multi_pw_aff_set_pw_aff(off, d, div_stride(
			isl_multi_pw_aff_get_pw_aff(off, d),
			isl_multi_val_get_val(lw->stride, d)));
	return off;
}

__isl_give isl_multi_pw_aff *ein_sched_select_dims(
	__isl_take isl_space *space,
	int first, int n, const char *name)
{
	isl_space *range = isl_space_add_dims(
		isl_space_params(isl_space_copy(space)), isl_dim_set, n);
	isl_local_space *ls = isl_local_space_from_space(
		isl_space_copy(space));
	isl_multi_aff *ma;
	int d;

	if (name)
		range = isl_space_set_tuple_name(range, isl_dim_set, name);
	ma = isl_multi_aff_zero(isl_space_map_from_domain_and_range(space,
		range));
	for (d = 0; d < n; ++d)
		ma = isl_multi_aff_set_aff(ma, d, isl_aff_var_on_domain(
			isl_local_space_copy(ls), isl_dim_set, first + d));
	isl_local_space_free(ls);
	return isl_multi_pw_aff_from_multi_aff(ma);
}

/* The buffer's index from "off" (taken), the offsets of an element from
 * the box's corner in X's dimensions (in strides): off_d, floor(off_d /
 * N) or off_d mod N for each dimension of the buffer (the identity
 * without a layout). */
static __isl_give isl_multi_pw_aff *to_buffer(const struct lower *lw,
	__isl_take isl_multi_pw_aff *off)
{
	const struct ein_local *l = lw->local;
	isl_pw_aff_list *list;
	isl_space *space, *range;
	int k;

	if (!l->n_layout || !off)
		return off;
	list = isl_pw_aff_list_alloc(isl_multi_pw_aff_get_ctx(off),
		l->n_layout);
	for (k = 0; k < l->n_layout; ++k) {
		isl_pw_aff *pa = isl_multi_pw_aff_get_pw_aff(off,
			l->layout[k]);
		isl_val *v = isl_val_int_from_si(isl_pw_aff_get_ctx(pa),
			l->block[k] > 0 ? l->block[k] : -l->block[k]);

		if (l->block[k] > 0)
			pa = isl_pw_aff_floor(isl_pw_aff_scale_down_val(pa, v));
		else if (l->block[k] < 0)
			pa = isl_pw_aff_mod_val(pa, v);
		else
			isl_val_free(v);
		list = isl_pw_aff_list_add(list, pa);
	}
	space = isl_space_domain(isl_multi_pw_aff_get_space(off));
	range = isl_space_add_dims(isl_space_params(isl_space_copy(space)),
		isl_dim_set, l->n_layout);
	range = isl_space_set_tuple_name(range, isl_dim_set, lw->name);
	space = isl_space_map_from_domain_and_range(space, range);
	isl_multi_pw_aff_free(off);
	return isl_multi_pw_aff_from_pw_aff_list(space, list);
}

/* On the domain space of a copy, [v, e]: the buffer's index of e, from
 * its offset e - lb(v). */
static __isl_give isl_multi_pw_aff *copy_buffer_index(struct lower *lw,
	__isl_keep isl_space *space)
{
	int n = isl_map_dim(lw->fp, isl_dim_out);
	isl_multi_pw_aff *e = ein_sched_select_dims(isl_space_copy(space),
		lw->level, n, lw->name);
	isl_multi_pw_aff *v = ein_sched_select_dims(isl_space_copy(space), 0,
		lw->level, NULL);
	isl_multi_pw_aff *lb = isl_multi_pw_aff_pullback_multi_pw_aff(
		isl_multi_pw_aff_copy(lw->lb), v);

	return to_buffer(lw, compact(lw, isl_multi_pw_aff_sub(e, lb)));
}

/* Does "local"'s layout put another dimension than the last of its
 * n-dimensional tensor innermost in the buffer ("layout c r s f" of
 * Wt(f, c, r, s))?  A copy into it or out of it, walking the tensor in
 * order, then accesses the buffer with a stride. */
static int moves_innermost(const struct ein_local *local, int n)
{
	return local->n_layout > 0 && n <= EIN_LOCAL_MAX_DIM &&
		local->layout[local->n_layout - 1] != n - 1;
}

/* The order in which a copy walks the buffer of "local", whose layout
 * orders the n dimensions of its tensor without splitting any into
 * blocks, into order[0 .. n-1]: the dimensions the layout leaves out
 * (each one element of the buffer) first, then the layout's.  0 if the
 * layout has blocks. */
static int buffer_order(const struct ein_local *local, int n, int *order)
{
	int k, d, m = 0, listed[EIN_LOCAL_MAX_DIM] = { 0 };

	if (n > EIN_LOCAL_MAX_DIM)
		return 0;
	for (k = 0; k < local->n_layout; ++k) {
		if (local->block[k] != 0)
			return 0;
		listed[local->layout[k]] = 1;
	}
	for (d = 0; d < n; ++d)
		if (!listed[d])
			order[m++] = d;
	for (k = 0; k < local->n_layout; ++k)
		order[m++] = local->layout[k];
	return m == n;
}

/* Keep the n loops of copy statement "stmt" scalar: LLVM's vectoriser
 * would vectorise a transposing copy along whichever loop is innermost
 * once it has unrolled the short ones, gathering and scattering where
 * the target has them (AVX-512: the weights of a 3x3 convolution and
 * its [w][f] output tile took half the time of the kernel). */
static void scalar_loops(struct ein_schedule *s, int stmt, int n)
{
	int k;

	for (k = 0; k < n; ++k)
		ein_schedule_loop_attr(s, stmt, k)->scalar = 1;
}

/* The block size N when "local"'s layout splits the last of the n
 * dimensions of its tensor into blocks and keeps the place in the block
 * innermost ("layout j/32 k j%32" of B(k, j)), else 0. */
static int last_block(const struct ein_local *local, int n)
{
	int k = local->n_layout - 1;

	if (k < 1 || local->layout[k] != n - 1 || local->block[k] >= 0)
		return 0;
	return -local->block[k];
}

/* Walk copy "stmt" into a buffer whose layout blocks the last of its n
 * loops by "block" as the buffer is laid out: that loop split by the
 * block, the blocks outermost, the place in the block innermost.  Walked
 * in the tensor's order, the copy stored at [j / N][k][j % N], which
 * LLVM vectorised with scatters (vscatterqps in every SGEMM with
 * schedules/x86_64-avx512/matmul.large1024.sched, issue 22); now both
 * sides are contiguous along the innermost loop whenever the tile's
 * start is a multiple of the block (a tile of j whose size the block
 * divides), and every instance is still copied once (the order of a
 * copy's own instances is free: each writes its own element). */
static int block_copy(struct ein_schedule *s, int stmt, int n, int block)
{
	int order[EIN_LOCAL_MAX_DIM + 1], k;

	if (n > EIN_LOCAL_MAX_DIM || ein_schedule_split(s, stmt, n - 1,
			block) < 0)
		return -1;
	order[0] = n - 1;
	for (k = 0; k < n - 1; ++k)
		order[k + 1] = k;
	order[n] = n;
	return ein_schedule_order_copy(s, stmt, order);
}

/* The copy in of OpenCL's "local" (a pack with local->gpu): its "n"
 * loops, the innermost first, run across the work-items of the group's
 * dimensions 0, 1 and 2 (gpu_copy), the work-items filling the __local
 * buffer together, neighbouring ones neighbouring elements.  The rest
 * run whole in each work-item. */
static int cooperative_loops(struct lower *lw, enum ein_stmt_kind kind,
	int n)
{
	int k, stmt = lw->scop->n_stmt - 1;

	if (!lw->local->gpu || lw->local->kind != EIN_LOCAL_PACK ||
	    kind != EIN_STMT_COPY_IN)
		return 0;
	for (k = 0; k < n && k < EIN_GPU_COPY_DIM; ++k)
		ein_schedule_loop_attr(lw->s, stmt, n - 1 - k)->gpu_copy =
			k + 1;
	return 0;
}

/* Add the copy of kind "kind" named after the buffer with "suffix", and
 * place it in S's loop. */
static int add_copy(struct lower *lw, enum ein_stmt_kind kind,
	const char *suffix)
{
	char name[strlen(lw->name) + 8];
	isl_set *dom = isl_set_flatten(isl_map_wrap(isl_map_copy(lw->fp)));
	isl_space *space;
	isl_multi_pw_aff *buf, *x;
	int t = lw->local->tensor, n = isl_map_dim(lw->fp, isl_dim_out);
	const char *xname = ein_scop_tensor_name(lw->scop, t);
	struct ein_scop_stmt *copy;
	int order[EIN_LOCAL_MAX_DIM], block;

	snprintf(name, sizeof(name), "%s%s", lw->name, suffix);
	dom = isl_set_set_tuple_name(dom, name);
	space = isl_set_get_space(dom);
	buf = copy_buffer_index(lw, space);
	x = ein_sched_select_dims(space, lw->level, n, xname);
	if (kind == EIN_STMT_COPY_IN)
		copy = ein_scop_add_copy(lw->scop, kind,
			lw->scop->stmt[lw->stmt].src, dom, lw->buffer, buf, t,
			x);
	else
		copy = ein_scop_add_copy(lw->scop, kind,
			lw->scop->stmt[lw->stmt].src, dom, t, x, lw->buffer,
			buf);
	if (!copy || ein_schedule_add_copy(lw->s, lw->stmt, lw->level,
			xname) < 0)
		return -1;
	block = kind == EIN_STMT_COPY_IN ? last_block(lw->local, n) : 0;
	if (block > 0 && block_copy(lw->s, lw->scop->n_stmt - 1, n, block) < 0)
		return -1;
	ein_schedule_parallel_copy(lw->s, lw->scop->n_stmt - 1);
	if (!moves_innermost(lw->local, n))
		return cooperative_loops(lw, kind, n);
	if (kind == EIN_STMT_COPY_IN && buffer_order(lw->local, n, order)) {
		if (ein_schedule_order_copy(lw->s, lw->scop->n_stmt - 1,
				order) < 0)
			return -1;
		return cooperative_loops(lw, kind, n);
	}
	scalar_loops(lw->s, lw->scop->n_stmt - 1, n);
	return cooperative_loops(lw, kind, n);
}

/* Does S read X (other than by writing it)? */
static int reads(const struct ein_scop_stmt *stmt, int tensor)
{
	int k;

	for (k = 0; k < stmt->n_access; ++k)
		if (!stmt->access[k].is_write &&
		    stmt->access[k].tensor == tensor)
			return 1;
	return 0;
}

/* Redirect the accesses of statement "i" to X to the buffer:
 * x(s) - lb(v(s)), with v its "prefix". */
static int redirect_stmt(struct lower *lw, int i,
	__isl_keep isl_multi_pw_aff *prefix)
{
	struct ein_scop_stmt *stmt = &lw->scop->stmt[i];
	int k;

	for (k = 0; k < stmt->n_access; ++k) {
		struct ein_scop_access *a = &stmt->access[k];
		isl_multi_pw_aff *idx, *lb;

		if (a->tensor != lw->local->tensor)
			continue;
		idx = isl_multi_pw_aff_set_tuple_name(
			isl_multi_pw_aff_copy(a->index), isl_dim_out,
			lw->name);
		lb = isl_multi_pw_aff_pullback_multi_pw_aff(
			isl_multi_pw_aff_copy(lw->lb),
			isl_multi_pw_aff_copy(prefix));
		if (ein_scop_access_redirect(a, lw->buffer, to_buffer(lw,
				compact(lw, isl_multi_pw_aff_sub(idx, lb)))) < 0)
			return -1;
	}
	return 0;
}

/* Redirect S's accesses to X to the buffer, and those of S's
 * initialisation "init" if it writes the buffer (>= 0). */
static int redirect(struct lower *lw, int init)
{
	isl_multi_pw_aff *p;
	int ok;

	if (redirect_stmt(lw, lw->stmt, lw->prefix) < 0)
		return -1;
	if (init < 0)
		return 0;
	p = ein_schedule_get_prefix(lw->s, init, lw->level);
	ok = p ? redirect_stmt(lw, init, p) : -1;
	isl_multi_pw_aff_free(p);
	return ok;
}

/* Lower the request "local" of loop "loop" of statement "stmt". */
static int lower_one(struct ein_schedule *s, int stmt, int loop,
	const struct ein_local *local)
{
	struct lower lw = { .s = s, .stmt = stmt };
	int ok = 0, init = -1;

	lw.scop = ein_schedule_get_scop(s);
	lw.level = ein_schedule_loop_level(s, stmt, loop);
	lw.local = local;
	lw.prefix = ein_schedule_get_prefix(s, stmt, lw.level);
	lw.fp = lw.prefix ? footprint(&lw) : NULL;
	if (!lw.fp)
		return (lower_clear(&lw), -1);
	lw.buffer = ein_sched_box_buffer(lw.scop, local->tensor,
		local->kind == EIN_LOCAL_PACK ? "pack" : "acc", lw.fp, local,
		&lw.lb, &lw.stride);
	if (lw.buffer < 0)
		return (lower_clear(&lw), -1);
	lw.name = ein_scop_tensor_name(lw.scop, lw.buffer);
	if (local->kind == EIN_LOCAL_ACCUMULATE)
		init = ein_sched_pack_init_in_buffer(s, stmt, loop,
			local->tensor);
	if (init == -2)
		ok = -1;
	else if (local->kind == EIN_LOCAL_PACK || (init < 0 &&
			reads(&lw.scop->stmt[stmt], local->tensor)))
		ok = add_copy(&lw, EIN_STMT_COPY_IN, "_in");
	if (ok == 0 && local->kind == EIN_LOCAL_ACCUMULATE)
		ok = add_copy(&lw, EIN_STMT_COPY_OUT, "_out");
	if (ok == 0)
		ok = redirect(&lw, init);
	lower_clear(&lw);
	return ok;
}

/* Lower the requests of statement "stmt" (a statement of the source). */
static int lower_stmt(struct ein_schedule *s, int stmt)
{
	int k, j;

	for (k = 0; k < ein_schedule_n_loop(s, stmt); ++k)
		for (j = 0; j < ein_schedule_n_local(s, stmt, k); ++j) {
			struct ein_local local =
				*ein_schedule_get_local(s, stmt, k, j);

			if (local.kind == EIN_LOCAL_PREFETCH)
				continue;
			if (lower_one(s, stmt, k, &local) < 0)
				return -1;
		}
	return 0;
}

int ein_sched_pack_lower(ein_ctx *ctx, struct ein_schedule *s)
{
	isl_ctx *ictx = isl_set_get_ctx(ein_schedule_get_scop(s)->context);
	int i, n = ein_schedule_n_stmt(s);
	const char *msg;

	for (i = 0; i < n; ++i) {
		if (lower_stmt(s, i) == 0)
			continue;
		msg = isl_ctx_last_error_msg(ictx);
		ein_internal(ctx, "cannot make the local buffers of pack or "
			"accumulate: %s", msg ? msg : "out of memory");
		return -1;
	}
	return 0;
}
