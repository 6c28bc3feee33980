/*
 * program.c: ein_program, a parsed and checked .ein file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/printer.h>
#include "ctx.h"
#include "diag.h"
#include "codegen/ast_build.h"
#include "codegen/emit_c.h"
#include "codegen/wrap.h"
#include "driver/pipeline.h"
#include "driver/program.h"
#include "driver/options.h"
#include "opencl/emit.h"

/* ctx: the context (not owned); ref: the number of references (the user's
 * and one per kernel); cf: the checked file. */
struct ein_program {
	ein_ctx *ctx;
	int ref;
	struct ein_checked_file *cf;
};

ein_program *ein_program_parse(ein_ctx *ctx, const char *source,
	const char *filename)
{
	ein_program *prog;
	struct ein_src *src;

	if (!ctx)
		return NULL;
	ein_ctx_clear_error(ctx);
	if (!source) {
		ein_error(ctx, EIN_ERROR_INVALID, "no source text given");
		return NULL;
	}
	prog = calloc(1, sizeof(*prog));
	src = ein_src_alloc(filename, source);
	if (!prog || !src) {
		free(prog);
		ein_src_free(src);
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return NULL;
	}
	prog->ctx = ctx;
	prog->ref = 1;
	prog->cf = ein_frontend(ctx, src);
	if (!prog->cf) {
		free(prog);
		return NULL;
	}
	return prog;
}

ein_program *ein_program_read_file(ein_ctx *ctx, const char *path)
{
	ein_program *prog;
	struct ein_src *src;

	if (!ctx)
		return NULL;
	ein_ctx_clear_error(ctx);
	if (!path) {
		ein_error(ctx, EIN_ERROR_INVALID, "no file name given");
		return NULL;
	}
	src = ein_src_read(ctx, path);
	if (!src)
		return NULL;
	prog = ein_program_parse(ctx, src->text, path);
	ein_src_free(src);
	return prog;
}

ein_program *ein_program_copy(ein_program *prog)
{
	if (prog)
		prog->ref++;
	return prog;
}

void ein_program_free(ein_program *prog)
{
	if (!prog || --prog->ref > 0)
		return;
	ein_checked_file_free(prog->cf);
	free(prog);
}

ein_ctx *ein_program_get_ctx(const ein_program *prog)
{
	return prog ? prog->ctx : NULL;
}

int ein_program_n_def(const ein_program *prog)
{
	return prog ? prog->cf->n_func : -1;
}

const char *ein_program_get_def_name(const ein_program *prog, int pos)
{
	if (!prog || pos < 0 || pos >= prog->cf->n_func)
		return NULL;
	return prog->cf->func[pos]->def->name;
}

/* Definition "def" (NULL: the first), NULL if none, without a message. */
static const struct ein_func *find_func(const ein_program *prog,
	const char *def)
{
	int i;

	for (i = 0; prog && i < prog->cf->n_func; ++i)
		if (!def || !strcmp(prog->cf->func[i]->def->name, def))
			return prog->cf->func[i];
	return NULL;
}

int ein_program_n_size(const ein_program *prog, const char *def)
{
	const struct ein_func *func = find_func(prog, def);

	return func ? func->n_size : -1;
}

const char *ein_program_get_size_name(const ein_program *prog,
	const char *def, int pos)
{
	const struct ein_func *func = find_func(prog, def);

	if (!func || pos < 0 || pos >= func->n_size)
		return NULL;
	return func->size[pos];
}

const struct ein_func *ein_program_get_func(ein_program *prog,
	const char *name)
{
	int i;

	for (i = 0; i < prog->cf->n_func; ++i)
		if (!name || !strcmp(prog->cf->func[i]->def->name, name))
			return prog->cf->func[i];
	if (!name)
		ein_error(prog->ctx, EIN_ERROR_INVALID, "the program has no "
			"definition");
	else
		ein_error(prog->ctx, EIN_ERROR_INVALID, "no definition named "
			"'%s'", name);
	return NULL;
}

/* The text of stage "stage" of the compilation "job" just ran. */
static char *show_job(ein_ctx *ctx, struct ein_job *job, ein_stage stage)
{
	isl_printer *p;
	char *str, *llvm;

	if (stage == EIN_STAGE_LLVM || stage == EIN_STAGE_LLVM_UNOPT) {
		llvm = LLVMPrintModuleToString(job->module);
		str = llvm ? strdup(llvm) : NULL;
		LLVMDisposeMessage(llvm);
		return str;
	}
	if (stage == EIN_STAGE_ASM)
		return ein_target_emit_asm(ctx, job->target, job->module);
	p = isl_printer_to_str(isl_set_get_ctx(job->scop->context));
	if (stage == EIN_STAGE_DOMAINS) {
		p = ein_scop_print(p, job->scop);
	} else if (stage == EIN_STAGE_DEPS) {
		p = ein_deps_print(p, job->deps);
	} else if (stage == EIN_STAGE_SCHEDULE) {
		p = ein_schedule_print(p, job->schedule);
	} else {
		p = ein_ast_print(p, job->scop, job->tree);
	}
	str = isl_printer_get_str(p);
	isl_printer_free(p);
	return str;
}

/* The kernel of "job" (run up to its AST) as C text (emit_c.h), with the
 * sizes fixed to fixed[i] where that is not 0. */
