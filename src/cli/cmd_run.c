/*
 * cmd_run.c: "ein run": compile, run on random inputs, time, check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* Above this many operations the reference interpreter takes long enough
 * (seconds) that "run" skips the check unless --check asks for it. */
#define CHECK_LIMIT 2e9

/* The most calls --repeat asks for (their timings are kept in memory:
 * at most 800 MB, of which only the calls made in the two seconds of
 * timing are touched). */
#define MAX_REPEAT 100000000

/* The most --input options. */
#define MAX_INPUTS 64

/* The options of "ein run".
 * input: the NAME=FILE of each --input; output: --output's directory;
 * model: the imported model when file is an ONNX model; ctx: the
 *	context of the run; fixed: sizes owned (the --sizes of a model whose
 *	fixed sizes became constants). */
struct run_opts {
	const char *file;
	int n_input;
	const char *input[MAX_INPUTS];
	const char *output;
	const char *weights;	/* --weights: inputs as DIR/NAME.npy */
	ein_onnx *model;
	ein_ctx *ctx;
	char *fixed;
	const char *def;
	const char *sizes;
	int64_t repeat;
	int check;	/* 1: always, 0: never, -1: when cheap enough */
	int fix;	/* specialise the kernel to the sizes */
	int graph;	/* an ONNX model through the graph level (not
			 * --no-graph) */
	int profile;	/* --profile: each fused kernel's time */
	const char *quantize;	/* --quantize: the profile of an int8 run */
	const char *calibration;	/* --calibration (with --quantize) */
	ein_calibration cal;	/* the calibration it names */
	char *ranges;	/* the --range lists joined by commas, or NULL */
	ein_options *opts;
};

/* Append the list "spec" of "--range spec" to o->ranges after checking
 * its syntax. */
static int add_ranges(struct run_opts *o, const char *spec)
{
	size_t len = o->ranges ? strlen(o->ranges) : 0;
	char *all;

	if (ein_cli_range_check(spec, "--range") < 0)
		return -1;
	all = realloc(o->ranges, len + strlen(spec) + 2);
	if (!all)
		return -1;
	if (len)
		all[len++] = ',';
	strcpy(all + len, spec);
	o->ranges = all;
	return 0;
}

static const char *input_file(const struct run_opts *o, const char *name,
	char *buf, size_t size)
{
	return ein_cli_input_file(o->n_input, o->input, o->weights, name, buf,
		size);
}

/* Fill input (or in-place tensor) "pos" of "k": from the file --input
 * names, else with the model's weight of that name, else with random
 * data, in the range --range gives it if any. */
static int fill_input(ein_kernel *k, int pos, struct ein_cli_tensor *t,
	const struct run_opts *o, uint64_t *seed)
{
	const char *name = ein_kernel_get_tensor_name(k, pos);
	char buf[4096];
	const char *file = input_file(o, name, buf, sizeof(buf));
	int c = ein_cli_find_const(o->model, name);
	double lo, hi;
	DLTensor w;

	if (file)
		return ein_tensor_read_file(o->ctx, file, name,
			&t->dl) == EIN_OK ? 0 : -1;
	if (c >= 0 && ein_onnx_get_const(o->model, c, &w) == EIN_OK) {
		memcpy(t->dl.data, w.data, t->n * t->elem_size);
		return 0;
	}
	if (ein_cli_range_find(o->ranges, name, &lo, &hi) == 1)
		ein_cli_tensor_randomize_range(t, seed, lo, hi);
	else
		ein_cli_tensor_randomize(t, seed);
	return 0;
}

/* Check that each --input names an input of "k" and has a file. */
static int check_inputs(const struct run_opts *o, ein_kernel *k)
{
	int i, pos;

	for (i = 0; i < o->n_input; ++i) {
		const char *eq = strchr(o->input[i], '=');

		for (pos = 0; eq && pos < ein_kernel_n_tensor(k); ++pos)
			if (ein_kernel_tensor_is_input(k, pos) == 1 &&
			    !strncmp(ein_kernel_get_tensor_name(k, pos),
					o->input[i], eq - o->input[i]) &&
			    !ein_kernel_get_tensor_name(k, pos)[eq -
					o->input[i]])
				break;
		if (!eq || eq == o->input[i] || !eq[1] ||
		    pos == ein_kernel_n_tensor(k)) {
			fprintf(stderr, "ein run: error: --input takes "
				"NAME=FILE with NAME an input of the kernel, "
				"not '");
			ein_cli_print_quoted(stderr, o->input[i], 200);
			fprintf(stderr, "'\n");
			return -1;
		}
	}
	return 0;
}

