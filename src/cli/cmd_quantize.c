/*
 * cmd_quantize.c: "ein quantize", an ONNX model written as int8 ein
 * source from a profile of its tensors (docs/quantization.md), with its
 * weights (the quantised ones, the multipliers and shifts, and the float
 * ones that float operators read) as .npy files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The options of "ein quantize": the model, the profile, the calibration,
 * the activations' bits (0: the default), the output source, the weights'
 * directory (NULL: the output's name with .weights for .ein), the sizes
 * to fix. */
struct quantize_opts {
	const char *file;
	const char *profile;
	ein_calibration cal;
	int64_t bits;
	const char *output;
	const char *weights;
	const char *sizes;
};

static int parse_args(int argc, char **argv, struct quantize_opts *o)
{
	int i;

	for (i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			o->output = argv[++i];
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			o->profile = argv[++i];
		else if (!strcmp(argv[i], "--calibration") && i + 1 < argc) {
			if (ein_cli_parse_calibration("ein quantize", argv[++i],
					&o->cal) < 0)
				return -1;
		} else if (!strcmp(argv[i], "--activation-bits") &&
		    i + 1 < argc) {
			if (ein_cli_parse_int("ein quantize", "--activation-bits",
					argv[++i], 7, 8, &o->bits) < 0)
				return -1;
		} else if (!strcmp(argv[i], "--weights") && i + 1 < argc)
			o->weights = argv[++i];
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			o->sizes = argv[++i];
		else if (argv[i][0] != '-' && !o->file)
			o->file = argv[i];
		else {
			ein_cli_unexpected("ein quantize", argv[i]);
			return -1;
		}
	}
	if (!o->file || !ein_cli_is_onnx(o->file))
		fprintf(stderr, "ein quantize: error: no .onnx model given\n");
	else if (!o->profile)
		fprintf(stderr, "ein quantize: error: no profile given "
			"(--profile P.json, which ein profile writes)\n");
	else if (!o->output)
		fprintf(stderr, "ein quantize: error: no output given (-o "
			"MODEL.q.ein)\n");
	return o->file && ein_cli_is_onnx(o->file) && o->profile &&
		o->output ? 0 : -1;
}

/* The weights' directory: --weights, else the output without ".ein"
 * and with ".weights".  The caller frees it. */
static char *weights_dir(const struct quantize_opts *o)
{
	size_t len = strlen(o->output);
	char *dir;

	if (o->weights)
		return strdup(o->weights);
	if (len > 4 && !strcmp(o->output + len - 4, ".ein"))
		len -= 4;
	dir = malloc(len + 9);
	if (dir)
		sprintf(dir, "%.*s.weights", (int) len, o->output);
	return dir;
}

/* Write the source to o->output. */
static int write_source(const struct quantize_opts *o, const char *text)
{
	FILE *f = fopen(o->output, "w");
	int ok = f && fputs(text, f) >= 0;

	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, "ein quantize: error: cannot write '%s'\n",
			o->output);
	return ok ? 0 : -1;
}

int ein_cmd_quantize(int argc, char **argv)
{
	struct quantize_opts o = { .cal = EIN_CALIBRATION_MINMAX };
	ein_options *opts;
	ein_ctx *ctx;
	ein_onnx *m = NULL;
	char *dir = NULL;
	int ok = -1;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	opts = ein_options_alloc();
	if (o.bits)
		ein_options_set_activation_bits(opts, (int) o.bits);
	if (ein_cli_size_hints("ein quantize", opts, o.sizes, 1) < 0)
		return (ein_options_free(opts), 2);
	ctx = ein_ctx_alloc();
	m = ein_onnx_quantize(ctx, o.file, opts, o.profile, o.cal);
	dir = weights_dir(&o);
	if (!m)
		fputs(ein_ctx_last_error(ctx), stderr);
	else if (dir && write_source(&o, ein_onnx_get_source(m)) == 0)
		ok = ein_cli_write_weights(ctx, "ein quantize", dir, m);
	if (ok == 0)
		printf("wrote %s and its %d weights in %s (ein run %s "
			"--weights %s)\n", o.output, ein_onnx_n_const(m), dir,
			o.output, dir);
	free(dir);
	ein_onnx_free(m);
	ein_options_free(opts);
	ein_ctx_free(ctx);
	return ok == 0 ? 0 : 1;
}
