/*
 * vector_loop.h: the vector loops of the CPU (the LLVM emitter's
 * for_loop, walk.h) and of OpenCL C (opencl/emit.c's printer calls it
 * for the loops each work-item runs).
 *
 * A loop the schedule vectorises is emitted in one of three forms:
 * explicit vectors (each statement of its body computed on vectors of
 * the loop's width by the emitter, where every statement qualifies:
 * ein_emitter.vector_stmt), a loop padded to whole vectors (where every
 * statement may run past the loop's end), or, on the CPU, a loop left
 * to LLVM's loop vectoriser with masked vectors (partial); an emitter
 * without masked vectors (ein_emitter.scalar_tails: OpenCL C) runs
 * explicit vectors and a scalar loop for the rest instead.  C text
 * (--emit=c) leaves for_loop NULL and gets the loops as isl wrote them.
 */
#ifndef EIN_CODEGEN_VECTOR_LOOP_H
#define EIN_CODEGEN_VECTOR_LOOP_H

#include <isl/ast.h>
#include "codegen/walk.h"

/* Emit the for node "node", with attributes "attr" (NULL if none), in the
 * CPU's form for it, through e's callbacks.  Returns -1 on error. */
int ein_vector_loop(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, const struct ein_loop_attr *attr);

#endif
