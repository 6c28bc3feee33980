/*
 * vector_loop.c: the vector loops of the CPU and of OpenCL C
 * (vector_loop.h).
 */
#include <isl/ast.h>
#include <isl/val.h>
#include "codegen/vector_loop.h"

/* Lower "expr" (taken), as walkers of isl objects usually take them. */
static ein_value walk_taken(const struct ein_emitter *e,
	__isl_take isl_ast_expr *expr)
{
	ein_value v = expr ? ein_walk_expr(e, expr) : NULL;

	isl_ast_expr_free(expr);
	return v;
}

/* The integer value of "expr" (taken) in *v; 0 if it is not an integer. */
static int int_value(__isl_take isl_ast_expr *expr, long *v)
{
	isl_val *val = NULL;
	int ok;

	if (expr && isl_ast_expr_get_type(expr) == isl_ast_expr_int)
		val = isl_ast_expr_int_get_val(expr);
	ok = val && isl_val_is_int(val);
	if (ok)
		*v = isl_val_get_num_si(val);
	isl_val_free(val);
	isl_ast_expr_free(expr);
	return ok;
}

/* The number of iterations of loop "node", stepping by 1, if it is a
 * constant (its condition is then "iter <= N" or "iter < N" with integers
 * for N and its start); -1 if not. */
static long constant_trips(__isl_keep isl_ast_node *node)
{
	isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
	long lo, hi, step, n = -1;

	if (cond && isl_ast_expr_get_type(cond) == isl_ast_expr_op &&
	    int_value(isl_ast_node_for_get_init(node), &lo) &&
	    int_value(isl_ast_node_for_get_inc(node), &step) && step == 1 &&
	    int_value(isl_ast_expr_get_op_arg(cond, 1), &hi)) {
		enum isl_ast_expr_op_type op = isl_ast_expr_get_op_type(cond);

		if (op == isl_ast_expr_op_le)
			n = hi - lo + 1;
		else if (op == isl_ast_expr_op_lt)
			n = hi - lo;
	}
	isl_ast_expr_free(cond);
	return n < 0 ? -1 : n;
}

/* Does the loop "node", stepping by 1, run a constant number of
 * iterations that is a multiple of "width"? */
static int whole_vectors(__isl_keep isl_ast_node *node, int width)
{
	long n = constant_trips(node);

	return n >= 0 && n % width == 0;
}

/* What a test of the statements of a loop body (every_stmt) asks about:
 * the loop's iterator "iter" and vector width "width"; for stream_start,
 * the loop's start "init" and, once found, the first aligned iteration
 * "start". */
struct query {
	isl_id *iter;
	int width;
	ein_value init;
	ein_value start;
};

/* A test of a statement of a loop body (every_stmt): 1 if it passes, 0
 * if not, -1 on error. */
typedef int (*stmt_test)(const struct ein_emitter *e,
	const struct ein_user_stmt *us, struct query *q);

/* Does every statement of "node" pass "test", "node" holding nothing
 * else than statements, blocks and marks?  1 if so, 0 if not, -1 on
 * error. */
static int every_stmt(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, stmt_test test, struct query *q)
{
	const struct ein_user_stmt *us;
	isl_ast_node_list *list;
	isl_ast_node *child;
	int i, n, ok;

	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_user:
		us = ein_ast_node_get_user_stmt(node);
		return us ? test(e, us, q) : -1;
	case isl_ast_node_mark:
		child = isl_ast_node_mark_get_node(node);
		ok = every_stmt(e, child, test, q);
		isl_ast_node_free(child);
		return ok;
	case isl_ast_node_block:
		list = isl_ast_node_block_get_children(node);
		n = isl_ast_node_list_n_ast_node(list);
		for (i = 0, ok = n >= 0 ? 1 : -1; ok == 1 && i < n; ++i) {
			child = isl_ast_node_list_get_ast_node(list, i);
			ok = every_stmt(e, child, test, q);
			isl_ast_node_free(child);
		}
		isl_ast_node_list_free(list);
		return ok;
	default:
		return 0;
	}
}

/* May statement "us", in the body of a vector loop over "iter", run at up
 * to width - 1 iterations past the loop's last one? */
static int stmt_can_pad(const struct ein_emitter *e,
	const struct ein_user_stmt *us, struct query *q)
{
	return ein_user_stmt_can_pad(e->scop, us, q->iter, q->width);
}

/* May the emitter compute statement "us" as explicit vectors along the
 * loop over "iter"? */
