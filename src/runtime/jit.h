/*
 * jit.h: native code for LLVM modules, in this process, with ORC's LLJIT.
 */
#ifndef EIN_RUNTIME_JIT_H
#define EIN_RUNTIME_JIT_H

#include <llvm-c/Core.h>
#include "ein.h"

struct ein_jit;

/* A JIT with its own LLVM context, for the host.  NULL on error. */
struct ein_jit *ein_jit_alloc(ein_ctx *ctx);
void ein_jit_free(struct ein_jit *jit);

/* The LLVM context modules for "jit" must be built in (owned by jit). */
LLVMContextRef ein_jit_get_context(struct ein_jit *jit);

/* Compile module "m" (taken, even on error) into jit and return the
 * address of its function "name", NULL on error. */
void *ein_jit_add_module(ein_ctx *ctx, struct ein_jit *jit, LLVMModuleRef m,
	const char *name);

#endif
