/*
 * walk.h: the one walker over isl ASTs that every backend shares.
 *
 * A backend is an ein_emitter: callbacks for loops, conditions and
 * statements, and for the integer expressions of the AST, whose values it
 * represents as it likes (LLVM values, C text) behind "ein_value".  The
 * walker owns the traversal and the lowering of isl_ast_expr trees; the
 * emitter only builds.  A callback returns NULL or -1 on error, which stops
 * the walk.
 */
#ifndef EIN_CODEGEN_WALK_H
#define EIN_CODEGEN_WALK_H

#include <isl/ast.h>
#include <isl/id.h>
#include "codegen/ast_build.h"
#include "sched/schedule.h"

typedef void *ein_value;

/* The callbacks of a backend; "user" is passed to each.
 * expr_int: an integer constant; expr_id: a loop iterator or a size;
 * expr_op: an operation of isl's AST on already lowered arguments
 *	(and_then and or_else may evaluate both sides: isl's expressions
 *	have no side effects);
 * for_open: start a loop over "iter" from "init", with the attributes
 *	the schedule gives it ("attr", NULL if none); the walker then lowers
 *	the condition and the increment inside the loop's header and calls
 *	for_test with the condition; after the body, for_close gets the
 *	increment;
 * parallel_for: emit the whole loop "node", whose iterations may run in
 *	parallel, walking its body itself (NULL: the walker emits it as a
 *	sequential loop);
 * if_open, if_else, if_close: a condition with an optional else branch;
 * user: a statement instance;
 * vector_stmt: may statement "us", in the body of a vectorised loop over
 *	"iter" with vectors of "width" lanes, be emitted as explicit
 *	vectors, lane l of an iteration
 *	being the loop's iteration iter + l?  1 if so, 0 if not, -1 on
 *	error; NULL: never.  The CPU's vector loops (vector_loop.c,
 *	explicit_lanes) emit a loop whose statements all may so, and leave
 *	the others to LLVM's loop vectoriser;
 * stream_start: in a loop over "iter" whose vector stores of "width"
 *	lanes are non-temporal (ein_loop_attr.stream) and which starts at
 *	"init", the first iteration from "init" on (*start, init plus
 *	fewer than "width") at which the non-temporal store of statement
 *	"us" is aligned to a whole vector; 1 if so, 0 if "us" makes no
 *	such store or its vectors cannot be aligned, -1 on error; NULL:
 *	never.  The CPU's vector loops (vector_loop.c) run the iterations
 *	before it as scalars, so that the vectors after it are streamed;
 * scop: the statements' scop, with which the CPU's vector loops may run
 *	in whole vectors (vector_loop.c), NULL if they must not;
 * for_loop: emit the for node "node", whose attributes are "attr" (NULL
 *	if none), in a form of the backend's own, calling back
 *	ein_walk_loop or ein_walk_for (the CPU's: ein_vector_loop,
 *	vector_loop.h); NULL: the walker emits each loop as isl wrote it
 *	(ein_walk_for);
 * scalar_tails: the emitter has no masked vectors, and its loop
 *	iterators live in their loops only (C text's "for (int64_t c =
 *	...)"): a vector loop that may end in a partial vector runs explicit
 *	vectors and then a scalar loop for the rest (never LLVM's masked
 *	loops), which starts where the vectors stopped as computed from the
 *	loop's bounds, not from the vector loop's iterator (vector_loop.c);
 * lone_mark: emit the mark "node" of ours, with attributes "attr", of a
 *	loop that isl did not generate (it runs once, and isl substituted
 *	its value), walking the mark's child (ein_walk_mark_child); NULL:
 *	the walker walks through it (the OpenCL printer guards it, so that
 *	one work-item runs what a mapped loop's one iteration holds). */
struct ein_emitter {
	void *user;
	ein_value (*expr_int)(void *user, long v);
	ein_value (*expr_id)(void *user, __isl_keep isl_id *id);
	ein_value (*expr_op)(void *user, enum isl_ast_expr_op_type op,
		int n, ein_value *args);
	int (*for_open)(void *user, __isl_keep isl_id *iter, ein_value init,
		const struct ein_loop_attr *attr);
	int (*parallel_for)(void *user, __isl_keep isl_ast_node *node,
		const struct ein_loop_attr *attr);
	int (*for_test)(void *user, ein_value cond);
	int (*for_close)(void *user, __isl_keep isl_id *iter, ein_value inc);
	int (*if_open)(void *user, ein_value cond);
	int (*if_else)(void *user);
	int (*if_close)(void *user);
	int (*user_stmt)(void *user, const struct ein_user_stmt *us);
	int (*vector_stmt)(void *user, const struct ein_user_stmt *us,
		__isl_keep isl_id *iter, int width);
	int (*stream_start)(void *user, const struct ein_user_stmt *us,
		__isl_keep isl_id *iter, ein_value init, int width,
		ein_value *start);
	const struct ein_scop *scop;
	int (*for_loop)(const struct ein_emitter *e,
		__isl_keep isl_ast_node *node,
		const struct ein_loop_attr *attr);
	int (*lone_mark)(const struct ein_emitter *e,
		__isl_keep isl_ast_node *node,
		const struct ein_loop_attr *attr);
	int scalar_tails;
};

/* Emit the child of mark "node".  Returns -1 on error. */
int ein_walk_mark_child(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node);

/* Emit "node" and everything under it.  Returns -1 on error. */
int ein_walk_node(const struct ein_emitter *e, __isl_keep isl_ast_node *node);
/* Emit the for node "node" as isl wrote it: through parallel_for if
 * "attr" marks it parallel and the emitter has parallel_for, else as a
 * sequential loop.  Returns -1 on error. */
int ein_walk_for(const struct ein_emitter *e, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr);
/* Emit the for node "node" over "iter" as a sequential loop from "init",
 * with attributes "attr", and with the condition "cond" and increment
 * "inc" (both taken) in place of its own (for_open, for_test, the body,
 * for_close).  Returns -1 on error. */
int ein_walk_loop(const struct ein_emitter *e, __isl_keep isl_ast_node *node,
	__isl_keep isl_id *iter, ein_value init,
	const struct ein_loop_attr *attr, __isl_take isl_ast_expr *cond,
	__isl_take isl_ast_expr *inc);
/* Emit loop "node" as ein_walk_loop does, ending also where "iter"
 * reaches "below", a value computed before the loop.  Returns -1 on
 * error. */
int ein_walk_loop_below(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter, ein_value init,
	const struct ein_loop_attr *attr, __isl_take isl_ast_expr *cond,
	__isl_take isl_ast_expr *inc, ein_value below);
/* Lower "expr" through e's expression callbacks; NULL on error. */
ein_value ein_walk_expr(const struct ein_emitter *e,
	__isl_keep isl_ast_expr *expr);

#endif
