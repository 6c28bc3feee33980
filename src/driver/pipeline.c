/*
 * pipeline.c: the whole compiler, one line per pass.
 *
 *   lex -> parse -> sema -> range inference          (ein_frontend)
 *   scop -> dependences -> schedule -> AST build
 *	-> emit LLVM -> O3 -> JIT                      (ein_compile)
 *
 * The dependences are only computed when a schedule file is applied or
 * they are asked for: the default schedule is legal by construction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "frontend/parse.h"
#include "frontend/range.h"
#include "frontend/dataflow.h"
#include "poly/specialize.h"
#include "sched/apply.h"
#include "sched/gpu_map.h"
#include "opencl/runtime.h"
#include "codegen/ast_build.h"
#include "codegen/emit_llvm.h"
#include "driver/budget.h"
#include "driver/pipeline.h"

void ein_checked_file_free(struct ein_checked_file *cf)
{
	int i;

	if (!cf)
		return;
	for (i = 0; i < cf->n_func; ++i)
		ein_func_free(cf->func[i]);
	free(cf->func);
	ein_ast_file_free(cf->file);
	free(cf);
}

/* Check one definition: sema (with the type checker), range inference,
 * then the reads of temporaries. */
static struct ein_func *check_def(ein_ctx *ctx, struct ein_ast_def *def)
{
	struct ein_func *func = ein_sema_def(ctx, def);

	if (func && (ein_range_infer(ctx, func) < 0 ||
		     ein_dataflow_check(ctx, func) < 0)) {
		ein_func_free(func);
		return NULL;
	}
	return func;
}

struct ein_checked_file *ein_frontend(ein_ctx *ctx, struct ein_src *src)
{
	struct ein_checked_file *cf = calloc(1, sizeof(*cf));
	int i, ok = 0;

	if (!cf) {
		ein_src_free(src);
		return NULL;
	}
	cf->file = ein_parse(ctx, src);
	if (!cf->file)
		return (ein_checked_file_free(cf), NULL);
	cf->func = calloc(cf->file->n_def + 1, sizeof(*cf->func));
	if (!cf->func)
		return (ein_checked_file_free(cf), NULL);
	for (i = 0; i < cf->file->n_def; ++i) {
		cf->func[cf->n_func++] = check_def(ctx, cf->file->defs[i]);
		if (!cf->func[i])
			ok = -1;
	}
	if (ok < 0)
		return (ein_checked_file_free(cf), NULL);
	return cf;
}

void ein_job_clear(struct ein_job *job)
{
	isl_ast_node_free(job->tree);
	ein_schedule_free(job->schedule);
	ein_deps_free(job->deps);
	ein_scop_free(job->scop);
	if (job->module)
		LLVMDisposeModule(job->module);
	ein_jit_free(job->jit);
	ein_target_free(job->target);
	ein_ocl_code_free(job->ocl);
	ein_ocl_plan_free(job->ocl_plan);
	job->ocl = NULL;
	job->ocl_plan = NULL;
	job->scop = NULL;
	job->deps = NULL;
	job->schedule = NULL;
	job->tree = NULL;
	job->module = NULL;
	job->jit = NULL;
	job->target = NULL;
	job->entry = NULL;
}

static int emit(ein_ctx *ctx, struct ein_job *job)
{
	const char *name = job->func->def->name;

	if (!job->llctx && !(job->jit = ein_jit_alloc(ctx)))
		return -1;
	if (!job->for_target && !job->target &&
	    !(job->target = job->cpu ? ein_target_jit_named(ctx, job->cpu) :
		    ein_target_host(ctx)))
		return -1;
	job->module = ein_emit_llvm(ctx, job->scop, job->tree,
		job->llctx ? job->llctx : ein_jit_get_context(job->jit), name,
		!job->strict_fp,
		job->for_target ? job->for_target : job->target);
	return job->module ? 0 : -1;
}

static int jit(ein_ctx *ctx, struct ein_job *job)
{
	const char *name = job->func->def->name;
	char entry[strlen(name) + sizeof(EIN_ENTRY_SUFFIX)];

	snprintf(entry, sizeof(entry), "%s%s", name, EIN_ENTRY_SUFFIX);
	job->entry = ein_jit_add_module(ctx, job->jit, job->module, entry);
	job->module = NULL;
	return job->entry ? 0 : -1;
}

