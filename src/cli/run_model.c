/*
 * run_model.c: "ein run model.onnx" through the graph level: the model's
 * fused kernels run in order over the arena (ein_model_*), timed, checked
 * against the reference interpreter on the whole model as one definition,
 * and, with --profile, each kernel's share of the time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The element type of "dt" as ein spells it (one-byte unsigned: uint8). */
static const char *type_name(DLDataType dt)
{
	if (dt.code == kDLFloat)
		return dt.bits == 64 ? "float64" : "float32";
	if (dt.code == kDLInt)
		return dt.bits == 8 ? "int8" : "int32";
	return "uint8";
}

/* Allocate "t" (zeroed) with the type and shape of "desc". */
static int alloc_like(struct ein_cli_tensor *t, const DLTensor *desc)
{
	size_t bytes;
	int d;

	memset(t, 0, sizeof(*t));
	t->dl = *desc;
	t->dl.shape = t->shape;
	t->n = 1;
	for (d = 0; d < desc->ndim; ++d) {
		t->shape[d] = desc->shape[d];
		t->n *= desc->shape[d];
	}
	t->elem_size = desc->dtype.bits / 8;
	t->type = type_name(desc->dtype);
	bytes = (t->n * t->elem_size + 63) / 64 * 64;
	t->dl.data = aligned_alloc(64, bytes ? bytes : 64);
	if (!t->dl.data) {
		fprintf(stderr, "ein run: error: out of memory (%zu bytes)\n",
			bytes);
		return -1;
	}
	memset(t->dl.data, 0, bytes);
	return 0;
}

/* The file that --input gives tensor "name", NULL if none. */
static const char *input_file(const struct ein_cli_model_run *r,
	const char *name)
{
	size_t len = strlen(name);
	int i;

	for (i = r->n_input - 1; i >= 0; --i)
		if (!strncmp(r->input[i], name, len) && r->input[i][len] == '=')
			return r->input[i] + len + 1;
	return NULL;
}

/* Check that each --input names an input of "m". */
static int check_input_names(const struct ein_cli_model_run *r,
	const ein_model *m)
{
	int i, pos;

	for (i = 0; i < r->n_input; ++i) {
		const char *eq = strchr(r->input[i], '=');
		size_t len = eq ? (size_t) (eq - r->input[i]) : 0;

		for (pos = 0; eq && pos < ein_model_n_input(m); ++pos)
			if (strlen(ein_model_get_input_name(m, pos)) == len &&
			    !strncmp(ein_model_get_input_name(m, pos),
					r->input[i], len))
				break;
		if (!eq || !len || !eq[1] || pos == ein_model_n_input(m)) {
			fprintf(stderr, "ein run: error: --input takes "
				"NAME=FILE with NAME an input of the model, "
				"not '");
			ein_cli_print_quoted(stderr, r->input[i], 200);
			fprintf(stderr, "'\n");
			return -1;
		}
	}
	return 0;
}

/* Allocate the model's inputs (from --input's files, else random, in
 * --range's range if any) and outputs ("copies" times: the kernels', the
 * reference's); t holds inputs, then outputs, then reference outputs. */
static int alloc_all(ein_ctx *ctx, const struct ein_cli_model_run *r,
	ein_model *m, struct ein_cli_tensor *t, int copies)
{
	int ni = ein_model_n_input(m), no = ein_model_n_output(m), i;
	uint64_t seed = 42;
	DLTensor desc;

	for (i = 0; i < ni + copies * no; ++i) {
		const char *name, *file;
		double lo, hi;

		if ((i < ni ? ein_model_get_input(m, i, &desc) :
		     ein_model_get_output(m, (i - ni) % no, &desc)) != EIN_OK) {
			fprintf(stderr, "ein run: error: %s '%s' is read by no "
				"kernel of the model (not supported)\n",
				i < ni ? "input" : "output", i < ni ?
				ein_model_get_input_name(m, i) :
				ein_model_get_output_name(m, (i - ni) % no));
			return -1;
		}
		if (alloc_like(&t[i], &desc) < 0)
			return -1;
		if (i >= ni)
			continue;
		name = ein_model_get_input_name(m, i);
		file = input_file(r, name);
		if (file && ein_tensor_read_file(ctx, file, name,
				&t[i].dl) != EIN_OK)
			return -1;
		if (file)
			continue;
		if (ein_cli_range_find(r->ranges, name, &lo, &hi) == 1)
			ein_cli_tensor_randomize_range(&t[i], &seed, lo, hi);
		else
			ein_cli_tensor_randomize(&t[i], &seed);
	}
	return 0;
}

