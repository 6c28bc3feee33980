/*
 * pack.h: the local buffers that pack and accumulate ask for, made into
 * buffers and copy statements of the scop.
 */
#ifndef EIN_SCHED_PACK_H
#define EIN_SCHED_PACK_H

#include "ein.h"
#include "sched/schedule.h"

/* For every local buffer a loop of "s" asks for (struct ein_local), add
 * to s's scop a buffer and its copy statements, place the copies in the
 * loop, and redirect the statement's accesses to the buffer.  "s" must be
 * legal (sched/apply.c checks that nothing else in the loop writes a
 * packed tensor or touches an accumulated one).  Returns -1 (an internal
 * error) on failure. */
int ein_sched_pack_lower(ein_ctx *ctx, struct ein_schedule *s);

/* The initialisation of statement "stmt" if it may write the buffer of
 * "accumulate" of tensor "tensor" at loop "loop" of stmt directly, with no
 * copy in: it runs inside the loop, writes in each iteration exactly the
 * elements stmt accesses there, and no two iterations access the same
 * element.  -1 if not, -2 on error. */
int ein_sched_pack_init_in_buffer(struct ein_schedule *s, int stmt,
	int loop, int tensor);

/* Add to "scop" a buffer named "<X>_<kind><k>" (the least k not taken)
 * for the elements of tensor X that "fp", v -> X[e], maps each v to: the
 * bounding box of fp(v), in the order of X's dimensions, whose extent in
 * dimension d is the largest over v of (max fp_d(v) - min fp_d(v)) / s_d
 * + 1.  Sets *lb to v -> lb(v), the box's corner (min fp(v) per
 * dimension, 0 where fp(v) is empty), so that X[e] of iteration v is the
 * buffer's element (e - lb(v)) / s.  With "stride" NULL, s is 1; else the
 * box is compacted: s_d is the constant stride isl finds for fp_d (the
 * values of fp_d(v) lie on lb_d(v) + s_d Z: a strided read, I(2 * w)),
 * and *stride is set to s.  With "layout" (NULL or n_layout 0: X's
 * order), the buffer's dimensions are those of the layout's terms
 * (struct ein_local): extent e_d, ceil(e_d / N) or min(e_d, N).  Returns
 * the buffer's tensor position, -1 on error. */
int ein_sched_box_buffer(struct ein_scop *scop, int tensor, const char *kind,
	__isl_keep isl_map *fp, const struct ein_local *layout,
	__isl_give isl_multi_pw_aff **lb, __isl_give isl_multi_val **stride);

/* The elements of "tensor" that "stmt" accesses (within their guards)
 * per value v of its "prefix": prefix^-1 ; accesses, in the sizes'
 * context.  NULL on error. */
__isl_give isl_map *ein_sched_footprint(const struct ein_scop *scop,
	const struct ein_scop_stmt *stmt, __isl_keep isl_multi_pw_aff *prefix,
	int tensor);
/* The function on set space "space" (taken) that selects its dimensions
 * first .. first + n - 1, into a tuple named "name" (NULL: unnamed). */
__isl_give isl_multi_pw_aff *ein_sched_select_dims(
	__isl_take isl_space *space, int first, int n, const char *name);

#endif
