/*
 * target.h: the machine code is generated for, and LLVM's optimisation
 * pipeline for it.
 */
#ifndef EIN_CODEGEN_TARGET_H
#define EIN_CODEGEN_TARGET_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include "ein.h"

/* A target: an LLVM triple, CPU and feature string, and the target
 * machine built from them. */
struct ein_target;

/* Initialise LLVM's native target, once per process (thread-safe). */
void ein_target_init(void);

/* The host: its triple, CPU name and features as LLVM detects them. */
struct ein_target *ein_target_host(ein_ctx *ctx);
void ein_target_free(struct ein_target *target);

/* The target's class name ("x86_64-avx2"), the directory its schedules
 * are kept in (src/sched/lookup.h).  Owned by the target. */
const char *ein_target_get_name(struct ein_target *target);

/* Give "m" the target's triple and data layout, and the kernels in it the
 * target's CPU and features, then run LLVM's O3 pipeline on it.  Returns
 * -1 (with an internal error) on failure. */
int ein_target_optimize(ein_ctx *ctx, struct ein_target *target,
	LLVMModuleRef m);

/* The assembly of module "m" for "target", as a string the caller frees;
 * NULL after reporting an error. */
char *ein_target_emit_asm(ein_ctx *ctx, struct ein_target *target,
	LLVMModuleRef m);

#endif
