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
/* The target of LLVM triple "triple" with CPU "cpu" and features
 * "features" (as llc's -mtriple, -mcpu, -mattr; NULL: none), with every
 * target LLVM was built with initialised, position-independent code and
 * the default code model, for objects compiled ahead of time.  Returns
 * NULL after an EIN_ERROR_INVALID error if LLVM does not know it. */
struct ein_target *ein_target_alloc(ein_ctx *ctx, const char *triple,
	const char *cpu, const char *features);
/* The target called "name": "host" (or NULL), "x86_64", "x86_64-avx2",
 * "x86_64-avx512" or "aarch64".  NULL after an error for another name. */
struct ein_target *ein_target_named(ein_ctx *ctx, const char *name);
/* Target "name" (as ein_target_named) for code that runs in this process
 * (the JIT): the host's triple with the named target's CPU and features.
 * NULL after an EIN_ERROR_INVALID error naming the reason if this machine
 * cannot run its code (another architecture, or a feature it lacks). */
struct ein_target *ein_target_jit_named(ein_ctx *ctx, const char *name);
/* The class name (ein_target_get_name) of the target named "name"
 * (ein_target_named), or NULL if no target has that name. */
const char *ein_target_named_class(const char *name);
void ein_target_free(struct ein_target *target);

/* The target's class name ("x86_64-avx2"), the directory its schedules
 * are kept in (src/sched/lookup.h).  Owned by the target. */
const char *ein_target_get_name(struct ein_target *target);
/* The target's LLVM triple (owned by the target). */
const char *ein_target_get_triple(const struct ein_target *target);
/* 1 if "target" is an x86-64 target with AVX-512 (its class name, or the
 * CPU of the named target x86_64-avx512): its 512-bit vectors may use
 * AVX-512's instructions (mathfn.h). */
int ein_target_has_avx512(const struct ein_target *target);
/* 1 if "target" is an x86-64 target with AVX2 (or AVX-512): vpmaddwd
 * on 256-bit vectors (llvm_dot4.c). */
int ein_target_has_avx2(const struct ein_target *target);
/* Has "target" the AVX512-VNNI dot products (vpdpbusd)? */
int ein_target_has_avx512_vnni(const struct ein_target *target);
/* 1 if the target stores numbers least significant byte first. */
int ein_target_is_little_endian(const struct ein_target *target);

/* 1 if the target's objects are 64-bit little-endian ELF files. */
int ein_target_is_elf64le(const struct ein_target *target);

/* Mark "m" as compiled under --strict-fp: ein_target_optimize then keeps
 * its math calls the C library's, not libmvec's vector versions (whose
 * results differ from the scalar ones in the last bits, so that a
 * strict kernel's results would depend on its schedule). */
void ein_target_mark_strict_fp(LLVMModuleRef m);

/* Give "m" the target's triple and data layout. */
void ein_target_set_module(struct ein_target *target, LLVMModuleRef m);

/* Give "m" the target's triple and data layout, and the kernels in it the
 * target's CPU and features, then run LLVM's O3 pipeline on it.  Returns
 * -1 (with an internal error) on failure. */
int ein_target_optimize(ein_ctx *ctx, struct ein_target *target,
	LLVMModuleRef m);

/* The assembly of module "m" for "target", as a string the caller frees;
 * NULL after reporting an error. */
char *ein_target_emit_asm(ein_ctx *ctx, struct ein_target *target,
	LLVMModuleRef m);

/* The object file of module "m" for "target", in a buffer the caller
 * disposes with LLVMDisposeMemoryBuffer; NULL after an error. */
LLVMMemoryBufferRef ein_target_emit_object(ein_ctx *ctx,
	struct ein_target *target, LLVMModuleRef m);

#endif
