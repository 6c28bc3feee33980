/*
 * emit.h: OpenCL C for the isl AST of a scop whose loops sched/gpu_map.c
 * mapped to a device's grid, and the plan the host follows to run it.
 *
 * The OpenCL layer over the shared C printer (codegen/emit_c.h): each
 * child of the AST's outermost sequence becomes one kernel, NAME__k<i>,
 * taking every tensor the scop accesses (__global; temporaries are
 * device buffers of the host's) and every size (long).  A mapped loop
 * runs from its start plus the work-group's (get_group_id) or work-item's
 * (get_local_id) index, by its step times their number, so that every
 * iteration runs exactly once for any grid; the host sizes the grid to
 * the loops' trip counts where it can compute them from the sizes.  A
 * kernel whose statements are not all inside its mapped loops (a loop
 * that runs once, where isl writes no loop) runs in one work-item: never
 * a race, only slower.
 */
#ifndef EIN_OPENCL_EMIT_H
#define EIN_OPENCL_EMIT_H

#include <stdint.h>
#include <isl/ast.h>
#include "ein.h"
#include "poly/scop.h"
#include "sched/gpu_map.h"

/* How the host launches one kernel.
 * name: the kernel's name;
 * n_block, init, cond, inc: the work-group dimensions, and for each the
 *	mapped loop's start, condition and step (isl's; NULL if none, one
 *	work-group);
 * n_thread, local: the work-item dimensions and the group's extent in
 *	each. */
struct ein_ocl_launch {
	char *name;
	int n_block;
	isl_ast_expr *init[EIN_GPU_MAX_DIM];
	isl_ast_expr *cond[EIN_GPU_MAX_DIM];
	isl_ast_expr *inc[EIN_GPU_MAX_DIM];
	int n_thread;
	long local[EIN_GPU_MAX_DIM];
};

/* What the host needs to run a definition on a device.
 * source: the OpenCL C text of every kernel;
 * n_kernel, kernel: the kernels, in the order they run;
 * n_arg, arg: the tensors each kernel takes (positions in the scop),
 *	then every size of the definition;
 * n_dim, extent: per scop tensor, for temporaries the host allocates,
 *	the number of dimensions and each one's extent (0 and NULL for
 *	the definition's inputs and outputs). */
struct ein_ocl_plan {
	char *source;
	int n_kernel;
	struct ein_ocl_launch *kernel;
	int n_arg;
	int *arg;
	int *n_dim;
	isl_ast_expr ***extent;
};

/* The plan of definition "name" whose scop is "scop" and AST "tree";
 * NULL after reporting an error on ctx. */
struct ein_ocl_plan *ein_ocl_plan_emit(ein_ctx *ctx, struct ein_scop *scop,
	__isl_keep isl_ast_node *tree, const char *name);
void ein_ocl_plan_free(struct ein_ocl_plan *plan);

/* The value of the integer expression "expr" of isl's AST for the sizes
 * "sizes" of "scop" (named as the definition's) in *v.  Returns -1 if
 * it names anything else (a loop iterator), or divides by zero. */
int ein_ocl_eval(const struct ein_scop *scop, __isl_keep isl_ast_expr *expr,
	const int64_t *sizes, int64_t *v);

#endif