static char *show_c(ein_ctx *ctx, struct ein_job *job, int64_t *fixed)
{
	const struct ein_func *func = job->func;
	int i, is_fixed[func->n_size + 1], ok;
	const char *konst[func->n_tensor + 1];
	struct ein_wrap_spec spec = { .func = func, .fixed = is_fixed,
		.value = fixed, .konst = konst };
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	for (i = 0; i < func->n_size; ++i)
		is_fixed[i] = fixed[i] != 0;
	memset(konst, 0, sizeof(konst));
	spec.valid = ein_wrap_valid_sizes(ctx, func);
	out = spec.valid ? open_memstream(&text, &len) : NULL;
	if (!out)
		return (isl_set_free(spec.valid), NULL);
	ein_emit_c_prelude(out);
	ok = ein_emit_c(ctx, out, &spec, job->scop, job->tree);
	if (ferror(out) | fclose(out))
		ok = -1;
	isl_set_free(spec.valid);
	if (ok < 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* The automatic schedule's file, then "listing" (taken), the schedule
 * it made, as comments: the whole can be saved and passed back with
 * --schedule. */
static char *with_automatic(const struct ein_sched_choice *choice,
	char *listing)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return free(listing), NULL;
	fprintf(out, "# %s\n%s\n# The schedule it makes:\n",
		choice->why, choice->file->src->text);
	for (line = strtok_r(listing, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(out, "# %s\n", line);
	free(listing);
	if (fclose(out) != 0)
		return free(text), NULL;
	return text;
}

static char *show_source(const struct ein_func *func)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	ein_ast_def_print(out, func->def);
	fclose(out);
	return text;
}

char *ein_program_show(ein_program *prog, const char *def, ein_stage stage)
{
	return ein_program_show_with(prog, def, stage, NULL);
}

char *ein_program_show_with(ein_program *prog, const char *def,
	ein_stage stage, const ein_options *opts)
{
	static const enum ein_pass until[] = {
		[EIN_STAGE_DOMAINS] = EIN_PASS_SCOP,
		[EIN_STAGE_AST] = EIN_PASS_AST,
		[EIN_STAGE_LLVM_UNOPT] = EIN_PASS_LLVM,
		[EIN_STAGE_LLVM] = EIN_PASS_OPT,
		[EIN_STAGE_DEPS] = EIN_PASS_DEPS,
		[EIN_STAGE_SCHEDULE] = EIN_PASS_SCHEDULE,
		[EIN_STAGE_ASM] = EIN_PASS_OPT,
		[EIN_STAGE_C] = EIN_PASS_AST,
		[EIN_STAGE_OPENCL] = EIN_PASS_LLVM,
	};
	struct ein_job job = { 0 };
	int64_t *fixed;
	struct ein_sched_choice choice;
	char *str = NULL;

	if (!prog)
		return NULL;
	ein_ctx_clear_error(prog->ctx);
	job.func = ein_program_get_func(prog, def);
	if (!job.func)
		return NULL;
	if (stage == EIN_STAGE_SOURCE)
		return show_source(job.func);
	if (stage < EIN_STAGE_SOURCE || stage > EIN_STAGE_OPENCL) {
		ein_error(prog->ctx, EIN_ERROR_INVALID, "unknown stage %d",
			stage);
		return NULL;
	}
	if (ein_options_choose_schedule(prog->ctx, opts, job.func,
			&choice) < 0) {
		ein_sched_choice_clear(&choice);
		return NULL;
	}
	job.gpu = ein_options_get_opencl(opts, &job.cl_platform,
		&job.cl_device);
	if (stage == EIN_STAGE_OPENCL && !job.gpu) {
		ein_error(prog->ctx, EIN_ERROR_INVALID, "the OpenCL stage "
			"needs the OpenCL target (--target opencl)");
		ein_sched_choice_clear(&choice);
		return NULL;
	}
	if (job.gpu && (stage == EIN_STAGE_LLVM || stage == EIN_STAGE_ASM ||
			stage == EIN_STAGE_LLVM_UNOPT || stage == EIN_STAGE_C)) {
		ein_error(prog->ctx, EIN_ERROR_INVALID, "the OpenCL target has "
			"no LLVM, assembly or C stage (--stage=opencl)");
		ein_sched_choice_clear(&choice);
		return NULL;
	}
	job.until = until[stage];
	job.sched_file = choice.file;
	job.strict_fp = ein_options_get_strict_fp(opts);
	job.cpu = ein_options_get_cpu(opts);
	job.timeout = ein_sched_choice_budget_left(opts, &choice);
	fixed = calloc(job.func->n_size + 1, sizeof(*fixed));
	if (fixed && ein_wrap_options_sizes(prog->ctx, job.func, opts, fixed,
			&job.sizes) == 0 && ein_compile(prog->ctx, &job) == 0)
		str = stage == EIN_STAGE_C ? show_c(prog->ctx, &job, fixed) :
			stage == EIN_STAGE_OPENCL ? strdup(job.ocl_plan->source) :
			show_job(prog->ctx, &job, stage);
	if (str && stage == EIN_STAGE_SCHEDULE && choice.automatic)
		str = with_automatic(&choice, str);
	free(fixed);
	job.sizes = isl_set_free(job.sizes);
	ein_job_clear(&job);
	ein_sched_choice_clear(&choice);
	return str;
}