static int deps(ein_ctx *ctx, struct ein_job *job)
{
	struct ein_schedule *source = ein_schedule_source(job->scop);

	job->deps = source ? ein_deps_compute(job->scop,
		ein_schedule_get_map(source)) : NULL;
	ein_schedule_free(source);
	if (!job->deps && ein_diag_n_error(ctx) == 0)
		ein_internal(ctx, "cannot compute the dependences");
	return job->deps ? 0 : -1;
}

/* The OpenCL target's schedule: the file's directives, else the default
 * GPU mapping. */
static int schedule_gpu(ein_ctx *ctx, struct ein_job *job)
{
	if (job->sched_file && ein_sched_apply_gpu(ctx, job->schedule,
			job->deps, job->sched_file, job->strict_fp) < 0)
		return -1;
	if (ein_sched_gpu_is_mapped(job->schedule, -1))
		return 0;
	return ein_sched_gpu_default(ctx, job->schedule, job->deps);
}

static int schedule(ein_ctx *ctx, struct ein_job *job)
{
	job->schedule = ein_schedule_default(job->scop);
	if (!job->schedule)
		return -1;
	if (job->gpu)
		return schedule_gpu(ctx, job);
	if (!job->sched_file)
		return 0;
	return ein_sched_apply(ctx, job->schedule, job->deps, job->sched_file,
		job->strict_fp);
}

/* OpenCL C and the plan to run it, then (for EIN_PASS_JIT) the device's
 * program. */
static int emit_opencl(ein_ctx *ctx, struct ein_job *job)
{
	job->ocl_plan = ein_ocl_plan_emit(ctx, job->scop, job->tree,
		job->func->def->name);
	if (!job->ocl_plan || job->until != EIN_PASS_JIT)
		return job->ocl_plan ? 0 : -1;
	job->ocl = ein_ocl_code_build(ctx, job->ocl_plan, job->scop,
		job->cl_platform, job->cl_device, job->cl_flags);
	job->ocl_plan = NULL;
	return job->ocl ? 0 : -1;
}

/* The passes of ein_compile, with the budget checked after each: isl's
 * share stops by itself (budget.h), the rest between passes. */
static int run_passes(ein_ctx *ctx, struct ein_job *job,
	const struct ein_budget *budget)
{
	job->scop = ein_scop_from_func(ctx, job->func);
	if (job->sizes)
		job->scop = ein_specialize_scop(job->scop, job->sizes);
	if (!job->scop || job->until == EIN_PASS_SCOP)
		return job->scop ? 0 : -1;
	if ((job->sched_file || job->gpu || job->until == EIN_PASS_DEPS) &&
	    (deps(ctx, job) < 0 || ein_budget_check(ctx, budget) < 0))
		return -1;
	if (job->until == EIN_PASS_DEPS)
		return 0;
	if (schedule(ctx, job) < 0 || ein_budget_check(ctx, budget) < 0)
		return -1;
	if (job->until == EIN_PASS_SCHEDULE)
		return 0;
	job->tree = ein_ast_build(ctx, job->scop,
		ein_schedule_get_tree(job->schedule));
	if (!job->tree || job->until == EIN_PASS_AST)
		return job->tree ? 0 : -1;
	if (ein_budget_check(ctx, budget) < 0)
		return -1;
	if (job->gpu)
		return emit_opencl(ctx, job);
	if (emit(ctx, job) < 0 || job->until == EIN_PASS_LLVM)
		return job->module ? 0 : -1;
	if (ein_budget_check(ctx, budget) < 0)
		return -1;
	if (!job->target || ein_target_optimize(ctx, job->target,
			job->module) < 0)
		return -1;
	if (job->until == EIN_PASS_OPT)
		return 0;
	if (ein_budget_check(ctx, budget) < 0)
		return -1;
	return jit(ctx, job);
}

int ein_compile(ein_ctx *ctx, struct ein_job *job)
{
	struct ein_budget budget;

	if (ein_budget_start(ctx, &budget, job->timeout) < 0)
		return -1;
	return ein_budget_end(ctx, &budget, run_passes(ctx, job, &budget));
}
