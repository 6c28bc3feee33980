/*
 * jit.c: ORC LLJIT, one per kernel.
 *
 * One LLJIT per kernel keeps a kernel's code alive exactly as long as the
 * kernel and makes freeing it trivial; creating one costs well under a
 * millisecond next to the O3 pipeline.  Symbols the kernels call in the C
 * library (malloc, tanhf, ...) are resolved in this process; ein's own
 * runtime functions are defined in the JIT by address, so that they are
 * found even when libein is linked statically and nothing else refers to
 * them.
 */
#include <stdlib.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include "diag.h"
#include "codegen/target.h"
#include "codegen/emit_llvm.h"
#include "runtime/parallel.h"
#include "runtime/jit.h"

/* tsc: the thread-safe context modules are built in;
 * lljit: the JIT, NULL until the first module is added. */
struct ein_jit {
	LLVMOrcThreadSafeContextRef tsc;
	LLVMOrcLLJITRef lljit;
};

/* Report "err" (consumed) as an internal error about "what". */
static void jit_error(ein_ctx *ctx, LLVMErrorRef err, const char *what)
{
	char *msg = LLVMGetErrorMessage(err);

	ein_internal(ctx, "%s: %s", what, msg);
	LLVMDisposeErrorMessage(msg);
}

/* LLVM reports to stderr by default, for instance when it cannot honour
 * a schedule's vectorize or unroll request; a library must not write
 * there, and a missed optimisation never changes the result. */
static void ignore_diagnostic(LLVMDiagnosticInfoRef info, void *user)
{
}

struct ein_jit *ein_jit_alloc(ein_ctx *ctx)
{
	struct ein_jit *jit = calloc(1, sizeof(*jit));

	if (!jit) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return NULL;
	}
	jit->tsc = LLVMOrcCreateNewThreadSafeContext();
	LLVMContextSetDiagnosticHandler(
		LLVMOrcThreadSafeContextGetContext(jit->tsc),
		&ignore_diagnostic, NULL);
	return jit;
}

void ein_jit_free(struct ein_jit *jit)
{
	if (!jit)
		return;
	if (jit->lljit)
		LLVMOrcDisposeLLJIT(jit->lljit);
	if (jit->tsc)
		LLVMOrcDisposeThreadSafeContext(jit->tsc);
	free(jit);
}

LLVMContextRef ein_jit_get_context(struct ein_jit *jit)
{
	return LLVMOrcThreadSafeContextGetContext(jit->tsc);
}

/* Define the runtime's functions in the JIT's main library. */
static int define_runtime(ein_ctx *ctx, struct ein_jit *jit)
{
	LLVMJITSymbolFlags flags = {
		LLVMJITSymbolGenericFlagsExported |
			LLVMJITSymbolGenericFlagsCallable, 0
	};
	LLVMOrcCSymbolMapPair pair;
	LLVMOrcMaterializationUnitRef mu;
	LLVMErrorRef err;

	pair.Name = LLVMOrcLLJITMangleAndIntern(jit->lljit,
		EIN_RT_PARALLEL_FOR);
	pair.Sym.Address = (LLVMOrcExecutorAddress) (uintptr_t)
		&ein_rt_parallel_for;
	pair.Sym.Flags = flags;
	mu = LLVMOrcAbsoluteSymbols(&pair, 1);
	err = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit->lljit),
		mu);
	if (err) {
		LLVMOrcDisposeMaterializationUnit(mu);
		return jit_error(ctx, err, "cannot define the runtime"), -1;
	}
	return 0;
}

static int create_lljit(ein_ctx *ctx, struct ein_jit *jit)
{
	LLVMOrcJITTargetMachineBuilderRef jtmb;
	LLVMOrcLLJITBuilderRef builder;
	LLVMOrcDefinitionGeneratorRef gen;
	LLVMErrorRef err;

	ein_target_init();
	err = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
	if (err)
		return jit_error(ctx, err, "cannot detect the host"), -1;
	builder = LLVMOrcCreateLLJITBuilder();
	LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
	err = LLVMOrcCreateLLJIT(&jit->lljit, builder);
	if (err)
		return jit_error(ctx, err, "cannot create the JIT"), -1;
	err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen,
		LLVMOrcLLJITGetGlobalPrefix(jit->lljit), NULL, NULL);
	if (err)
		return jit_error(ctx, err, "cannot search this process"), -1;
	LLVMOrcJITDylibAddGenerator(
		LLVMOrcLLJITGetMainJITDylib(jit->lljit), gen);
	return define_runtime(ctx, jit);
}

void *ein_jit_add_module(ein_ctx *ctx, struct ein_jit *jit, LLVMModuleRef m,
	const char *name)
{
	LLVMOrcThreadSafeModuleRef tsm;
	LLVMOrcExecutorAddress addr = 0;
	LLVMErrorRef err;

	if (!jit->lljit && create_lljit(ctx, jit) < 0) {
		LLVMDisposeModule(m);
		return NULL;
	}
	tsm = LLVMOrcCreateNewThreadSafeModule(m, jit->tsc);
	err = LLVMOrcLLJITAddLLVMIRModule(jit->lljit,
		LLVMOrcLLJITGetMainJITDylib(jit->lljit), tsm);
	if (err) {
		LLVMOrcDisposeThreadSafeModule(tsm);
		jit_error(ctx, err, "cannot add the module to the JIT");
		return NULL;
	}
	err = LLVMOrcLLJITLookup(jit->lljit, &addr, name);
	if (err) {
		jit_error(ctx, err, "cannot compile the kernel");
		return NULL;
	}
	return (void *) (uintptr_t) addr;
}
