/*
 * cmd_profile.c: "ein profile", the range of every tensor of an ONNX
 * model run in float on sample inputs (docs/quantization.md).
 *
 * The model is imported with every intermediate tensor as an output of
 * its definition (ein_onnx_import_profiling), compiled with the default
 * schedule, and called on each sample; a first pass finds each tensor's
 * minimum and maximum, a second (on the same samples, drawn again from
 * the same seed) its histogram over that range.  The profile is JSON
 * (json-c), written to a temporary and renamed, so that a failed run
 * leaves the previous file:
 *
 *     { "model": "cnn.onnx", "samples": 8, "sizes": { "N": 1 },
 *       "tensors": { "x": { "min": -1, "max": 0.99, "histogram":
 *           { "lo": -1, "hi": 0.99, "counts": [ ... ] } }, ... },
 *       "precision": { } }
 *
 * "precision" is for the user: a node's name with "float" keeps it in
 * float when ein quantize reads the profile.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* The most --input options. */
#define MAX_INPUTS 64
/* The most samples and bins. */
#define MAX_SAMPLES 100000
#define MAX_BINS 65536

/* The options of "ein profile": the model; the output; the --input
 * NAME=FILE of each input and the --inputs directory; the samples drawn
 * when no input is given; the sizes; the histogram's bins; the seed. */
struct profile_opts {
	const char *file;
	const char *output;
	int n_input;
	const char *input[MAX_INPUTS];
	const char *inputs;
	int64_t samples;
	const char *sizes;
	int64_t bins;
	uint64_t seed;
	ein_options *opts;
};

/* The statistics of one tensor: its range and histogram (pass 2). */
struct stats {
	int on;
	double min, max;
	double *count;
};

static int parse_args(int argc, char **argv, struct profile_opts *o)
{
	const char *cmd = "ein profile";
	int i, r;

	for (i = 1; i < argc; ++i) {
		if ((r = ein_cli_parse_option(o->opts, argc, argv, &i)) != 0) {
			if (r < 0)
				return -1;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			o->output = argv[++i];
		else if (!strcmp(argv[i], "--input") && i + 1 < argc &&
			 o->n_input < MAX_INPUTS)
			o->input[o->n_input++] = argv[++i];
		else if (!strcmp(argv[i], "--inputs") && i + 1 < argc)
			o->inputs = argv[++i];
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			o->sizes = argv[++i];
		else if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
			if (ein_cli_parse_int(cmd, "--samples", argv[++i], 1,
					MAX_SAMPLES, &o->samples) < 0)
				return -1;
		} else if (!strcmp(argv[i], "--bins") && i + 1 < argc) {
			if (ein_cli_parse_int(cmd, "--bins", argv[++i], 1,
					MAX_BINS, &o->bins) < 0)
				return -1;
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			if (ein_cli_parse_u64(cmd, "--seed", argv[++i],
					&o->seed) < 0)
				return -1;
		} else if (argv[i][0] != '-' && !o->file)
			o->file = argv[i];
		else {
			ein_cli_unexpected(cmd, argv[i]);
			return -1;
		}
	}
	if (!o->file || !ein_cli_is_onnx(o->file))
		fprintf(stderr, "ein profile: error: no .onnx model given\n");
	else if (!o->output)
		fprintf(stderr, "ein profile: error: no output given (-o "
			"PROFILE.json)\n");
	return o->file && ein_cli_is_onnx(o->file) && o->output ? 0 : -1;
}

static const char *input_file(const struct profile_opts *o, const char *name,
	char *buf, size_t size)
{
	return ein_cli_input_file(o->n_input, o->input, o->inputs, name, buf,
		size);
}

/* Is any input given a file?  Then one sample is profiled: the files. */
static int has_files(const struct profile_opts *o, ein_kernel *k,
	const ein_onnx *m)
{
	char buf[4096];
	int pos;

	for (pos = 0; pos < ein_kernel_n_tensor(k); ++pos)
		if (ein_kernel_tensor_is_input(k, pos) == 1 &&
		    ein_cli_find_const(m, ein_kernel_get_tensor_name(k,
				pos)) < 0 &&
		    input_file(o, ein_kernel_get_tensor_name(k, pos), buf,
				sizeof(buf)))
			return 1;
	return 0;
}

/* Fill the inputs of "k": weights from the model, files, else uniform
 * random values in [-1, 1) from *seed. */