static int stmt_vectorizes(const struct ein_emitter *e,
	const struct ein_user_stmt *us, struct query *q)
{
	return e->vector_stmt(e->user, us, q->iter, q->width);
}

/* Does statement "us" make no non-temporal store in a loop from q->init
 * (1)?  If it makes one, q->start is the first iteration at which it is
 * aligned (0). */
static int stmt_not_streamed(const struct ein_emitter *e,
	const struct ein_user_stmt *us, struct query *q)
{
	int found = e->stream_start(e->user, us, q->iter, q->init, q->width,
		&q->start);

	return found < 0 ? -1 : !found;
}

/* The bound of loop "node" on "iter": the right side of its condition
 * "iter <= bound" or "iter < bound" (*op says which); NULL if its
 * condition is not of that form. */
static __isl_give isl_ast_expr *loop_bound(__isl_keep isl_ast_node *node,
	__isl_keep isl_id *iter, enum isl_ast_expr_op_type *op)
{
	isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
	isl_ast_expr *lhs, *bound = NULL;
	isl_id *id = NULL;

	*op = isl_ast_expr_op_error;
	if (cond && isl_ast_expr_get_type(cond) == isl_ast_expr_op) {
		*op = isl_ast_expr_get_op_type(cond);
		lhs = isl_ast_expr_get_op_arg(cond, 0);
		if (isl_ast_expr_get_type(lhs) == isl_ast_expr_id)
			id = isl_ast_expr_get_id(lhs);
		isl_ast_expr_free(lhs);
	}
	if (id == iter && (*op == isl_ast_expr_op_le ||
			*op == isl_ast_expr_op_lt))
		bound = isl_ast_expr_get_op_arg(cond, 1);
	isl_id_free(id);
	isl_ast_expr_free(cond);
	return bound;
}

/* The condition of loop "node" over "iter" run in whole vectors of
 * "width": iter < init + ((end - init + width - 1) / width) * width, with
 * "end" its bound (past the last iteration) and a division that truncates,
 * so that a loop that runs no iteration still runs none.  NULL if its
 * condition is not a bound on "iter". */
static __isl_give isl_ast_expr *padded_cond(__isl_keep isl_ast_node *node,
	__isl_keep isl_id *iter, int width)
{
	enum isl_ast_expr_op_type op;
	isl_ast_expr *end = loop_bound(node, iter, &op), *count, *w;
	isl_val *one;

	if (!end)
		return NULL;
	one = isl_val_one(isl_ast_node_get_ctx(node));
	if (op == isl_ast_expr_op_le)
		end = isl_ast_expr_add(end, isl_ast_expr_from_val(
			isl_val_copy(one)));
	w = isl_ast_expr_from_val(isl_val_int_from_si(
		isl_ast_node_get_ctx(node), width));
	count = isl_ast_expr_sub(end, isl_ast_node_for_get_init(node));
	count = isl_ast_expr_add(count, isl_ast_expr_sub(
		isl_ast_expr_copy(w), isl_ast_expr_from_val(one)));
	count = isl_ast_expr_mul(isl_ast_expr_pdiv_q(count,
		isl_ast_expr_copy(w)), w);
	return isl_ast_expr_lt(isl_ast_expr_from_id(isl_id_copy(iter)),
		isl_ast_expr_add(isl_ast_node_for_get_init(node), count));
}

/* The condition that the vector of "width" iterations of loop "node"
 * starting at "iter" lies within the loop: its condition on iter +
 * width - 1.  NULL if its condition is not a bound on "iter". */
static __isl_give isl_ast_expr *whole_vector_cond(
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter, int width)
{
	enum isl_ast_expr_op_type op;
	isl_ast_expr *bound = loop_bound(node, iter, &op), *last;

	if (!bound)
		return NULL;
	last = isl_ast_expr_add(isl_ast_expr_from_id(isl_id_copy(iter)),
		isl_ast_expr_from_val(isl_val_int_from_si(
			isl_ast_node_get_ctx(node), width - 1)));
	return op == isl_ast_expr_op_le ? isl_ast_expr_le(last, bound) :
		isl_ast_expr_lt(last, bound);
}

/* A vector loop whose number of iterations is not known to be a multiple
 * of its width runs masked vectors (partial), unless every statement in
 * it may also run at the iterations that complete its last vector: then
 * it runs them (*cond, its new condition), and the vectors are whole, as
 * BLIS computes a whole register tile at the edges.  The masked form
 * keeps a tile's accumulators in memory (LLVM does not promote masked
 * loads and stores to registers): the edge tiles of a 1x1 convolution
 * with a 16-wide vector over 56 columns took 45% of its time. */