/* The entries of the size list "spec" that name sizes of "k": an ONNX
 * model imported with --fix-sizes has its fixed sizes as constants, no
 * longer as sizes.  The caller frees the result. */
static char *kernel_sizes(const char *spec, ein_kernel *k)
{
	char *copy = strdup(spec), *out = calloc(strlen(spec) + 1, 1);
	char *tok, *save = NULL;
	int i;

	for (tok = copy && out ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save))
		for (i = 0; i < ein_kernel_n_size(k); ++i) {
			size_t len = strlen(ein_kernel_get_size_name(k, i));

			if (!strncmp(tok, ein_kernel_get_size_name(k, i), len) &&
			    tok[len] == '=') {
				if (*out)
					strcat(out, ",");
				strcat(out, tok);
			}
		}
	free(copy);
	return out;
}

/* Write each output of "k" in "t" to --output's directory as NAME.npy. */
static int write_outputs(const struct run_opts *o, ein_kernel *k,
	struct ein_cli_tensor *t, int n)
{
	int i;

	for (i = 0; o->output && i < n; ++i) {
		const char *name = ein_kernel_get_tensor_name(k, i);
		size_t len = strlen(o->output) + strlen(name) + 8;
		char path[len];

		if (ein_kernel_tensor_is_output(k, i) != 1)
			continue;
		DLTensor dl = t[i].dl;

		/* A bool tensor is one byte per element, kDLUInt, as
		 * uint8; kDLBool (code 6) makes NumPy read it as bool. */
		if (!strcmp(ein_kernel_get_tensor_type(k, i), "bool"))
			dl.dtype.code = 6;
		snprintf(path, len, "%s/%s.npy", o->output, name);
		if (ein_tensor_write_npy(o->ctx, path, &dl) != EIN_OK)
			return -1;
		printf("  output %s: %s\n", name, path);
	}
	return 0;
}

/* Check --quantize and --calibration, which take an ONNX model, and give
 * the profile to the options (the graph level reads it there). */
static int check_quantize(struct run_opts *o)
{
	if (!o->quantize && !o->calibration)
		return 0;
	if (!ein_cli_is_onnx(o->file) || !o->quantize) {
		fprintf(stderr, "ein run: error: --quantize PROFILE (and "
			"--calibration) take an ONNX model\n");
		return -1;
	}
	if (o->calibration && ein_cli_parse_calibration("ein run",
			o->calibration, &o->cal) < 0)
		return -1;
	return ein_options_set_quantize(o->opts, o->quantize, o->cal) == EIN_OK ?
		0 : -1;
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	int i, r;

	for (i = 1; i < argc; ++i) {
		if ((r = ein_cli_parse_option(o->opts, argc, argv, &i)) != 0) {
			if (r < 0)
				return -1;
		} else if (!strcmp(argv[i], "--def") && i + 1 < argc)
			o->def = argv[++i];
		else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
			if (ein_cli_target("ein run", o->opts, argv[++i]) < 0)
				return -1;
		} else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			o->sizes = argv[++i];
		else if (!strncmp(argv[i], "--sizes=", 8))
			o->sizes = argv[i] + 8;
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			if (ein_cli_parse_int("ein run", "--repeat", argv[++i],
					1, MAX_REPEAT, &o->repeat) < 0)
				return -1;
		} else if (!strcmp(argv[i], "--range") && i + 1 < argc) {
			if (add_ranges(o, argv[++i]) < 0)
				return -1;
		} else if (!strncmp(argv[i], "--range=", 8)) {
			if (add_ranges(o, argv[i] + 8) < 0)
				return -1;
		} else if (!strcmp(argv[i], "--input") && i + 1 < argc) {
			if (o->n_input >= MAX_INPUTS) {
				fprintf(stderr, "ein run: error: too many "
					"--input options\n");
				return -1;
			}
			o->input[o->n_input++] = argv[++i];
		} else if (!strcmp(argv[i], "--weights") && i + 1 < argc)
			o->weights = argv[++i];
		else if (!strcmp(argv[i], "--output") && i + 1 < argc)
			o->output = argv[++i];
		else if (!strcmp(argv[i], "--check"))
			o->check = 1;
		else if (!strcmp(argv[i], "--no-check"))
			o->check = 0;
		else if (!strcmp(argv[i], "--fix-sizes"))
			o->fix = 1;
		else if (!strcmp(argv[i], "--no-graph"))
			o->graph = 0;
		else if (!strcmp(argv[i], "--profile"))
			o->profile = 1;
		else if (!strcmp(argv[i], "--quantize") && i + 1 < argc)
			o->quantize = argv[++i];
		else if (!strcmp(argv[i], "--calibration") && i + 1 < argc)
			o->calibration = argv[++i];
		else if (argv[i][0] != '-' && !o->file)
			o->file = argv[i];
		else {
			ein_cli_unexpected("ein run", argv[i]);
			return -1;
		}
	}
	if (!o->file)
		fprintf(stderr, "ein run: error: no .ein or .onnx file "
			"given\n");
	return o->file ? check_quantize(o) : -1;
}

