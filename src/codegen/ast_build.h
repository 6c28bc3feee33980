/*
 * ast_build.h: the loop nest of a scop, built by isl's AST generator.
 */
#ifndef EIN_CODEGEN_AST_BUILD_H
#define EIN_CODEGEN_AST_BUILD_H

#include <isl/ast.h>
#include "ein.h"
#include "poly/scop.h"

/* What a backend needs at each statement instance in the AST, attached to
 * its user node as an annotation (an isl_id named "ein_stmt").
 * stmt: the polyhedral statement;
 * index: for each access of stmt, one isl_ast_expr per dimension of the
 *	tensor, in terms of the AST's loop iterators and the sizes;
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

#endif
