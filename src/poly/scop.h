/*
 * scop.h: the polyhedral model of one definition, in one struct (as PPCG's
 * ppcg_scop).
 *
 * Each source statement becomes one or two polyhedral statements: with a
 * "!" operator, an initialisation "S<k>_init" over the left-hand side's
 * indices that stores the operator's identity, then the update "S<k>" over
 * all its indices.
 *
 * A schedule may extend the model for code generation (sched/pack.c): local
 * buffers, which are tensors numbered after the definition's, copy
 * statements that move a tile between a tensor and a buffer, and accesses
 * redirected to a buffer.  The dependences are those of the model before
 * any extension: the extensions never change what is computed.
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
 *	left-hand side by an update such as "+=", and for copies);
 * tensor: the position of the tensor in the definition (or, for a copy, a
 *	buffer's: see ein_scop_n_tensor);
 * is_write: 1 for the left-hand side's write;
 * index: statement domain -> tensor element, one isl_pw_aff per
 *	dimension (tuple named after the tensor);
 * guard: where the access is evaluated (under "c ? a : b", guard.h), NULL
 *	if everywhere in the domain; the index may be out of bounds outside;
 * local, local_index: the buffer the schedule redirected the access to
 *	and the index in it, -1 and NULL if none: code generation uses them
 *	instead of tensor and index. */
struct ein_scop_access {
	const struct ein_ast_expr *expr;
	int tensor;
	int is_write;
	isl_multi_pw_aff *index;
	isl_set *guard;
	int local;
	isl_multi_pw_aff *local_index;
};

/* What a statement does: a statement of the source, or a copy a schedule
 * added (sched/pack.c) that stores the element its read (access 1) loads
 * at its write (access 0): into a buffer before the statement it serves
 * (COPY_IN), or back from it after (COPY_OUT); or a prefetch of the
 * element its only access (a read) names, a hint that changes no value
 * (sched/prefetch.c), placed as a copy in is. */
enum ein_stmt_kind {
	EIN_STMT_COMPUTE,
	EIN_STMT_COPY_IN,
	EIN_STMT_COPY_OUT,
	EIN_STMT_PREFETCH
};

/* A polyhedral statement.
 * name: the tuple name of its domain ("S0", "S0_init", "A_pack0_in");
 * src: the source statement it comes from (position in func->stmt; for a
 *	copy, that of the statement it serves);
 * is_init: 1 for the initialisation of a "!" statement;
 * kind: a statement of the source or a copy;
 * domain: its iteration domain;
 * rhs: the expression an update or assignment evaluates: the source's
 *	right-hand side, or only the branch "e" of "S += c ? e : 0" when the
 *	domain was restricted to where the affine c holds (scop.c); NULL for
 *	initialisations and copies;
 * n_access, access: the write first, then the reads. */
struct ein_scop_stmt {
	char *name;
	int src;
	int is_init;
	enum ein_stmt_kind kind;
	isl_set *domain;
	const struct ein_ast_expr *rhs;
	int n_access;
	struct ein_scop_access *access;
};

/* A local buffer a schedule adds: a tile of tensor "of" in a contiguous
 * row-major array, in the order of of's dimensions.
 * name: "A_pack0", "C_acc0";
 * of: the tensor (position in the definition);
 * n_dim, extent: its extents, functions of the sizes; an extent is a
 *	constant when the tile is bounded by one (a tile size);
 * n_fixed: the number of elements when every extent is a constant, else
 *	0 (code generation may then keep the buffer in a stack frame);
 * storage: k > 0 if the buffer replaces temporary "of" altogether,
 *	holding the part of it that one iteration of the schedule's first
 *	k loops (levels 0 .. k - 1) uses (sched/contract.c), else 0.
 *	Nothing copies it: the kernel has its own, and so does each call of
 *	the body of a parallel loop among those k (its calls run whole
 *	iterations); the body of a parallel loop deeper inside shares its
 *	caller's. */
struct ein_scop_buffer {
	char *name;
	int of;
	int n_dim;
	isl_pw_aff **extent;
	long n_fixed;
	int storage;
};

