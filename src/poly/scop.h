/*
 * scop.h: the polyhedral model of one definition, in one struct (as PPCG's
 * ppcg_scop).
 *
 * Each source statement becomes one or two polyhedral statements: with a
 * "!" operator, an initialisation "S<k>_init" over the left-hand side's
 * indices that stores the operator's identity, then the update "S<k>" over
 * all its indices.
 */
#ifndef EIN_POLY_SCOP_H
#define EIN_POLY_SCOP_H

#include <isl/set.h>
#include <isl/union_set.h>
#include <isl/union_map.h>
#include <isl/aff.h>
#include <isl/schedule.h>
#include <isl/printer.h>
#include "ein.h"
#include "frontend/sema.h"

/* An access of a statement.
 * expr: its node in the source (NULL for the implicit read of the
 *	left-hand side by an update such as "+=");
 * tensor: the position of the tensor in the definition;
 * is_write: 1 for the left-hand side's write;
 * index: statement domain -> tensor element, one isl_pw_aff per
 *	dimension (tuple named after the tensor). */
struct ein_scop_access {
	const struct ein_ast_expr *expr;
	int tensor;
	int is_write;
	isl_multi_pw_aff *index;
};

/* A polyhedral statement.
 * name: the tuple name of its domain ("S0", "S0_init");
 * src: the source statement it comes from (position in func->stmt);
 * is_init: 1 for the initialisation of a "!" statement;
 * domain: its iteration domain;
 * n_access, access: the write first, then the reads. */
struct ein_scop_stmt {
	char *name;
	int src;
	int is_init;
	isl_set *domain;
	int n_access;
	struct ein_scop_access *access;
};

/* The polyhedral model of a definition.
 * func: the checked definition (not owned);
 * context: the constraints on the sizes;
 * n_stmt, stmt: the statements, in execution order of the source. */
struct ein_scop {
	const struct ein_func *func;
	isl_set *context;
	int n_stmt;
	struct ein_scop_stmt *stmt;
};

/* Build the model of "func" (which must outlive it).  Returns NULL on
 * error. */
struct ein_scop *ein_scop_from_func(ein_ctx *ctx, const struct ein_func *func);
void ein_scop_free(struct ein_scop *scop);

/* The statement whose domain tuple is "name", NULL if none. */
struct ein_scop_stmt *ein_scop_find_stmt(struct ein_scop *scop,
	const char *name);
/* The access of "stmt" made by source node "expr", NULL if none. */
const struct ein_scop_access *ein_scop_stmt_find_access(
	const struct ein_scop_stmt *stmt, const struct ein_ast_expr *expr);

/* Print domains and accesses (for "ein show"). */
__isl_give isl_printer *ein_scop_print(__isl_take isl_printer *p,
	const struct ein_scop *scop);

#endif
