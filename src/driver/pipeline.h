/*
 * pipeline.h: the compiler's passes, in order, in one place.
 */
#ifndef EIN_DRIVER_PIPELINE_H
#define EIN_DRIVER_PIPELINE_H

#include <isl/ast.h>
#include <llvm-c/Core.h>
#include "ein.h"
#include "frontend/ast.h"
#include "frontend/sema.h"
#include "poly/scop.h"
#include "poly/deps.h"
#include "sched/file.h"
#include "sched/schedule.h"
#include "codegen/target.h"
#include "runtime/jit.h"

/* The passes after the frontend, in the order they run. */
enum ein_pass {
	EIN_PASS_SCOP,		/* polyhedral model */
	EIN_PASS_DEPS,		/* exact dependences */
	EIN_PASS_SCHEDULE,	/* the schedule file's directives, checked */
	EIN_PASS_AST,		/* isl AST generation */
	EIN_PASS_LLVM,		/* LLVM IR */
	EIN_PASS_OPT,		/* LLVM's O3 pipeline for the host */
	EIN_PASS_JIT		/* native code */
};

/* A checked file: the syntax tree and one checked function (with domains)
 * per definition, in source order. */
struct ein_checked_file {
	struct ein_ast_file *file;
	int n_func;
	struct ein_func **func;
};

/* One compilation of a definition.
 * func: the checked definition (not owned); until: the last pass to run;
 * sched_file: the schedule to apply (not owned; NULL: the default);
 * strict_fp: keep floating-point results bit-identical to the source
 *	order (no reordering of reductions);
 * sizes: the size values to specialise to, a parameter set (not owned;
 *	NULL: generic code for every valid size);
 * timeout: the compile's budget in seconds (0: none; driver/budget.h);
 * llctx: the LLVM context to emit the module in (not owned; NULL: a JIT's,
 *	which the job then owns);
 * for_target: the target the code is for, in a job that stops at its
 *	LLVM module (not owned; NULL: the host, whose target the job then
 *	makes, as "target", before the module);
 * scop, deps, schedule, tree, target, jit, module: what the passes made
 *	(owned; module is NULL once the JIT has taken it);
 * entry: the kernel's entry point once compiled. */
/* ... gpu: compile for an OpenCL device (cl_platform, cl_device: which,
 * -1: the default): the GPU mapping (sched/gpu_map.h), then OpenCL C
 * (ocl_plan, from EIN_PASS_LLVM on) and the device's program (ocl, at
 * EIN_PASS_JIT, built as cl_flags say: opencl/runtime.h) instead of
 * LLVM. */
struct ein_ocl_plan;
struct ein_ocl_code;
struct ein_job {
	const struct ein_func *func;
	enum ein_pass until;
	const struct ein_sched_file *sched_file;
	int strict_fp;
	isl_set *sizes;
	double timeout;
	LLVMContextRef llctx;
	const struct ein_target *for_target;
	const char *cpu;
	int gpu;
	int cl_platform;
	int cl_device;
	unsigned cl_flags;
	struct ein_ocl_plan *ocl_plan;
	struct ein_ocl_code *ocl;
	struct ein_scop *scop;
	struct ein_deps *deps;
	struct ein_schedule *schedule;
	isl_ast_node *tree;
	struct ein_target *target;
	struct ein_jit *jit;
	LLVMModuleRef module;
	void *entry;
};

/* The frontend: lex, parse, check and infer ranges of every definition of
 * "src" (taken).  Returns NULL after reporting every error found. */
struct ein_checked_file *ein_frontend(ein_ctx *ctx, struct ein_src *src);
void ein_checked_file_free(struct ein_checked_file *cf);

/* Run the passes after the frontend on job->func, up to job->until,
 * within job->timeout seconds.  Returns -1 on error (EIN_ERROR_BUDGET
 * when the budget ran out). */
int ein_compile(ein_ctx *ctx, struct ein_job *job);
/* Free what the passes of "job" made. */
void ein_job_clear(struct ein_job *job);

#endif