/* Run "m" once to warm up, then up to r->repeat times (two seconds at
 * most); the median time of a run in seconds, -1 on failure.  base[k]
 * is kernel k's time after the warm-up, and *runs the number of timed
 * runs. */
static double time_runs(const struct ein_cli_model_run *r, ein_model *m,
	DLTensor **in, DLTensor **out, double *base, int64_t *runs)
{
	int ni = ein_model_n_input(m), no = ein_model_n_output(m), i;
	double *t = malloc(r->repeat * sizeof(*t)), start, med;
	int64_t n = r->repeat;

	if (!t || ein_model_run(m, in, ni, out, no) != EIN_OK)
		return (free(t), -1);
	for (i = 0; i < ein_model_n_kernel(m); ++i)
		base[i] = ein_model_get_kernel_seconds(m, i);
	start = ein_cli_now();
	for (i = 0; i < n; ++i) {
		double t0 = ein_cli_now();

		if (ein_model_run(m, in, ni, out, no) != EIN_OK)
			return (free(t), -1);
		t[i] = ein_cli_now() - t0;
		if (i >= 2 && ein_cli_now() - start > 2.0)
			n = i + 1;
	}
	med = ein_cli_median(t, n);
	*runs = n;
	free(t);
	return med;
}

/* Compare the outputs with the reference's; -1 if one differs by more
 * than 1e-4 of the reference's largest magnitude (integers: at all). */
static int compare(ein_model *m, struct ein_cli_tensor *out,
	struct ein_cli_tensor *ref)
{
	int i, bad = 0;

	for (i = 0; i < ein_model_n_output(m); ++i) {
		double err, scale, tol;

		ein_cli_tensor_compare(&out[i], &ref[i], &err, &scale);
		tol = ein_cli_tensor_is_integer(&out[i]) ? 0 :
			1e-4 * (scale > 1 ? scale : 1);
		printf("  check %s: max |error| %.3g against the reference "
			"interpreter on the whole model (max |value| %.3g): "
			"%s\n", ein_model_get_output_name(m, i), err, scale,
			err <= tol ? "ok" : "MISMATCH");
		bad |= !(err <= tol);
	}
	return bad ? -1 : 0;
}

/* The kernels' share of the time over the timed runs (base[k]: kernel
 * k's time before them), one line each, as a profiler prints. */
static void print_profile(ein_model *m, const double *base, int64_t runs)
{
	double total = 0;
	int k;

	for (k = 0; k < ein_model_n_kernel(m); ++k)
		total += ein_model_get_kernel_seconds(m, k) - base[k];
	printf("  %-36s %12s %7s  %s\n", "kernel", "ms per run", "%",
		"ONNX nodes");
	for (k = 0; k < ein_model_n_kernel(m); ++k) {
		double s = ein_model_get_kernel_seconds(m, k) - base[k];

		printf("  %-36s %12.4f %6.1f%%  %s\n",
			ein_model_get_kernel_name(m, k), s * 1e3 / runs,
			total > 0 ? 100 * s / total : 0,
			ein_model_get_kernel_nodes(m, k));
	}
	printf("  %-36s %12.4f %6.1f%%  (mean of %lld runs)\n", "total",
		total * 1e3 / runs, 100.0, (long long) runs);
}

/* Write the outputs to --output's directory as NAME.npy. */
static int write_outputs(ein_ctx *ctx, const struct ein_cli_model_run *r,
	ein_model *m, struct ein_cli_tensor *out)
{
	int i;

	for (i = 0; r->output && i < ein_model_n_output(m); ++i) {
		const char *name = ein_model_get_output_name(m, i);
		size_t len = strlen(r->output) + strlen(name) + 8;
		const char *type = ein_model_get_output_type(m, i);
		char path[len];
		DLTensor dl = out[i].dl;

		/* A bool tensor is one byte per element, kDLUInt, as
		 * uint8; kDLBool (code 6) makes NumPy read it as bool. */
		if (type && !strcmp(type, "bool"))
			dl.dtype.code = 6;
		snprintf(path, len, "%s/%s.npy", r->output, name);
		if (ein_tensor_write_npy(ctx, path, &dl) != EIN_OK)
			return -1;
		printf("  output %s: %s\n", name, path);
	}
	return 0;
}