static const struct ein_loop_attr *vector_form(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter,
	const struct ein_loop_attr *attr, struct ein_loop_attr *copy,
	__isl_give isl_ast_expr **cond)
{
	struct query q = { iter, attr ? attr->vector : 0, NULL, NULL };
	isl_ast_node *body;
	int pad;

	*cond = NULL;
	if (!attr || attr->vector <= 1 || !attr->one_step ||
	    whole_vectors(node, attr->vector))
		return attr;
	*copy = *attr;
	body = isl_ast_node_for_get_body(node);
	pad = !attr->parallel && e->scop &&
		every_stmt(e, body, &stmt_can_pad, &q) == 1;
	isl_ast_node_free(body);
	if (pad)
		*cond = padded_cond(node, iter, attr->vector);
	copy->partial = !*cond;
	return copy;
}

/* The lanes in which the emitter computes the body of vector loop "node"
 * over "iter" as explicit vectors (0: it leaves the loop to LLVM's loop
 * vectoriser, -1 on error): only a loop stepping by one whose tile is not
 * partial (LLVM masks those), whose condition bounds the iterator
 * (whole_vector_cond) and whose body the emitter accepts, with a width
 * that is a power of two (LLVM's code for <48 x float> accumulators was
 * 8 times slower than its loop vectoriser's: a 8 x 48 GEMM tile). */
static int explicit_lanes(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter,
	const struct ein_loop_attr *attr)
{
	struct query q = { iter, attr ? attr->vector : 0, NULL, NULL };
	enum isl_ast_expr_op_type op;
	isl_ast_expr *bound;
	isl_ast_node *body;
	long step;
	int ok;

	if (!attr || attr->vector <= 1 || (attr->partial && !e->scalar_tails) ||
	    attr->parallel ||
	    (attr->vector & (attr->vector - 1)) || !e->vector_stmt ||
	    !int_value(isl_ast_node_for_get_inc(node), &step) || step != 1)
		return 0;
	bound = loop_bound(node, iter, &op);
	isl_ast_expr_free(bound);
	if (!bound)
		return 0;
	body = isl_ast_node_for_get_body(node);
	ok = every_stmt(e, body, &stmt_vectorizes, &q);
	isl_ast_node_free(body);
	return ok < 0 ? -1 : ok ? attr->vector : 0;
}

/* A streamed loop runs at least this many vectors before it peels
 * iterations to align its stores (explicit_for): a loop of a few vectors
 * would run up to twice a vector's width of them as scalars to stream
 * one or two vectors. */
#define PEEL_MIN_VECTORS 4

/* Should vector loop "node", with attributes "attr" (the walker's copy),
 * start its vectors where its non-temporal stores are aligned?  Unless
 * its number of iterations is known to be below PEEL_MIN_VECTORS vectors
 * (each vector then checks its own address, llvm_mem.c). */
static int may_peel(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, const struct ein_loop_attr *attr)
{
	long n;

	if (!attr->stream || !e->stream_start)
		return 0;
	n = constant_trips(node);
	return n < 0 || n >= PEEL_MIN_VECTORS * attr->lanes;
}

/* The first iteration from "init" at which the non-temporal stores of
 * the first statement of vector loop "node" over "iter" that makes some
 * are aligned to "width" lanes (*start), NULL in *start if no statement
 * makes one.  Returns -1 on error. */
static int stream_start(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter,
	ein_value init, int width, ein_value *start)
{
	struct query q = { iter, width, init, NULL };
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	int ok = body ? every_stmt(e, body, &stmt_not_streamed, &q) : -1;

	isl_ast_node_free(body);
	*start = ok == 0 ? q.start : NULL;
	return ok < 0 ? -1 : 0;
}

/* Where the scalar loop after the vectors of "width" of loop "node" over
 * "iter" starts: init + ((end - init) / width) * width, "end" its bound
 * (past the last iteration), with a division that truncates, so that
 * where the loop runs no iteration the scalar loop runs none either.
 * The vector loop's iterator itself where the emitter's iterators
 * outlive their loops (LLVM's), as it does not know the bound's form;
 * only those emitters peel a streamed loop (stream_start), whose vectors
 * then start elsewhere than at init.
 * NULL on error. */
