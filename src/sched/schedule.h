/*
 * schedule.h: the schedule of a definition as named loop nests, and the isl
 * schedule tree they denote.
 *
 * Each polyhedral statement has a list of loops, outermost first.  A loop
 * has a name a schedule file uses ("i", "i.o", "j.i") and a value: a
 * quasi-affine function of the statement's indices (i, floor(i/64),
 * i mod 64).  Directives rewrite these lists (split, tile, reorder), mark
 * loops (parallel, vectorize, unroll) and place statements inside others'
 * loops (fuse, compute_at).
 *
 * The lists denote a "2d+1" schedule: statement s runs at
 *
 *	[p0, l1, p1, l2, p2, ..., ln, pn]
 *
 * where l1..ln are its loops' values and the p are constant positions.
 * A statement's own positions are its index in the scop, so statements
 * that share a prefix run in source order at the first level where they
 * differ.  A statement placed in another's loops takes the other's
 * positions (and, for compute_at, its loop values, as functions of its
 * own instances) at the shared levels.  The schedule tree is built from
 * these vectors: a sequence node where statements sharing a prefix
 * diverge, a one-member band for each shared loop, and a mark node above
 * a band whose loop carries attributes (parallel, vector width, unroll)
 * for the code generators.
 *
 * A loop may also ask for local buffers in its iterations (pack,
 * accumulate: struct ein_local).  sched/pack.c turns each into a buffer
 * and copy statements of the scop, which it adds here as statements
 * placed in the loop: a copy's first dimensions are the values of the
 * loops up to that loop, and it runs at the next level just before (copy
 * in) or just after (copy out) the statements there.  To leave room for
 * them, a statement's own position is spaced out (own_pos in schedule.c)
 * once there are copies; without copies it is its index.
 */
#ifndef EIN_SCHED_SCHEDULE_H
#define EIN_SCHED_SCHEDULE_H

#include <isl/aff.h>
#include <isl/union_map.h>
#include <isl/schedule.h>
#include <isl/id.h>
#include <isl/printer.h>
#include "ein.h"
#include "diag.h"
#include "poly/scop.h"

/* What a schedule asks of one loop, for the code generators; carried by
 * the mark node (whose name starts with EIN_LOOP_MARK) right below the
 * loop's band, so that in the AST it is the body of the loop it is for.
 * parallel: run the iterations across threads;
 * vector: a vector width (0: none);
 * one_step: with vector, whether the loop runs at most "vector"
 *	iterations whatever the outer loops (the inner loop of a split by
 *	the width): a single vector step;
 * partial: never in a mark; set by the CPU's vector loops
 *	(codegen/vector_loop.c) on their copy of a one_step loop's attributes when
 *	the loop's trip count is not a known multiple of "vector" (a
 *	partial tile that the AST generator isolated): vectorised with
 *	masks (LLVM's tail folding), where a loop shorter than the width
 *	would otherwise run as scalar code;
 * lanes: never in a mark; set by the walk on its copy of the attributes
 *	when the emitter computes the loop's body in explicit vectors of
 *	that many lanes (walk.h, vector_stmt): the loop steps by "lanes",
 *	and LLVM's loop vectoriser is told to leave it alone;
 * stream: with vector, the loop's vector stores to the tensors of the
 *	definition are non-temporal (they bypass the caches) where the
 *	store is aligned to its size; only in explicit vectors;
 * scalar: never vectorise the loop (llvm.loop.vectorize.enable false):
 *	the loops of a copy into a buffer whose layout moves the tensor's
 *	innermost dimension, where LLVM's vectoriser would scatter the
 *	stores (and gather the loads) of a transposition (sched/pack.c);
 * copy: the loop is a copy's outermost, run in parallel
 *	(ein_schedule_parallel_copy): its threads fill or empty the buffer
 *	of the enclosing loop's iteration, each its own part;
 * unroll: an unroll factor (0: none, -1: full);
 * level: in a mark, the level of the loop in the 2d+1 vectors (0: the
 *	outermost loop), which the storage of contracted temporaries is
 *	compared with (scop.h);
 * gpu_block, gpu_thread: 0, or 1 + the grid dimension the loop is mapped
 *	to, across work-groups (gpu_block) or the work-items of a group
 *	(gpu_thread) (sched/gpu_map.h);
 * gpu_size: with gpu_thread, the most iterations the loop runs, the
 *	work-group's extent in that dimension;
 * gpu_copy: 0, or 1 + the work-group dimension across whose work-items
 *	a loop of the copy into a __local buffer runs (OpenCL's "local A
 *	at L", sched/pack.c): the work-items of a group fill the buffer
 *	together, each its share, between barriers (opencl/emit.c). */