static int fill_inputs(const struct profile_opts *o, ein_ctx *ctx,
	ein_kernel *k, const ein_onnx *m, struct ein_cli_tensor *t,
	uint64_t *seed)
{
	int pos;

	for (pos = 0; pos < ein_kernel_n_tensor(k); ++pos) {
		const char *name = ein_kernel_get_tensor_name(k, pos);
		int c = ein_cli_find_const(m, name);
		const char *file;
		char buf[4096];
		DLTensor w;

		if (ein_kernel_tensor_is_input(k, pos) != 1)
			continue;
		if (c >= 0 && ein_onnx_get_const(m, c, &w) == EIN_OK)
			memcpy(t[pos].dl.data, w.data, t[pos].n *
				t[pos].elem_size);
		else if ((file = input_file(o, name, buf, sizeof(buf)))) {
			if (ein_tensor_read_file(ctx, file, name,
					&t[pos].dl) != EIN_OK)
				return -1;
		} else
			ein_cli_tensor_randomize(&t[pos], seed);
	}
	return 0;
}

/* Element "i" of a float tensor. */
static double elem(const struct ein_cli_tensor *t, int64_t i)
{
	return t->dl.dtype.bits == 64 ? ((const double *) t->dl.data)[i] :
		((const float *) t->dl.data)[i];
}

/* Add the values of "t" to "s": the range (pass 0) or the histogram. */
static void accumulate(struct stats *s, const struct ein_cli_tensor *t,
	int pass, int64_t bins)
{
	double width = (s->max - s->min) / bins;
	int64_t i, b;

	for (i = 0; i < t->n; ++i) {
		double v = elem(t, i);

		if (isnan(v))
			continue;
		if (pass == 0) {
			s->min = fmin(s->min, v);
			s->max = fmax(s->max, v);
			continue;
		}
		b = width > 0 ? (int64_t) ((v - s->min) / width) : 0;
		s->count[b < 0 ? 0 : b >= bins ? bins - 1 : b] += 1;
	}
}

/* The tensors profiled: the model's inputs (not its weights) and every
 * output, in float. */
static int profiled(ein_kernel *k, const ein_onnx *m, int pos)
{
	DLDataType dt;

	if (ein_kernel_tensor_dtype(k, pos, &dt) != EIN_OK ||
	    dt.code != kDLFloat)
		return 0;
	if (ein_kernel_tensor_is_output(k, pos) == 1)
		return 1;
	return ein_cli_find_const(m, ein_kernel_get_tensor_name(k, pos)) < 0;
}

/* Run the samples twice, gathering "s". */
static int run_samples(const struct profile_opts *o, ein_ctx *ctx,
	ein_kernel *k, const ein_onnx *m, struct ein_cli_tensor *t,
	const int64_t *sizes, struct stats *s, int64_t samples)
{
	int n = ein_kernel_n_tensor(k), pass, pos;
	DLTensor *args[n];
	int64_t i;

	for (pos = 0; pos < n; ++pos)
		args[pos] = &t[pos].dl;
	for (pass = 0; pass < 2; ++pass) {
		uint64_t seed = o->seed;

		for (i = 0; i < samples; ++i) {
			if (fill_inputs(o, ctx, k, m, t, &seed) < 0 ||
			    ein_kernel_call(k, args, n, sizes,
					ein_kernel_n_size(k)) != EIN_OK)
				return -1;
			for (pos = 0; pos < n; ++pos)
				if (s[pos].on)
					accumulate(&s[pos], &t[pos], pass,
						o->bins);
		}
	}
	return 0;
}

/* The profile of tensor "s" as a JSON object. */
static json_object *tensor_json(const struct stats *s, int64_t bins)
{
	json_object *e = json_object_new_object();
	json_object *h = json_object_new_object();
	json_object *c = json_object_new_array();
	int64_t b;

	json_object_object_add(e, "min", json_object_new_double(s->min));
	json_object_object_add(e, "max", json_object_new_double(s->max));
	json_object_object_add(h, "lo", json_object_new_double(s->min));
	json_object_object_add(h, "hi", json_object_new_double(s->max));
	for (b = 0; b < bins; ++b)
		json_object_array_add(c, json_object_new_int64(
			(int64_t) s->count[b]));
	json_object_object_add(h, "counts", c);
	json_object_object_add(e, "histogram", h);
	return e;
}

/* Write "text" to "path" whole or not at all: a temporary renamed. */
static int write_atomic(const char *path, const char *text)
{
	size_t len = strlen(path) + 32;
	char tmp[len];
	FILE *f;
	int ok;

	snprintf(tmp, len, "%s.tmp-%ld", path, (long) getpid());
	f = fopen(tmp, "w");
	ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
	if (f && fclose(f) != 0)
		ok = 0;
	if (ok && rename(tmp, path) != 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, "ein profile: error: cannot write '%s': %s\n",
			path, strerror(errno));
		remove(tmp);
	}
	return ok ? 0 : -1;
}

