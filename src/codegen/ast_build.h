/*
 * ast_build.h: the loop nest of a scop, built by isl's AST generator.
 */
#ifndef EIN_CODEGEN_AST_BUILD_H
#define EIN_CODEGEN_AST_BUILD_H

#include <isl/ast.h>
#include <isl/printer.h>
#include "ein.h"
#include "poly/scop.h"

/* What a backend needs at each statement instance in the AST, attached to
 * its user node as an annotation (an isl_id named "ein_stmt").
 * stmt: the polyhedral statement;
 * index: for each access of stmt, one isl_ast_expr per dimension of the
 *	tensor it accesses (its buffer, if the schedule redirected it: see
 *	ein_scop_access_get_target), in terms of the AST's loop iterators and
 *	the sizes;
 * iter: for each index variable of stmt, its value as an isl_ast_expr;
 * at: the AST's loop iterators (named) -> stmt's index variables, on the
 *	iterations where the statement runs (see ein_user_stmt_can_pad).
 * The arrays have one more element, NULL. */
struct ein_user_stmt {
	const struct ein_scop_stmt *stmt;
	isl_ast_expr ***index;
	isl_ast_expr **iter;
	isl_pw_multi_aff *at;
};

/* Generate the AST of schedule "sched" of "scop".  Returns NULL on
 * error. */
__isl_give isl_ast_node *ein_ast_build(ein_ctx *ctx, struct ein_scop *scop,
	__isl_take isl_schedule *sched);

/* The statement of user node "node" (NULL if it has none); owned by the
 * node. */
const struct ein_user_stmt *ein_ast_node_get_user_stmt(
	__isl_keep isl_ast_node *node);

/* May the statement of "us" also run at the iterations up to width - 1
 * past its last one along loop iterator "iter", all else equal, so that a
 * vector loop over "iter" can run whole vectors instead of masked ones?
 * Only if every access stays within its tensor or buffer, only buffers
 * are written, and the elements written at those extra iterations are
 * out of the tensor the buffer holds: the copies back to the tensor never
 * see them and nothing the statement computes at its own iterations reads
 * them.  Returns 1 if so, 0 if not (or if that cannot be shown). */
int ein_user_stmt_can_pad(const struct ein_scop *scop,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int width);

/* How the statement of "us" moves along loop iterator "iter" in the
 * emitted code, for explicit vectors along it: for each access i,
 * stride[i] is 0 if it reaches the same element at every iteration of
 * the loop, 1 if the next element of the innermost dimension at the next
 * iteration (the other dimensions fixed), -1 otherwise or where that
 * cannot be shown (an index that is not affine); for each index variable
 * k of the statement, step[k] is its change per iteration, LONG_MIN if
 * not affine.  Returns 0, or -1 on error. */
int ein_user_stmt_strides(const struct ein_scop *scop,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int *stride,
	long *step);

/* The change of each index of access "i" of "us" in the emitted code
 * (the tensor's or buffer's dimensions) per iteration of the loop over
 * "iter", in coef[0 .. n - 1] (LONG_MIN where not a small integer).
 * Returns 0, or -1 where an index is not affine. */
int ein_user_stmt_access_steps(const struct ein_scop *scop,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int i,
	long *coef);

/* Do accesses "i" and "j" of "us" reach the same tensor or buffer at
 * the same indices in the emitted code but the last, where "j" is "i"
 * plus a constant (*delta) at every instance?  1 if so, else 0. */
int ein_user_stmt_access_delta(const struct ein_scop *scop,
	const struct ein_user_stmt *us, int i, int j, long *delta);

/* Is the first element that access "i" of "us" reaches in each vector of
 * "lanes" elements (a power of 2) of a vector loop over "iter" starting
 * at "init" (an expression of the enclosing iterators and the sizes) a
 * multiple of "lanes" elements from the start of its tensor or buffer,
 * for all sizes that scop's context allows?  Shown from the row-major
 * offset of its indices in the emitted code: each index with "iter" at
 * "init" (the vectors' iterations differ from it by multiples of
 * "lanes"), times the product of the extents after it, whose factors of
 * 2 the context proves, must be a multiple of "lanes" at every point,
 * which is shown from its coefficients.  1 if so, 0 if not or where that
 * cannot be shown (an index or the start that is not affine). */
int ein_user_stmt_access_aligned(const struct ein_scop *scop,
	const struct ein_user_stmt *us, int i, __isl_keep isl_id *iter,
	__isl_keep isl_ast_expr *init, int lanes);

/* An expression for extent "pa" (a function of the sizes) valid under
 * scop's context. */
__isl_give isl_ast_expr *ein_ast_build_extent(struct ein_scop *scop,
	__isl_keep isl_pw_aff *pa);

/* Print "tree" as C-like pseudo code (ein show --stage=ast): the local
 * buffers of the scop as comments, then the loops, with each copy
 * statement as the assignment it makes ("A_pack0[c3][c4] = A[..][..];")
 * and every other statement as isl prints it ("S0(c0, c1, c2);"). */
__isl_give isl_printer *ein_ast_print(__isl_take isl_printer *p,
	const struct ein_scop *scop, __isl_keep isl_ast_node *tree);

#endif
