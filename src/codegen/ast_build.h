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
 * iter: for each index variable of stmt, its value as an isl_ast_expr.
 * The arrays have one more element, NULL. */
struct ein_user_stmt {
	const struct ein_scop_stmt *stmt;
	isl_ast_expr ***index;
	isl_ast_expr **iter;
};

/* Generate the AST of schedule "sched" of "scop".  Returns NULL on
 * error. */
__isl_give isl_ast_node *ein_ast_build(ein_ctx *ctx, struct ein_scop *scop,
	__isl_take isl_schedule *sched);

/* The statement of user node "node" (NULL if it has none); owned by the
 * node. */
const struct ein_user_stmt *ein_ast_node_get_user_stmt(
	__isl_keep isl_ast_node *node);

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
