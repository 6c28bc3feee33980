/*
 * emit_llvm.h: LLVM IR for the isl AST of a scop.
 */
#ifndef EIN_CODEGEN_EMIT_LLVM_H
#define EIN_CODEGEN_EMIT_LLVM_H

#include <isl/ast.h>
#include <llvm-c/Core.h>
#include "ein.h"
#include "poly/scop.h"
#include "codegen/target.h"

/* The suffix of the uniform entry point added next to each kernel:
 * void NAME__entry(void **tensors, const int64_t *sizes). */
#define EIN_ENTRY_SUFFIX "__entry"
/* The runtime function parallel loops call (src/runtime/parallel.h). */
#define EIN_RT_PARALLEL_FOR "ein_rt_parallel_for"

/* Build a module in "llctx" holding
 *
 *	void NAME(T *noalias t0, ..., int64_t size0, ...)
 *
 * (one pointer per input and output, in signature order, then one value
 * per size) running "tree", and its entry point NAME__entry.  The module
 * is verified; returns NULL (with an internal error) when it is not.
 * "relaxed": floating point as docs/language.md allows without
 * --strict-fp: a * b + c may be computed with one rounding (a fused
 * multiply-add where the target has one, C's FP_CONTRACT on), max= and
 * min= reductions assume no NaN, and float32 exp and erf are computed
 * inline (mathfn.h); 0 for --strict-fp.  "target": the target the code
 * is for, whose instructions the inline functions may use (NULL: any). */
LLVMModuleRef ein_emit_llvm(ein_ctx *ctx, struct ein_scop *scop,
	__isl_keep isl_ast_node *tree, LLVMContextRef llctx, const char *name,
	int relaxed, const struct ein_target *target);

#endif