/* The profile as JSON, written to o->output. */
static int write_profile(const struct profile_opts *o, ein_kernel *k,
	const ein_onnx *m, const int64_t *sizes, const struct stats *s,
	int64_t samples)
{
	json_object *root = json_object_new_object();
	json_object *sz = json_object_new_object();
	json_object *ts = json_object_new_object();
	int pos, ok;

	json_object_object_add(root, "model", json_object_new_string(o->file));
	json_object_object_add(root, "samples",
		json_object_new_int64(samples));
	for (pos = 0; pos < ein_kernel_n_size(k); ++pos)
		json_object_object_add(sz, ein_kernel_get_size_name(k, pos),
			json_object_new_int64(sizes[pos]));
	json_object_object_add(root, "sizes", sz);
	for (pos = 0; pos < ein_kernel_n_tensor(k); ++pos) {
		const char *name = ein_kernel_get_tensor_name(k, pos);
		const char *onnx = ein_onnx_get_onnx_name(m, name);

		if (s[pos].on)
			json_object_object_add(ts, onnx ? onnx : name,
				tensor_json(&s[pos], o->bins));
	}
	json_object_object_add(root, "tensors", ts);
	json_object_object_add(root, "precision", json_object_new_object());
	ok = write_atomic(o->output, json_object_to_json_string_ext(root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
	json_object_put(root);
	return ok;
}

/* Profile kernel "k" of model "m" at "sizes". */
static int profile(const struct profile_opts *o, ein_ctx *ctx, ein_kernel *k,
	const ein_onnx *m, const int64_t *sizes)
{
	int n = ein_kernel_n_tensor(k), pos, ok = 0, n_on = 0;
	struct ein_cli_tensor t[n];
	struct stats s[n];
	int64_t samples = has_files(o, k, m) ? 1 : o->samples;

	memset(t, 0, sizeof(t));
	memset(s, 0, sizeof(s));
	for (pos = 0; pos < n && ok == 0; ++pos) {
		ok = ein_cli_tensor_alloc(&t[pos], k, pos, sizes);
		s[pos].on = ok == 0 && profiled(k, m, pos);
		s[pos].min = INFINITY;
		s[pos].max = -INFINITY;
		s[pos].count = calloc(o->bins, sizeof(double));
		if (!s[pos].count)
			ok = -1;
		n_on += s[pos].on;
	}
	if (ok == 0)
		ok = run_samples(o, ctx, k, m, t, sizes, s, samples);
	if (ok == 0)
		ok = write_profile(o, k, m, sizes, s, samples);
	if (ok == 0)
		printf("profile of %d tensors over %lld sample%s: %s\n", n_on,
			(long long) samples, samples == 1 ? "" : "s",
			o->output);
	for (pos = 0; pos < n; ++pos) {
		ein_cli_tensor_free(&t[pos]);
		free(s[pos].count);
	}
	return ok;
}

/* The sizes: --sizes, else 1 for each. */
static int get_sizes(const struct profile_opts *o, ein_kernel *k,
	int64_t *sizes)
{
	int i;

	if (o->sizes)
		return ein_cli_parse_sizes(o->sizes, k, sizes);
	for (i = 0; i < ein_kernel_n_size(k); ++i)
		sizes[i] = 1;
	return 0;
}

int ein_cmd_profile(int argc, char **argv)
{
	struct profile_opts o = { .samples = 8, .bins = 512, .seed = 42 };
	ein_ctx *ctx;
	ein_onnx *m = NULL;
	ein_program *prog = NULL;
	ein_kernel *k = NULL;
	int ok = -1;

	o.opts = ein_options_alloc();
	/* The run is instrumentation: the default schedule compiles in a
	 * fraction of the automatic one's time. */
	ein_options_set_auto(o.opts, 0);
	if (parse_args(argc, argv, &o) < 0 ||
	    ein_cli_size_hints("ein profile", o.opts, o.sizes, 0) < 0)
		return (ein_options_free(o.opts), 2);
	ctx = ein_ctx_alloc();
	m = ein_onnx_import_profiling(ctx, o.file, o.opts);
	if (m)
		prog = ein_program_parse(ctx, ein_onnx_get_source(m), o.file);
	if (prog)
		k = ein_kernel_compile_with(prog, NULL, o.opts);
	if (k) {
		int64_t sizes[ein_kernel_n_size(k) + 1];

		if (get_sizes(&o, k, sizes) == 0)
			ok = profile(&o, ctx, k, m, sizes);
	}
	if (ein_ctx_last_status(ctx) != EIN_OK)
		fputs(ein_ctx_last_error(ctx), stderr);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_onnx_free(m);
	ein_options_free(o.opts);
	ein_ctx_free(ctx);
	return ok == 0 ? 0 : 1;
}