static ein_value tail_start(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter, int width)
{
	enum isl_ast_expr_op_type op;
	isl_ast_expr *end, *w, *count;
	isl_ctx *ctx = isl_ast_node_get_ctx(node);

	if (!e->scalar_tails)
		return e->expr_id(e->user, iter);
	end = loop_bound(node, iter, &op);
	if (!end)
		return NULL;
	if (op == isl_ast_expr_op_le)
		end = isl_ast_expr_add(end, isl_ast_expr_from_val(
			isl_val_one(ctx)));
	w = isl_ast_expr_from_val(isl_val_int_from_si(ctx, width));
	count = isl_ast_expr_sub(end, isl_ast_node_for_get_init(node));
	count = isl_ast_expr_mul(isl_ast_expr_pdiv_q(count,
		isl_ast_expr_copy(w)), w);
	return walk_taken(e, isl_ast_expr_add(isl_ast_node_for_get_init(node),
		count));
}

/* Emit vector loop "node" over "iter" as explicit vectors of attr->lanes
 * (attr is the walker's copy).  Its iterations run in whole vectors when
 * their number is a known multiple of the width, or to the end of the
 * last vector when the statements may run past the loop ("padded": that
 * condition, taken); else the vectors stop before the last iteration
 * they would pass, and a scalar loop (never vectorised: fewer than
 * lanes iterations) runs the rest from where they stopped.
 *
 * A loop whose stores are non-temporal (stream) first runs as scalars
 * the iterations before the first one at which its (first) streamed
 * store is aligned to a whole vector, found at run time (stream_start),
 * where there are enough of them (may_peel): a movntps needs an aligned
 * address, and a row that starts off a vector's boundary (numpy's
 * arrays are 16-byte aligned, a row of 1000 floats starts at any
 * multiple of 32 bytes) would otherwise store every vector plainly.
 * Its vectors then run from there, and the scalar loop runs the rest. */
static int explicit_for(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter,
	const struct ein_loop_attr *attr, __isl_take isl_ast_expr *padded)
{
	isl_ctx *ctx = isl_ast_node_get_ctx(node);
	ein_value init = walk_taken(e, isl_ast_node_for_get_init(node));
	ein_value start = NULL;
	struct ein_loop_attr rest = *attr;
	isl_ast_expr *cond;
	int tail;

	if (!init || (!padded && may_peel(e, node, attr) &&
	    stream_start(e, node, iter, init, attr->lanes, &start) < 0)) {
		isl_ast_expr_free(padded);
		return -1;
	}
	rest.vector = rest.lanes = rest.unroll = rest.one_step = 0;
	rest.scalar = 1;
	if (start) {
		if (ein_walk_loop_below(e, node, iter, init, &rest,
		    isl_ast_node_for_get_cond(node),
		    isl_ast_node_for_get_inc(node), start) < 0)
			return -1;
		init = e->expr_id(e->user, iter);
	}
	tail = !padded && (start || !whole_vectors(node, attr->lanes));
	cond = padded ? padded : tail ?
		whole_vector_cond(node, iter, attr->lanes) :
		isl_ast_node_for_get_cond(node);
	if (ein_walk_loop(e, node, iter, init, attr, cond,
	    isl_ast_expr_from_val(isl_val_int_from_si(ctx, attr->lanes))) < 0)
		return -1;
	if (!tail)
		return 0;
	return ein_walk_loop(e, node, iter,
		tail_start(e, node, iter, attr->lanes), &rest,
		isl_ast_node_for_get_cond(node),
		isl_ast_node_for_get_inc(node));
}

int ein_vector_loop(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, const struct ein_loop_attr *attr)
{
	isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
	isl_id *iter = isl_ast_expr_get_id(it);
	struct ein_loop_attr copy;
	isl_ast_expr *padded = NULL;
	int ok, lanes;

	isl_ast_expr_free(it);
	attr = vector_form(e, node, iter, attr, &copy, &padded);
	if (attr && attr->parallel && e->parallel_for) {
		isl_ast_expr_free(padded);
		isl_id_free(iter);
		return e->parallel_for(e->user, node, attr);
	}
	lanes = iter ? explicit_lanes(e, node, iter, attr) : -1;
	if (lanes > 0) {
		if (attr != &copy)
			copy = *attr;
		copy.lanes = lanes;
		ok = explicit_for(e, node, iter, &copy, padded);
	} else if (lanes == 0) {
		ok = ein_walk_loop(e, node, iter,
			walk_taken(e, isl_ast_node_for_get_init(node)), attr,
			padded ? padded : isl_ast_node_for_get_cond(node),
			isl_ast_node_for_get_inc(node));
	} else {
		isl_ast_expr_free(padded);
		ok = -1;
	}
	isl_id_free(iter);
	return ok;
}
