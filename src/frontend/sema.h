/*
 * sema.h: a checked definition, ein_func.
 *
 * Sema resolves every name of one ein_ast_def: size symbols, tensors
 * (inputs, outputs and temporaries), and each statement's index variables,
 * split into the left-hand side's indices and the reduction indices found
 * only on the right.  Range inference (range.c) then adds each statement's
 * iteration domain and the shapes of tensors declared without one.
 */
#ifndef EIN_FRONTEND_SEMA_H
#define EIN_FRONTEND_SEMA_H

#include <isl/set.h>
#include <isl/aff.h>
#include "ein.h"
#include "frontend/ast.h"

enum ein_role {
	EIN_ROLE_INPUT,
	EIN_ROLE_OUTPUT,
	EIN_ROLE_TEMP
};

/* A tensor of a definition.
 * name: its name (owned by the AST); type: its element type;
 * role: input, output or temporary; n_dim: its number of dimensions;
 * param: its declaration, NULL for a temporary;
 * declared: 1 if the declaration gives its shape;
 * in_place: 1 for an output that is also an input (declared among the
 *	inputs with its type and shape, and named alone among the outputs):
 *	its initial value is the caller's data, which the kernel reads;
 * shape: n_dim extents over the sizes (an isl_pw_aff each, over the
 *	definition's parameter space), filled in by sema for declared
 *	shapes and by range inference for the others;
 * loc: where it is declared (or first assigned). */
struct ein_tensor {
	const char *name;
	enum ein_type type;
	enum ein_role role;
	int n_dim;
	struct ein_ast_param *param;
	int declared;
	int in_place;
	isl_pw_aff **shape;
	struct ein_loc loc;
};

/* A statement of a definition.
 * ast: its syntax; n_index, index: its index variables (names owned by
 *	the AST), the left-hand side's first (n_lhs of them), then the
 *	reduction indices in order of first appearance;
 * index_loc: where each index is first seen;
 * domain: its iteration domain, a set over the indices (tuple named
 *	"S<k>"), filled in by range inference. */
struct ein_func_stmt {
	struct ein_ast_stmt *ast;
	int n_index;
	int n_lhs;
	const char **index;
	struct ein_loc *index_loc;
	isl_set *domain;
};

/* A checked definition.
 * def: its syntax (owned by the caller's ein_ast_file);
 * n_size, size: the size symbols, in order of first appearance in the
 *	inputs' then the outputs' shapes;
 * n_tensor, tensor: inputs, then outputs, then temporaries;
 * n_stmt, stmt: the statements, in source order;
 * context: the constraints on the sizes (each at least 1), a parameter
 *	set. */
struct ein_func {
	struct ein_ast_def *def;
	int n_size;
	const char **size;
	int n_tensor;
	struct ein_tensor *tensor;
	int n_stmt;
	struct ein_func_stmt *stmt;
	isl_set *context;
};

/* Check "def" and resolve its names.  Returns NULL after reporting every
 * error found.  "def" must outlive the result. */
struct ein_func *ein_sema_def(ein_ctx *ctx, struct ein_ast_def *def);
void ein_func_free(struct ein_func *func);

/* The parameter space of "func": one parameter per size, named after it. */
isl_space *ein_func_get_param_space(ein_ctx *ctx, const struct ein_func *func);
/* The position of tensor "name" in func, -1 if none. */
int ein_func_find_tensor(const struct ein_func *func, const char *name);
/* The position of size "name" in func, -1 if none. */
int ein_func_find_size(const struct ein_func *func, const char *name);

/* The extents of tensor "pos" of func at the size values "sizes" into
 * shape[0 .. n_dim-1].  Returns -1 if the sizes are outside the domain of
 * the tensor's shape. */
int ein_func_eval_shape(ein_ctx *ctx, const struct ein_func *func,
	const int64_t *sizes, int pos, int64_t *shape);

#endif