struct ein_loop_attr {
	int parallel;
	int vector;
	int one_step;
	int partial;
	int lanes;
	int stream;
	int scalar;
	int copy;
	int unroll;
	int level;
	int gpu_block;
	int gpu_thread;
	int gpu_size;
	int gpu_copy;
};

/* The work-group dimensions the loops of a copy into __local memory run
 * across (gpu_copy). */
#define EIN_GPU_COPY_DIM 3

#define EIN_LOOP_MARK "ein:"

/* A local buffer a loop asks for (a directive of sched/apply.c), or a
 * prefetch it runs.
 * kind: a copy of a tensor the statement reads (pack), or of the part of
 *	its output it updates, copied back after the loop's iteration
 *	(accumulate), or no copy: the cache lines of the tensor that the
 *	statement accesses "ahead" iterations of loop "from" later are
 *	prefetched in each iteration of the loop (prefetch; "from" names
 *	the loop, the loop itself or one around it; "loc" is the
 *	directive's, for errors while the schedule file is alive);
 * tensor: the tensor (position in the definition);
 * n_layout, layout, block: 0 (the tensor's order), or the number of
 *	dimensions of the buffer and, for each from the outermost, the
 *	tensor's dimension stored there (layout) and how (block): 0, its
 *	offset in the tile; N > 0, that offset divided by N, rounded down
 *	(the block); -N, the offset modulo N (the place in the block);
 * gpu: the OpenCL target's (apply.c; "loc" is then the directive's too):
 *	a pack is "local", a buffer in the work-group's __local memory that
 *	its work-items fill together; an accumulate is in each work-item's
 *	private memory (registers). */
enum ein_local_kind {
	EIN_LOCAL_PACK,
	EIN_LOCAL_ACCUMULATE,
	EIN_LOCAL_PREFETCH
};

#define EIN_LOCAL_MAX_DIM 16
#define EIN_LOCAL_MAX_NAME 64

struct ein_local {
	enum ein_local_kind kind;
	int tensor;
	int n_layout;
	int layout[EIN_LOCAL_MAX_DIM];
	int block[EIN_LOCAL_MAX_DIM];
	char from[EIN_LOCAL_MAX_NAME];
	int ahead;
	struct ein_loc loc;
	int gpu;
};

/* The loop attributes of a mark node's id, NULL if it is not ours. */
const struct ein_loop_attr *ein_loop_attr_from_id(__isl_keep isl_id *id);

struct ein_schedule;

/* The schedule that runs the statements of "scop" as the source says:
 * in order, each over its indices in order (left-hand side, then
 * reductions).  This is the meaning the dependences are computed on. */
struct ein_schedule *ein_schedule_source(struct ein_scop *scop);
/* The default schedule: the source order, except that an update's index
 * that is the contiguous index of the most accesses moves innermost when
 * that keeps each output element's updates in order (see schedule.c). */
struct ein_schedule *ein_schedule_default(struct ein_scop *scop);
struct ein_schedule *ein_schedule_copy(const struct ein_schedule *s);
void ein_schedule_free(struct ein_schedule *s);

/* The scop the schedule runs. */
struct ein_scop *ein_schedule_get_scop(const struct ein_schedule *s);
/* The statements and their loops, for directives and messages. */
int ein_schedule_n_stmt(const struct ein_schedule *s);
struct ein_scop_stmt *ein_schedule_get_stmt(const struct ein_schedule *s,
	int stmt);
int ein_schedule_n_loop(const struct ein_schedule *s, int stmt);
const char *ein_schedule_loop_name(const struct ein_schedule *s, int stmt,
	int loop);
/* The position of loop "name" of statement "stmt", -1 if none. */
int ein_schedule_find_loop(const struct ein_schedule *s, int stmt,
	const char *name);
/* The names of the loops of "stmt" as "i, j, k" (caller frees). */
char *ein_schedule_loop_names(const struct ein_schedule *s, int stmt);

/* Transformations of one statement's loops; each returns -1 (and
 * changes nothing) if an argument is out of range. */
int ein_schedule_split(struct ein_schedule *s, int stmt, int loop,
	long factor);
/* Move the loops at positions loop[0..n-1] so that they occupy the same
 * set of positions in the order given. */
int ein_schedule_reorder(struct ein_schedule *s, int stmt, int n,
	const int *loop);
struct ein_loop_attr *ein_schedule_loop_attr(struct ein_schedule *s,
	int stmt, int loop);
/* Place statement "stmt" in the first "level" loops of statement
 * "target".  With "compute_at", stmt's instances run inside target's loop
 * iteration that first reads what they write, before target; otherwise
 * (fuse) stmt's first "level" loops run as target's.  Returns -1 if the
 * placement is impossible, with a reason in *why (static string). */