/* The polyhedral model of a definition.
 * func: the checked definition (not owned);
 * context: the constraints on the sizes;
 * n_stmt, stmt: the statements, in execution order of the source, then
 *	the copies a schedule added;
 * n_source: the number of statements of the source (before any copy);
 * n_buffer, buffer: the local buffers a schedule added; buffer k is
 *	tensor func->n_tensor + k. */
struct ein_scop {
	const struct ein_func *func;
	isl_set *context;
	int n_stmt;
	struct ein_scop_stmt *stmt;
	int n_source;
	int n_buffer;
	struct ein_scop_buffer *buffer;
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

/* The number of tensors: the definition's, then the buffers. */
int ein_scop_n_tensor(const struct ein_scop *scop);
const char *ein_scop_tensor_name(const struct ein_scop *scop, int tensor);
enum ein_type ein_scop_tensor_type(const struct ein_scop *scop, int tensor);
int ein_scop_tensor_n_dim(const struct ein_scop *scop, int tensor);
/* The elements of "tensor" in its bounds, in set space "space" (taken)
 * of its dimensions; NULL if an extent is unknown. */
__isl_give isl_set *ein_scop_tensor_box(const struct ein_scop *scop,
	int tensor, __isl_take isl_space *space);
/* Extent "dim" of "tensor" as a function of the sizes. */
__isl_keep isl_pw_aff *ein_scop_tensor_extent(const struct ein_scop *scop,
	int tensor, int dim);
/* Does any access of a statement reach tensor "tensor" (rather than a
 * buffer it was redirected to)? */
int ein_scop_tensor_is_accessed(const struct ein_scop *scop, int tensor);
/* The buffer of tensor position "tensor", NULL if it is the definition's. */
const struct ein_scop_buffer *ein_scop_get_buffer(const struct ein_scop *scop,
	int tensor);

/* Add a buffer "name" for a tile of tensor "of" with extents extent[0 ..
 * n_dim - 1] (taken).  Returns its tensor position, -1 on error. */
int ein_scop_add_buffer(struct ein_scop *scop, const char *name, int of,
	int n_dim, __isl_take isl_pw_aff **extent);
/* Add a copy statement of kind "kind" for source statement "src", with
 * domain "domain" (whose tuple name is its name) and the index functions
 * of its write and its read (tensor positions "wt" and "rt").  Returns
 * the statement (valid until the next statement is added), NULL on error. */
struct ein_scop_stmt *ein_scop_add_copy(struct ein_scop *scop,
	enum ein_stmt_kind kind, int src, __isl_take isl_set *domain,
	int wt, __isl_take isl_multi_pw_aff *write, int rt,
	__isl_take isl_multi_pw_aff *read);
/* Add a prefetch statement for source statement "src", with domain
 * "domain" (whose tuple name is its name) and the index function of the
 * element of tensor "t" it prefetches.  Returns the statement (valid
 * until the next statement is added), NULL on error. */
struct ein_scop_stmt *ein_scop_add_prefetch(struct ein_scop *scop, int src,
	__isl_take isl_set *domain, int t, __isl_take isl_multi_pw_aff *index);
/* Redirect access "a" to buffer "local" at index "index" (taken). */
int ein_scop_access_redirect(struct ein_scop_access *a, int local,
	__isl_take isl_multi_pw_aff *index);
/* The tensor and index code generation uses for "a". */
int ein_scop_access_get_target(const struct ein_scop_access *a);
__isl_keep isl_multi_pw_aff *ein_scop_access_get_target_index(
	const struct ein_scop_access *a);
/* The accesses of "stmt" to tensor "tensor" (all, or only its reads if
 * "reads_only"), within their guards, as one relation from its domain to
 * the elements; NULL if there is none. */
__isl_give isl_map *ein_scop_stmt_tensor_accesses(
	const struct ein_scop_stmt *stmt, int tensor, int reads_only);
/* "a" as a relation from its statement's domain (within its guard) to the
 * elements it accesses. */
__isl_give isl_map *ein_scop_access_get_map(const struct ein_scop_stmt *stmt,
	const struct ein_scop_access *a);

/* Print domains and accesses (for "ein show"). */
__isl_give isl_printer *ein_scop_print(__isl_take isl_printer *p,
	const struct ein_scop *scop);

#endif
