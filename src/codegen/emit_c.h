/*
 * emit_c.h: C text for the isl AST of a scop, the second emitter over the
 * shared walker (walk.h), on which a GPU backend's OpenCL C builds.
 *
 * The function has the signature of the kernel an object compiled ahead
 * of time exports (wrap.h, cheader.h):
 *
 *	int NAME(const T *in0, ..., T *out0, ..., int64_t s0, ...)
 *
 * with the same checks (EIN_AOT_ERROR_NULL, EIN_AOT_ERROR_SIZE) and the
 * same results as the CPU code, up to the rounding of floating point that
 * docs/language.md allows without --strict-fp: the loops of isl's AST as
 * C loops (a parallel or vectorised loop is a plain loop with a comment
 * saying what the schedule asked), statement bodies in the C types of
 * their values, integers wrapping in int32 as ein's do.  Only scalar code:
 * explicit vectors, parallel loops and prefetches are the CPU backend's.
 */
#ifndef EIN_CODEGEN_EMIT_C_H
#define EIN_CODEGEN_EMIT_C_H

#include <stdio.h>
#include <isl/ast.h>
#include "ein.h"
#include "poly/scop.h"
#include "codegen/wrap.h"

/* Print what every file of emitted C starts with: its includes, the
 * return codes and the helpers the functions call. */
void ein_emit_c_prelude(FILE *out);

/* Print the function of the kernel "spec" describes, whose scop is
 * "scop" and AST "tree", to "out".  Returns -1 with an error on ctx:
 * EIN_ERROR_UNSUPPORTED for a constant tensor (spec->konst), whose data
 * C text does not hold, or for a tensor or size named as isl names loop
 * iterators ("c0", "c1", ...); an internal error otherwise. */
int ein_emit_c(ein_ctx *ctx, FILE *out, const struct ein_wrap_spec *spec,
	struct ein_scop *scop, __isl_keep isl_ast_node *tree);

#endif
