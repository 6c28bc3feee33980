/*
 * cpu_time.c: the thread CPU time of one kernel's calls, for a machine
 * too loaded for wall-clock times to mean anything.
 *
 *   cc -O2 -Iinclude bench/cpu_time.c -L.libs -lein \
 *       -Wl,-rpath,$PWD/.libs -o cpu_time
 *   EIN_NUM_THREADS=1 EIN_SCHEDULE_PATH=schedules ./cpu_time FILE.ein DEF \
 *       SCHEDULE|- CALLS NAME=VALUE...
 *
 * EIN_TARGET=x86_64-avx2 (any name ein_options_set_target takes) compiles
 * for that target instead of the host: an AVX-512 machine times the code
 * an AVX2 one would get.
 *
 * Compiles DEF of FILE with SCHEDULE (or "-": the lookup, else the
 * automatic schedule) for the sizes given (fixed, as the graph level
 * compiles its kernels), fills every tensor with a fixed pattern, calls
 * the kernel once, then CALLS times, and prints the median and least
 * CPU time of a call (CLOCK_THREAD_CPUTIME_ID) beside the median wall
 * time.  Run it with EIN_NUM_THREADS=1: other threads' time is not
 * counted.  On a shared machine with a load average of L on 2 cores, a
 * call longer than the scheduler's slice takes about L / 2 times its CPU
 * time on the wall clock (2026-11-26: int8 convolutions of 3 ms CPU
 * measured 30 ms wall at a load of 9), shorter calls much less: wall
 * medians of kernels of different lengths cannot be compared there.
 * Not part of make check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ein.h"
#include "cpu_clock.h"

#define MAX_ARG 16

/* The text of "path", NULL-terminated (to free), NULL if unreadable. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (s = malloc(n + 1)) &&
	    fread(s, 1, n, f) == (size_t) n)
		s[n] = '\0';
	else {
		free(s);
		s = NULL;
	}
	if (f)
		fclose(f);
	return s;
}

/* Tensor "t" of "k" at "sizes", its bytes filled with a pattern (floats
 * near 0.2, integers spread over their range). */
static int tensor_make(ein_kernel *k, int t, const int64_t *sizes, int ns,
	DLTensor *dl, int64_t *shape)
{
	int nd = ein_kernel_tensor_ndim(k, t), i;
	int64_t e = 1, b;

	memset(dl, 0, sizeof(*dl));
	if (nd < 0 || nd > 8 || ein_kernel_tensor_shape(k, t, sizes, ns,
			shape) != EIN_OK ||
	    ein_kernel_tensor_dtype(k, t, &dl->dtype) != EIN_OK)
		return -1;
	for (i = 0; i < nd; ++i)
		e *= shape[i];
	b = e * (dl->dtype.bits / 8);
	dl->ndim = nd;
	dl->shape = shape;
	dl->device.device_type = kDLCPU;
	dl->data = aligned_alloc(64, (b + 63) / 64 * 64);
	if (!dl->data)
		return -1;
	for (i = 0; i < b; ++i)
		((unsigned char *) dl->data)[i] = dl->dtype.code == kDLFloat ?
			(i % 4 == 3 ? 0x3e : 0) :
			(unsigned char) (i * 2654435761u >> 13);
	return 0;
}

int main(int argc, char **argv)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *o = ein_options_alloc();
	char *src = argc > 4 ? read_text(argv[1]) : NULL;
	ein_program *p = src ? ein_program_parse(ctx, src, argv[1]) : NULL;
	ein_kernel *k = NULL;
	DLTensor dl[MAX_ARG], *args[MAX_ARG];
	int64_t sizes[MAX_ARG], shape[MAX_ARG][8];
	double *cpu, *wall;
	int n = argc > 4 ? atoi(argv[4]) : 0, i, j, nt, ns;

	if (!p || !o || n < 1) {
		fprintf(stderr, "usage: cpu_time FILE.ein DEF SCHEDULE|- CALLS "
			"NAME=VALUE...\n%s\n", ctx ? ein_ctx_last_error(ctx) : "");
		return 2;
	}
	if (strcmp(argv[3], "-") && ein_options_set_schedule(o, argv[3]))
		return 1;
	if (getenv("EIN_TARGET") && ein_options_set_target(o,
			getenv("EIN_TARGET")) != EIN_OK)
		return fprintf(stderr, "unknown target %s\n",
			getenv("EIN_TARGET")), 2;
	for (i = 5; i < argc; ++i) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			return 2;
		*eq = '\0';
		if (ein_options_fix_size(o, argv[i], atoll(eq + 1)) != EIN_OK)
			return fprintf(stderr, "%s\n", ein_ctx_last_error(ctx)), 1;
		*eq = '=';
	}
	k = ein_kernel_compile_with(p, argv[2], o);
	if (!k)
		return fprintf(stderr, "%s\n", ein_ctx_last_error(ctx)), 1;
	nt = ein_kernel_n_tensor(k);
	ns = ein_kernel_n_size(k);
	if (nt > MAX_ARG || ns > MAX_ARG)
		return 1;
	for (i = 0; i < ns; ++i)
		for (j = 5, sizes[i] = 0; j < argc; ++j) {
			size_t l = strlen(ein_kernel_get_size_name(k, i));

			if (!strncmp(argv[j], ein_kernel_get_size_name(k, i), l) &&
			    argv[j][l] == '=')
				sizes[i] = atoll(argv[j] + l + 1);
		}
	for (i = 0; i < nt; ++i) {
		if (tensor_make(k, i, sizes, ns, &dl[i], shape[i]) < 0)
			return fprintf(stderr, "tensor %d\n", i), 1;
		args[i] = &dl[i];
	}
	cpu = malloc(2 * n * sizeof(*cpu));
	if (!cpu || ein_kernel_call(k, args, nt, sizes, ns) != EIN_OK)
		return fprintf(stderr, "%s\n", ein_ctx_last_error(ctx)), 1;
	wall = cpu + n;
	for (i = 0; i < n; ++i) {
		double c0 = seconds(CLOCK_THREAD_CPUTIME_ID);
		double w0 = seconds(CLOCK_MONOTONIC);

		ein_kernel_call(k, args, nt, sizes, ns);
		cpu[i] = seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall[i] = seconds(CLOCK_MONOTONIC) - w0;
	}
	qsort(cpu, n, sizeof(*cpu), cmp_double);
	qsort(wall, n, sizeof(*wall), cmp_double);
	printf("%s: CPU median %.3f ms (least %.3f), wall median %.3f ms, "
		"%d calls; schedule %s\n", argv[2], cpu[n / 2] * 1e3,
		cpu[0] * 1e3, wall[n / 2] * 1e3, n,
		ein_kernel_get_schedule(k) ? ein_kernel_get_schedule(k) :
		"automatic");
	for (i = 0; i < nt; ++i)
		free(dl[i].data);
	free(cpu);
	free(src);
	ein_kernel_free(k);
	ein_program_free(p);
	ein_options_free(o);
	ein_ctx_free(ctx);
	return 0;
}