/* The schedule of each kernel that a file gives (a tuned one, ein tune
 * model.onnx), with the reason lookup chose it; the automatic ones go
 * unsaid (ein show --stage=schedule on the kernels' source shows them). */
static void print_schedules(const ein_model *m)
{
	int k;

	for (k = 0; k < ein_model_n_kernel(m); ++k) {
		const ein_kernel *kernel = ein_model_get_kernel(m, k);

		if (kernel && ein_kernel_get_schedule(kernel))
			printf("  schedule %s: %s\n",
				ein_model_get_kernel_name(m, k),
				ein_kernel_get_schedule_reason(kernel));
	}
}

/* Time, check, profile and write the outputs of loaded model "m". */
static int run_loaded(ein_ctx *ctx, const struct ein_cli_model_run *r,
	ein_model *m)
{
	int ni = ein_model_n_input(m), no = ein_model_n_output(m), i, ok;
	int n = ni + 2 * no;
	struct ein_cli_tensor t[n + 1];
	DLTensor *args[n + 1];
	double sec, base[ein_model_n_kernel(m) + 1];
	int64_t runs = 1;

	memset(t, 0, sizeof(t));
	ok = alloc_all(ctx, r, m, t, 2);
	for (i = 0; i < n; ++i)
		args[i] = &t[i].dl;
	if (ok == 0 && (sec = time_runs(r, m, args, args + ni, base,
			&runs)) >= 0) {
		printf("  run: median %.3f ms over up to %lld runs\n",
			sec * 1e3, (long long) r->repeat);
		if (r->seconds)
			*r->seconds = sec;
	} else
		ok = -1;
	if (ok == 0 && r->profile)
		print_profile(m, base, runs);
	if (ok == 0 && r->check)
		ok = ein_model_run_reference(m, args, ni, args + ni + no,
			no) == EIN_OK ? compare(m, t + ni, t + ni + no) : -1;
	if (ok == 0)
		ok = write_outputs(ctx, r, m, t + ni);
	for (i = 0; i < n; ++i)
		ein_cli_tensor_free(&t[i]);
	return ok;
}

int ein_cli_run_model(const struct ein_cli_model_run *r)
{
	ein_ctx *ctx = ein_ctx_alloc();
	double t0 = ein_cli_now();
	ein_model *m = ein_model_load(ctx, r->file, r->opts);
	int ok = -1;

	if (m && check_input_names(r, m) == 0) {
		printf("model %s: %d fused kernels (%d codes), compiled in "
			"%.1f ms; arena %lld bytes for %lld bytes of tensors "
			"between kernels\n", r->file, ein_model_n_kernel(m),
			ein_model_n_compiled(m), (ein_cli_now() - t0) * 1e3,
			(long long) ein_model_arena_bytes(m),
			(long long) ein_model_tensor_bytes(m));
		print_schedules(m);
		ok = run_loaded(ctx, r, m);
	}
	if (ein_ctx_last_status(ctx) != EIN_OK)
		fputs(ein_ctx_last_error(ctx), stderr);
	ein_model_free(m);
	ein_ctx_free(ctx);
	return ok;
}

int ein_cli_profile_model(const struct ein_cli_model_run *r, ein_model *m,
	double *seconds, double *median)
{
	ein_ctx *ctx = ein_ctx_alloc();
	int ni = ein_model_n_input(m), no = ein_model_n_output(m), i, ok;
	int n = ni + no, nk = ein_model_n_kernel(m);
	struct ein_cli_tensor t[n + 1];
	DLTensor *args[n + 1];
	double base[nk + 1];
	int64_t runs = 1;

	memset(t, 0, sizeof(t));
	ok = ctx ? alloc_all(ctx, r, m, t, 1) : -1;
	for (i = 0; i < n; ++i)
		args[i] = &t[i].dl;
	if (ok == 0 && (*median = time_runs(r, m, args, args + ni, base,
			&runs)) < 0)
		ok = -1;
	for (i = 0; ok == 0 && i < nk; ++i)
		seconds[i] = (ein_model_get_kernel_seconds(m, i) - base[i]) /
			runs;
	if (ok < 0 && ctx && ein_ctx_last_status(ctx) != EIN_OK)
		fputs(ein_ctx_last_error(ctx), stderr);
	for (i = 0; i < n; ++i)
		ein_cli_tensor_free(&t[i]);
	ein_ctx_free(ctx);
	return ok;
}