/* Copy the data of "init" into the tensors of "args" (outside the timed
 * part of a call). */
static void restore(DLTensor **args, int n, const struct ein_cli_tensor *init)
{
	int i;

	for (i = 0; init && i < n; ++i)
		memcpy(args[i]->data, init[i].dl.data,
			init[i].n * init[i].elem_size);
}

double ein_cli_time_call(ein_kernel *k, DLTensor **args, int n,
	const int64_t *sizes, int repeat, const struct ein_cli_tensor *init,
	double *device)
{
	double *t = malloc(2 * repeat * sizeof(*t)), start = ein_cli_now(), med;
	double *d = t + repeat;
	int i, ns = ein_kernel_n_size(k);

	if (!t) {
		fprintf(stderr, "ein: error: out of memory for %d timings\n",
			repeat);
		return -1;
	}
	restore(args, n, init);
	if (ein_kernel_call(k, args, n, sizes, ns) != EIN_OK)
		return (free(t), -1);
	for (i = 0; i < repeat; ++i) {
		double t0;

		restore(args, n, init);
		t0 = ein_cli_now();
		ein_kernel_call(k, args, n, sizes, ns);
		t[i] = ein_cli_now() - t0;
		d[i] = ein_kernel_get_device_seconds(k);
		if (i >= 2 && ein_cli_now() - start > 2.0) {
			repeat = i + 1;
			break;
		}
	}
	med = ein_cli_median(t, repeat);
	if (device)
		*device = d[0] < 0 ? -1 : ein_cli_median(d, repeat);
	free(t);
	return med;
}

/* Compare every output of "out" with "ref"; print and return -1 if one
 * differs by more than 1e-4 of the reference's largest magnitude, or at
 * all for integer and bool outputs, which must be exact. */
static int compare_outputs(ein_kernel *k, struct ein_cli_tensor *out,
	struct ein_cli_tensor *ref, int n)
{
	int i, bad = 0;

	for (i = 0; i < n; ++i) {
		double err, scale, tol;

		if (!ein_kernel_tensor_is_output(k, i))
			continue;
		ein_cli_tensor_compare(&out[i], &ref[i], &err, &scale);
		tol = ein_cli_tensor_is_integer(&out[i]) ? 0 :
			1e-4 * (scale > 1 ? scale : 1);
		printf("  check %s: max |error| %.3g against the reference "
			"interpreter (max |value| %.3g)",
			ein_kernel_get_tensor_name(k, i), err, scale);
		if (!(err <= tol)) {
			printf(": MISMATCH\n");
			bad = 1;
		} else {
			printf(": ok\n");
		}
	}
	return bad ? -1 : 0;
}

/* Call "k" once on "t" restored from "init", so that the outputs compared
 * with the reference are those of one call from the same data, however
 * many timed calls came before (an output the kernel reads, such as a
 * tensor updated in place, changes with each call). */
static int call_once(ein_kernel *k, struct ein_cli_tensor *t,
	struct ein_cli_tensor *init, const int64_t *sizes, int n)
{
	DLTensor *args[n];
	int i;

