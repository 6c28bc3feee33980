/*
 * model_cpu_time.c: the CPU time of a whole model's runs through the
 * graph level, float or int8, for a machine too loaded for wall-clock
 * times to mean anything (bench/cpu_time.c does the same for one kernel).
 *
 *   cc -O2 -Iinclude bench/model_cpu_time.c -L.libs -lein \
 *       -Wl,-rpath,$PWD/.libs -o model_cpu_time
 *   EIN_NUM_THREADS=1 ./model_cpu_time MODEL.onnx PROFILE.json|- CALLS
 *
 * Loads MODEL (every size fixed by the model) in float ("-") or in int8
 * from PROFILE (minmax calibration, as ein run --quantize), fills the
 * inputs with a fixed pattern (floats in [-1, 1)), runs it once, then
 * CALLS times, and prints the median and least process CPU time of a run
 * (CLOCK_PROCESS_CPUTIME_ID: all threads; with EIN_NUM_THREADS=1 the
 * work of one) beside the median wall time.  Not part of make check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ein.h"
#include "cpu_clock.h"

#define MAX_ARG 16

/* Allocate "dl" as described (shape owned by the model); floats filled
 * with a pattern in [-1, 1), other bytes zero. */
static int tensor_make(DLTensor *dl, int fill)
{
	int64_t e = 1, b, i;
	int d;

	for (d = 0; d < dl->ndim; ++d)
		e *= dl->shape[d];
	b = e * (dl->dtype.bits / 8);
	dl->data = aligned_alloc(64, (b + 63) / 64 * 64);
	if (!dl->data)
		return -1;
	memset(dl->data, 0, b);
	if (fill && dl->dtype.code == kDLFloat && dl->dtype.bits == 32)
		for (i = 0; i < e; ++i)
			((float *) dl->data)[i] =
				(float) ((i * 2654435761u >> 8) % 2000) / 1000 - 1;
	return 0;
}

/* The inputs and outputs of "m" allocated into dl[0 .. ni + no - 1]. */
static int tensors_make(ein_model *m, DLTensor *dl, DLTensor **args, int *ni,
	int *no)
{
	int i;

	*ni = ein_model_n_input(m);
	*no = ein_model_n_output(m);
	if (*ni < 0 || *no < 0 || *ni + *no > MAX_ARG)
		return -1;
	for (i = 0; i < *ni + *no; ++i) {
		memset(&dl[i], 0, sizeof(dl[i]));
		if ((i < *ni ? ein_model_get_input(m, i, &dl[i]) :
				ein_model_get_output(m, i - *ni, &dl[i])) !=
				EIN_OK || tensor_make(&dl[i], i < *ni) < 0)
			return -1;
		args[i] = &dl[i];
	}
	return 0;
}

int main(int argc, char **argv)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *o = ein_options_alloc();
	ein_model *m = NULL;
	DLTensor dl[MAX_ARG], *args[MAX_ARG];
	double *cpu, *wall;
	int n = argc == 4 ? atoi(argv[3]) : 0, ni, no, i;

	if (!ctx || !o || n < 1) {
		fprintf(stderr, "usage: model_cpu_time MODEL.onnx "
			"PROFILE.json|- CALLS\n");
		return 2;
	}
	if (strcmp(argv[2], "-") && ein_options_set_quantize(o, argv[2],
			EIN_CALIBRATION_MINMAX) != EIN_OK)
		return fprintf(stderr, "%s\n", ein_ctx_last_error(ctx)), 1;
	m = ein_model_load(ctx, argv[1], o);
	if (!m || tensors_make(m, dl, args, &ni, &no) < 0)
		return fprintf(stderr, "%s\n", ein_ctx_last_error(ctx)), 1;
	cpu = malloc(2 * n * sizeof(*cpu));
	if (!cpu || ein_model_run(m, args, ni, args + ni, no) != EIN_OK)
		return fprintf(stderr, "%s\n", ein_ctx_last_error(ctx)), 1;
	wall = cpu + n;
	for (i = 0; i < n; ++i) {
		double c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
		double w0 = seconds(CLOCK_MONOTONIC);

		ein_model_run(m, args, ni, args + ni, no);
		cpu[i] = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall[i] = seconds(CLOCK_MONOTONIC) - w0;
	}
	qsort(cpu, n, sizeof(*cpu), cmp_double);
	qsort(wall, n, sizeof(*wall), cmp_double);
	printf("%s (%s): CPU median %.3f ms (least %.3f), wall median %.3f "
		"ms, %d runs, %d kernels\n", argv[1], strcmp(argv[2], "-") ?
		"int8" : "float", cpu[n / 2] * 1e3, cpu[0] * 1e3,
		wall[n / 2] * 1e3, n, ein_model_n_kernel(m));
	for (i = 0; i < ni + no; ++i)
		free(dl[i].data);
	free(cpu);
	ein_model_free(m);
	ein_options_free(o);
	ein_ctx_free(ctx);
	return 0;
}
