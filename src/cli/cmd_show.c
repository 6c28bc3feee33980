/*
 * cmd_show.c: "ein show", the intermediate forms of a definition.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const struct {
	const char *name;
	ein_stage stage;
} stages[] = {
	{ "source", EIN_STAGE_SOURCE },
	{ "domains", EIN_STAGE_DOMAINS },
	{ "ast", EIN_STAGE_AST },
	{ "llvm-unopt", EIN_STAGE_LLVM_UNOPT },
	{ "llvm", EIN_STAGE_LLVM },
	{ "deps", EIN_STAGE_DEPS },
	{ "schedule", EIN_STAGE_SCHEDULE },
	{ "asm", EIN_STAGE_ASM },
	{ "c", EIN_STAGE_C },
	{ "opencl", EIN_STAGE_OPENCL },
};

/* The stages of the graph level, for an ONNX model: -1 (kernels) or -2
 * (memory) in *stage. */
static int parse_graph_stage(const char *name, int *stage)
{
	if (!strcmp(name, "kernels"))
		*stage = -1;
	else if (!strcmp(name, "memory"))
		*stage = -2;
	else
		return 0;
	return 1;
}

static int parse_stage(const char *name, int *stage)
{
	size_t i;

	if (parse_graph_stage(name, stage))
		return 0;
	for (i = 0; i < sizeof(stages) / sizeof(stages[0]); ++i)
		if (!strcmp(stages[i].name, name)) {
			*stage = stages[i].stage;
			return 0;
		}
	fprintf(stderr, "ein show: error: unknown stage '%s' (stages: "
		"source, domains, deps, schedule, ast, llvm-unopt, llvm, asm, "
		"c, opencl; for an ONNX model also kernels, memory)\n", name);
	return -1;
}

/* Print the fused kernels' source (stage -1) or the memory plan (-2) of
 * ONNX model "file" (its sizes fixed in "opts"). */
static int show_graph(const char *file, int stage, const ein_options *opts)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_model *m = ein_cli_is_onnx(file) ?
		ein_model_plan(ctx, file, opts) : NULL;
	const char *text = stage == -1 ? ein_model_get_source(m) :
		ein_model_get_memory_plan(m);

	if (text)
		fputs(text, stdout);
	else if (m)
		fprintf(stderr, "ein show: error: the memory plan needs every "
			"size of the model fixed (--sizes NAME=VALUE)\n");
	else if (!ein_cli_is_onnx(file))
		fprintf(stderr, "ein show: error: --stage=%s needs an ONNX "
			"model\n", stage == -1 ? "kernels" : "memory");
	else
		fputs(ein_ctx_last_error(ctx), stderr);
	ein_model_free(m);
	ein_ctx_free(ctx);
	return text ? 0 : 1;
}

int ein_cmd_show(int argc, char **argv)
{
	const char *file = NULL, *def = NULL, *sizes = NULL;
	int stage = EIN_STAGE_AST;
	ein_options *opts = ein_options_alloc();
	ein_program *prog;
	ein_onnx *model = NULL;
	ein_ctx *ctx;
	char *text;
	int i, r, bad;

	for (i = 1; i < argc; ++i) {
		if ((r = ein_cli_parse_option(opts, argc, argv, &i)) != 0) {
			if (r < 0)
				return (ein_options_free(opts), 2);
		} else if (!strcmp(argv[i], "--def") && i + 1 < argc)
			def = argv[++i];
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			sizes = argv[i + 1];
			if (ein_cli_size_hints("ein show", opts, argv[++i],
					1) < 0)
				return (ein_options_free(opts), 2);
		}
		else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
			if (ein_cli_target("ein show", opts, argv[++i]) < 0)
				return (ein_options_free(opts), 2);
		} else if (!strcmp(argv[i], "--quantize") && i + 1 < argc) {
			/* The fused kernels of the int8 model. */
			if (ein_options_set_quantize(opts, argv[++i],
					EIN_CALIBRATION_MINMAX) != EIN_OK)
				return (ein_options_free(opts), 2);
		} else if (!strncmp(argv[i], "--stage=", 8)) {
			if (parse_stage(argv[i] + 8, &stage) < 0)
				return (ein_options_free(opts), 2);
		} else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else {
			ein_cli_unexpected("ein show", argv[i]);
			return (ein_options_free(opts), 2);
		}
	}
	if (!file) {
		fprintf(stderr, "ein show: error: no .ein or .onnx file "
			"given\n");
		return (ein_options_free(opts), 2);
	}
	if (stage < 0) {
		r = show_graph(file, stage, opts);
		ein_options_free(opts);
		return r;
	}
	ctx = ein_ctx_alloc();
	prog = ein_cli_read_program(ctx, file, opts, &model);
	/* A misspelt size is an error before the schedule is chosen, which
	 * may take seconds; a size left out stays symbolic. */
	bad = prog && !model &&
		ein_cli_check_size_names(sizes, prog, def ? 1 : 0, &def) < 0;
	text = prog && !bad ? ein_program_show_with(prog, def,
		(ein_stage) stage, opts) : NULL;
	if (text)
		fputs(text, stdout);
	else if (!bad)
		fputs(ein_ctx_last_error(ctx), stderr);
	free(text);
	ein_program_free(prog);
	ein_onnx_free(model);
	ein_options_free(opts);
	ein_ctx_free(ctx);
	return text ? 0 : 1;
}