	for (i = 0; i < n; ++i) {
		ein_cli_tensor_copy(&t[i], &init[i]);
		args[i] = &t[i].dl;
	}
	return ein_kernel_call(k, args, n, sizes, ein_kernel_n_size(k)) ==
		EIN_OK ? 0 : -1;
}

/* Run the kernel once and the reference on copies of the inputs, and
 * compare. */
static int check(ein_kernel *k, struct ein_cli_tensor *t,
	struct ein_cli_tensor *init, const int64_t *sizes, int n)
{
	struct ein_cli_tensor ref[n];
	DLTensor *args[n];
	int i, ok = call_once(k, t, init, sizes, n);

	for (i = 0; i < n; ++i) {
		ref[i] = init[i];
		ref[i].dl.shape = ref[i].shape;
		ref[i].dl.data = malloc(t[i].n * t[i].elem_size + 1);
		if (!ref[i].dl.data)
			ok = -1;
		else
			ein_cli_tensor_copy(&ref[i], &init[i]);
		args[i] = &ref[i].dl;
	}
	if (ok == 0 && ein_kernel_call_reference(k, args, n, sizes,
			ein_kernel_n_size(k)) != EIN_OK)
		ok = -1;
	if (ok == 0)
		ok = compare_outputs(k, t, ref, n);
	for (i = 0; i < n; ++i)
		free(ref[i].dl.data);
	return ok;
}

static void print_sizes(ein_kernel *k, const int64_t *sizes)
{
	int i;

	for (i = 0; i < ein_kernel_n_size(k); ++i)
		printf("%s%s=%lld", i ? ", " : "",
			ein_kernel_get_size_name(k, i), (long long) sizes[i]);
}

/* Time and check kernel "k" at "sizes". */
/* Was the kernel's schedule the automatic one (its reason says so)? */
/* Is "why" a schedule made for the kernel, not a file: the automatic
 * schedule or the default GPU mapping? */
static int is_automatic(const char *why)
{
	return why && (!strncmp(why, "automatic", 9) ||
		!strncmp(why, "default GPU", 11));
}

/* Is "why" the default schedule with a reason ("default (...)": a
 * definition of more statements than the automatic scheduler takes)? */
static int is_default_why(const char *why)
{
	return why && !strncmp(why, "default (", 9);
}

static int run_kernel(ein_kernel *k, const struct run_opts *o,
	const int64_t *sizes)
{
	int i, n = ein_kernel_n_tensor(k), ok = 0;
	struct ein_cli_tensor t[n], init[n];
	DLTensor *args[n];
	uint64_t seed = 42;
	double sec, dev = -1, flops = 0;

	/* Tensors after a failed allocation are freed too: start empty. */
	memset(t, 0, sizeof(t));
	memset(init, 0, sizeof(init));
	for (i = 0; i < n && ok == 0; ++i) {
		ok = ein_cli_tensor_alloc(&t[i], k, i, sizes);
		if (ok == 0)
			ok = ein_cli_tensor_alloc(&init[i], k, i, sizes);
		if (ok == 0 && ein_kernel_tensor_is_input(k, i))
			ok = fill_input(k, i, &init[i], o, &seed);
		if (ok == 0)
			ein_cli_tensor_copy(&t[i], &init[i]);
		args[i] = &t[i].dl;
	}
	/* Counted once the tensors exist: the count may take as long as
	 * the kernel's domain is large. */
	if (ok == 0)
		flops = ein_kernel_flops(k, sizes, ein_kernel_n_size(k));
	/* Every call starts from the same data, "init": a kernel may read
	 * its outputs (C(i, j) += ... without "!"), so that the result of
	 * the last call, compared with one reference run below, is that of
	 * one call on "init", and each call does the same work. */
	if (ok == 0 && (sec = ein_cli_time_call(k, args, n, sizes,
			o->repeat, init, &dev)) >= 0) {
		printf("  run: median %.3f ms over up to %lld runs",
			sec * 1e3, (long long) o->repeat);
		if (flops > 0)
			printf(", %.2f GFLOP/s", flops / sec * 1e-9);
		printf("\n");
		if (dev > 0) {
			printf("  device: median %.3f ms of the kernels (the "
				"device's profiling events, no copies)",
				dev * 1e3);
			if (flops > 0)
				printf(", %.2f GFLOP/s", flops / dev * 1e-9);
			printf("\n");
		}
		if (o->check == 1 || (o->check < 0 && flops <= CHECK_LIMIT))
			ok = check(k, t, init, sizes, n);
		else
			printf("  check: skipped (%.3g operations; --check "
				"forces it)\n", flops);
	} else {
		ok = -1;
	}
	if (ok == 0)
		ok = write_outputs(o, k, t, n);
	for (i = 0; i < n; ++i) {
		ein_cli_tensor_free(&t[i]);
		ein_cli_tensor_free(&init[i]);
	}
	return ok;
}