int ein_schedule_place(struct ein_schedule *s, int stmt, int target,
	int level, int compute_at, const char **why);
/* The statement "stmt" is placed in, or -1. */
int ein_schedule_get_parent(const struct ein_schedule *s, int stmt);
/* The initialisation of statement "stmt" (a "!" update), -1 if none. */
int ein_schedule_get_init(const struct ein_schedule *s, int stmt);
/* The number of levels "stmt" shares with the statement it is placed in
 * (0 if none). */
int ein_schedule_get_level(const struct ein_schedule *s, int stmt);
/* Mark statement "stmt" (on = 1; 0 clears it), before it is computed at
 * another, as recomputed in each iteration that needs it
 * (sched/recompute.c).  Until it is lowered it is placed as a computation
 * that stores (each instance runs once, where it is first needed), which
 * is what the legality checks see; instances that are never read have no
 * place (they will not run). */
void ein_schedule_set_recompute(struct ein_schedule *s, int stmt, int on);
/* 0, or 1 (recompute asked for) or 2 (lowered). */
int ein_schedule_is_recompute(const struct ein_schedule *s, int stmt);
/* Lower the recomputation of "stmt", whose domain has become [v, t] (v
 * the values of its parent's first levels in the iteration that
 * recomputes instance t): pull its loop values back through "proj",
 * [v, t] -> t, and take v as its values at the shared levels. */
int ein_schedule_lower_recompute(struct ein_schedule *s, int stmt,
	__isl_keep isl_multi_aff *proj);

/* The largest number of iterations loop "loop" of "stmt" runs for fixed
 * values of its outer loops, for any sizes, in *bound.  Returns -1 if it
 * is not bounded by a constant. */
int ein_schedule_loop_trip_bound(const struct ein_schedule *s, int stmt,
	int loop, long *bound);
/* Ask for local buffer "local" in loop "loop" of "stmt". */
int ein_schedule_add_local(struct ein_schedule *s, int stmt, int loop,
	const struct ein_local *local);
int ein_schedule_n_local(const struct ein_schedule *s, int stmt, int loop);
const struct ein_local *ein_schedule_get_local(const struct ein_schedule *s,
	int stmt, int loop, int k);
/* The number of levels of stmt's vector up to and including its loop
 * "loop". */
int ein_schedule_loop_level(const struct ein_schedule *s, int stmt,
	int loop);
/* The values of the first "level" levels of stmt's vector as a function
 * on its domain (the loops of the statements it is placed in included);
 * NULL on error. */
__isl_give isl_multi_pw_aff *ein_schedule_get_prefix(
	const struct ein_schedule *s, int stmt, int level);
/* Add the last statement of the scop, a copy, placed in the first "level"
 * levels of statement "parent", with one loop per remaining dimension of
 * its domain, named "NAME.0", "NAME.1"... */
int ein_schedule_add_copy(struct ein_schedule *s, int parent, int level,
	const char *name);
/* Reorder the loops of copy "stmt" (as ein_schedule_add_copy made them,
 * one per dimension of the tensor): its k-th loop becomes the one over
 * dimension order[k]. */
int ein_schedule_order_copy(struct ein_schedule *s, int stmt,
	const int *order);
/* Run the outermost loop of copy "stmt" in parallel if the statement it
 * serves has a parallel loop only inside the copy's level (and is placed
 * in no other statement): the copy then runs between two parallel runs
 * of that loop, where it would keep all threads but one waiting.  Its
 * iterations copy distinct elements, so they may run in any order. */
void ein_schedule_parallel_copy(struct ein_schedule *s, int stmt);

/* The flat schedule: every statement instance to its 2d+1 vector, padded
 * with zeros to a common length. */
__isl_give isl_union_map *ein_schedule_get_map(const struct ein_schedule *s);
/* The flat dimension of loop "loop" of "stmt" in that map, taking
 * placement into account (loops shared with a target have the target's
 * dimension). */
int ein_schedule_loop_dim(const struct ein_schedule *s, int stmt, int loop);
/* Set member[j] (for each statement j) to 1 if j runs in loop "loop" of
 * "stmt" (is fused with it there), 0 if not.  Returns -1 on error. */
int ein_schedule_loop_members(const struct ein_schedule *s, int stmt,
	int loop, int *member);
/* The schedule tree with marks. */
__isl_give isl_schedule *ein_schedule_get_tree(const struct ein_schedule *s);

/* Print each statement's loop nest in a readable form, then the tree. */
__isl_give isl_printer *ein_schedule_print(__isl_take isl_printer *p,
	const struct ein_schedule *s);

#endif
