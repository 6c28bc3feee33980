/*
 * cmd_import.c: "ein import", an ONNX model written as ein source, and
 * its weights as .npy files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"

/* The options of "ein import": the model, the output (NULL: standard
 * output), the directory of the weights (NULL: none written), the sizes
 * to fix; kernels: write the graph level's fused kernels, one definition
 * each, instead of one definition. */
struct import_opts {
	const char *file;
	const char *output;
	const char *weights;
	const char *sizes;
	int kernels;
};

static int parse_args(int argc, char **argv, struct import_opts *o)
{
	int i;

	for (i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			o->output = argv[++i];
		else if (!strcmp(argv[i], "--weights") && i + 1 < argc)
			o->weights = argv[++i];
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			o->sizes = argv[++i];
		else if (!strcmp(argv[i], "--kernels"))
			o->kernels = 1;
		else if (argv[i][0] != '-' && !o->file)
			o->file = argv[i];
		else {
			ein_cli_unexpected("ein import", argv[i]);
			return -1;
		}
	}
	if (!o->file)
		fprintf(stderr, "ein import: error: no .onnx file given\n");
	return o->file ? 0 : -1;
}

/* Write the source to o->output, or to standard output. */
static int write_source(const struct import_opts *o, const char *text)
{
	FILE *f = o->output ? fopen(o->output, "w") : stdout;
	int ok = f && fputs(text, f) >= 0;

	if (f && f != stdout && fclose(f) != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, "ein import: error: cannot write '%s': %s\n",
			o->output, strerror(errno));
	return ok ? 0 : -1;
}

int ein_cli_write_weights(ein_ctx *ctx, const char *cmd, const char *dir,
	const ein_onnx *m)
{
	int i;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: error: cannot create '%s': %s\n", cmd,
			dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < ein_onnx_n_const(m); ++i) {
		const char *name = ein_onnx_get_const_name(m, i);
		size_t len = strlen(dir) + strlen(name) + 8;
		char path[len];
		DLTensor t;

		snprintf(path, len, "%s/%s.npy", dir, name);
		if (ein_onnx_get_const(m, i, &t) != EIN_OK ||
		    ein_tensor_write_npy(ctx, path, &t) != EIN_OK) {
			fputs(ein_ctx_last_error(ctx), stderr);
			return -1;
		}
	}
	return 0;
}

int ein_cmd_import(int argc, char **argv)
{
	struct import_opts o = { 0 };
	ein_options *opts;
	ein_ctx *ctx;
	ein_onnx *m = NULL;
	ein_model *model = NULL;
	int ok = -1;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	opts = ein_options_alloc();
	if (ein_cli_size_hints("ein import", opts, o.sizes, 1) < 0)
		return (ein_options_free(opts), 2);
	ctx = ein_ctx_alloc();
	if (o.kernels)
		model = ein_model_plan(ctx, o.file, opts);
	else
		m = ein_onnx_import(ctx, o.file, opts);
	if (!m && !model)
		fputs(ein_ctx_last_error(ctx), stderr);
	else if (write_source(&o, model ? ein_model_get_source(model) :
			ein_onnx_get_source(m)) == 0)
		ok = o.weights ? ein_cli_write_weights(ctx, "ein import",
			o.weights, model ? ein_model_get_onnx(model) : m) : 0;
	ein_onnx_free(m);
	ein_model_free(model);
	ein_options_free(opts);
	ein_ctx_free(ctx);
	return ok == 0 ? 0 : 1;
}