/* Run an ONNX model through the graph level, its sizes fixed. */
static int run_graph(struct run_opts *o)
{
	struct ein_cli_model_run r = { o->file, o->opts, o->n_input,
		o->input, o->output, o->ranges, o->repeat, o->check != 0,
		o->profile, NULL };
	int ok = ein_cli_run_model(&r);

	ein_options_free(o->opts);
	free(o->ranges);
	return ok == 0 ? 0 : 1;
}

int ein_cmd_run(int argc, char **argv)
{
	struct run_opts o = { .repeat = 10, .check = -1, .graph = 1 };
	ein_ctx *ctx;
	ein_program *prog = NULL;
	ein_kernel *k = NULL;
	double t0;
	int ok = -1;

	o.opts = ein_options_alloc();
	/* On an OpenCL device, the kernels' own time is printed too (no
	 * effect on the CPU). */
	ein_options_set_opencl_profiling(o.opts, 1);
	ein_cli_progress_default(o.opts);
	if (parse_args(argc, argv, &o) < 0)
		return (ein_options_free(o.opts), free(o.ranges), 2);
	o.graph = o.graph && ein_cli_is_onnx(o.file) && !o.def;
	if (ein_cli_size_hints("ein run", o.opts, o.sizes,
			o.fix || o.graph) < 0)
		return (ein_options_free(o.opts), free(o.ranges), 2);
	if (o.profile && !o.graph) {
		fprintf(stderr, "ein run: error: --profile needs an ONNX model "
			"run through the graph level\n");
		return (ein_options_free(o.opts), free(o.ranges), 2);
	}
	if (o.graph)
		return run_graph(&o);
	ctx = ein_ctx_alloc();
	o.ctx = ctx;
	t0 = ein_cli_now();
	if (o.quantize)
		prog = ein_cli_read_quantized(ctx, o.file, o.opts, o.quantize,
			o.cal, &o.model);
	else
		prog = ein_cli_read_program(ctx, o.file, o.opts, &o.model);
	/* The sizes are checked before the compile, which may take seconds
	 * (the automatic schedule of a model), unless an imported model's
	 * fixed sizes became constants: kernel_sizes drops them below. */
	if (prog && (o.model && o.fix ? 0 :
			ein_cli_check_sizes(o.sizes, prog, o.def)) == 0)
		k = ein_kernel_compile_with(prog, o.def, o.opts);
	if (k && o.model && o.fix && o.sizes) {
		char *spec = kernel_sizes(o.sizes, k);

		free(o.fixed);
		o.sizes = o.fixed = spec;
	}
	if (k) {
		int64_t sizes[ein_kernel_n_size(k) + 1];

		if (ein_cli_parse_sizes(o.sizes, k, sizes) == 0 &&
		    ein_cli_range_check_kernel(o.ranges, k) == 0 &&
		    check_inputs(&o, k) == 0) {
			printf("kernel %s (", o.def ? o.def :
				ein_program_get_def_name(prog, 0));
			print_sizes(k, sizes);
			printf("): compiled in %.1f ms\n",
				(ein_cli_now() - t0) * 1e3);
			if (ein_kernel_get_schedule(k) ||
			    is_automatic(ein_kernel_get_schedule_reason(k)) ||
			    is_default_why(ein_kernel_get_schedule_reason(k)))
				printf("  schedule: %s\n",
					ein_kernel_get_schedule_reason(k));
			else
				printf("  schedule: default\n");
			ok = run_kernel(k, &o, sizes);
		}
	}
	if (ein_ctx_last_status(ctx) != EIN_OK)
		fputs(ein_ctx_last_error(ctx), stderr);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_onnx_free(o.model);
	ein_options_free(o.opts);
	ein_ctx_free(ctx);
	free(o.ranges);
	free(o.fixed);
	return ok == 0 ? 0 : 1;
}
