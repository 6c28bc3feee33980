/*
 * stream_align.c: a streamed kernel (the `stream` directive) on an output
 * aligned to 64 bytes and on the same output 16 bytes further (numpy's
 * alignment), timed in interleaved rounds on one thread; prints the
 * median of each and their ratio.  Built and run by bench/stream_align.sh
 * (docs/performance.md, "Streamed stores on unaligned outputs").
 *
 *     stream_align FILE.ein DEF SCHEDULE ROWS COLS N_INPUTS ROUNDS
 *
 * The definition takes a ROWS x COLS input, then N_INPUTS - 1 vectors of
 * COLS, and writes one ROWS x COLS output; it is compiled for those sizes
 * (ein_options_fix_size), as `ein compile --fix-sizes` does.  Both
 * outputs are checked against the reference interpreter first.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ein.h"

#define MAX_ARGS 4

/* One call of the kernel: its tensors, the output at "offset" bytes from
 * a 64-byte aligned allocation. */
struct call {
	DLTensor t[MAX_ARGS];
	DLTensor *arg[MAX_ARGS];
	int64_t shape[MAX_ARGS][2];
	void *mem[MAX_ARGS];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Tensor "i" of "c": rows x cols (a vector of cols if rows is 0), at
 * "offset" bytes into a 64-byte aligned block, filled from "seed". */
static int tensor(struct call *c, int i, int64_t rows, int64_t cols,
	int offset, unsigned seed)
{
	int64_t n = (rows ? rows : 1) * cols, k;
	float *f;

	if (posix_memalign(&c->mem[i], 64, n * sizeof(float) + 64))
		return -1;
	f = (float *) ((char *) c->mem[i] + offset);
	srand(seed);
	for (k = 0; k < n; ++k)
		f[k] = (float) rand() / RAND_MAX * 2 - 1;
	c->shape[i][0] = rows ? rows : cols;
	c->shape[i][1] = cols;
	c->t[i] = (DLTensor) { .data = c->mem[i], .byte_offset = offset,
		.ndim = rows ? 2 : 1, .shape = c->shape[i],
		.device = { kDLCPU, 0 }, .dtype = { kDLFloat, 32, 1 } };
	c->arg[i] = &c->t[i];
	return 0;
}

static int call_alloc(struct call *c, int64_t rows, int64_t cols,
	int n_in, int offset)
{
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n_in; ++i)
		if (tensor(c, i, i ? 0 : rows, cols, 0, 1 + i))
			return -1;
	return tensor(c, n_in, rows, cols, offset, 99);
}

static void call_free(struct call *c, int n)
{
	int i;

	for (i = 0; i < n; ++i)
		free(c->mem[i]);
}

/* The largest |got - want| / (1 + |want|) over the output of "c", run by
 * the kernel and by the reference interpreter "ref" on "r". */
static double check(ein_kernel *k, ein_kernel *ref, struct call *c,
	struct call *r, int n, const int64_t *sizes)
{
	const float *got = (const float *) ((char *) c->t[n - 1].data +
		c->t[n - 1].byte_offset);
	const float *want = (const float *) r->t[n - 1].data;
	int64_t i, m = c->shape[n - 1][0] * c->shape[n - 1][1];
	double worst = 0;

	if (ein_kernel_call(k, c->arg, n, sizes, 2) != EIN_OK ||
	    ein_kernel_call_reference(ref, r->arg, n, sizes, 2) != EIN_OK)
		return INFINITY;
	for (i = 0; i < m; ++i)
		worst = fmax(worst, fabs(got[i] - want[i]) / (1 + fabs(want[i])));
	return worst;
}

/* The time of "reps" calls of "k" on "c", per call. */
static double sample(ein_kernel *k, struct call *c, int n,
	const int64_t *sizes, int reps)
{
	double t0 = now();
	int i;

	for (i = 0; i < reps; ++i)
		if (ein_kernel_call(k, c->arg, n, sizes, 2) != EIN_OK)
			return -1;
	return (now() - t0) / reps;
}

static ein_kernel *compile(ein_program *prog, const char *def,
	const char *sched, const int64_t *sizes)
{
	ein_options *o = ein_options_alloc();
	ein_kernel *k = NULL;

	if (o && ein_options_set_schedule(o, sched) == EIN_OK &&
	    ein_options_fix_size(o, ein_program_get_size_name(prog, def, 0),
		sizes[0]) == EIN_OK &&
	    ein_options_fix_size(o, ein_program_get_size_name(prog, def, 1),
		sizes[1]) == EIN_OK)
		k = ein_kernel_compile_with(prog, def, o);
	ein_options_free(o);
	return k;
}

int main(int argc, char **argv)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k, *ref;
	struct call c[2], r;
	int64_t sizes[2];
	int n_in, rounds, i, v, reps;
	double *t[2], med[2];

	if (argc != 8) {
		fprintf(stderr, "usage: stream_align FILE.ein DEF SCHEDULE "
			"ROWS COLS N_INPUTS ROUNDS\n");
		return 2;
	}
	sizes[0] = atoll(argv[4]);
	sizes[1] = atoll(argv[5]);
	n_in = atoi(argv[6]);
	rounds = atoi(argv[7]);
	prog = ein_program_read_file(ctx, argv[1]);
	k = prog ? compile(prog, argv[2], argv[3], sizes) : NULL;
	ref = prog ? ein_kernel_reference(prog, argv[2]) : NULL;
	if (!k || !ref || n_in + 1 > MAX_ARGS || rounds < 1) {
		fprintf(stderr, "stream_align: %s with %s: %s\n", argv[2],
			argv[3], *ein_ctx_last_error(ctx) ?
			ein_ctx_last_error(ctx) : "cannot be compiled");
		return 1;
	}
	ein_set_num_threads(1);
	t[0] = calloc(rounds, sizeof(double));
	t[1] = calloc(rounds, sizeof(double));
	if (call_alloc(&c[0], sizes[0], sizes[1], n_in, 0) ||
	    call_alloc(&c[1], sizes[0], sizes[1], n_in, 16) ||
	    call_alloc(&r, sizes[0], sizes[1], n_in, 0) || !t[0] || !t[1])
		return 1;
	for (v = 0; v < 2; ++v) {
		double err = check(k, ref, &c[v], &r, n_in + 1, sizes);

		if (!(err <= 1e-4)) {
			fprintf(stderr, "stream_align: %s at offset %d: error "
				"%g\n", argv[2], v ? 16 : 0, err);
			return 1;
		}
	}
	reps = (int) ceil(0.05 / sample(k, &c[0], n_in + 1, sizes, 1));
	for (i = 0; i < rounds; ++i)
		for (v = 0; v < 2; ++v)
			t[v][i] = sample(k, &c[v], n_in + 1, sizes, reps);
	for (v = 0; v < 2; ++v) {
		qsort(t[v], rounds, sizeof(double), &cmp);
		med[v] = t[v][rounds / 2];
	}
	printf("%s %lldx%lld: aligned %.3f ms, offset 16 %.3f ms, "
		"unaligned/aligned %.2f (medians of %d interleaved rounds "
		"of %d calls)\n", argv[2], (long long) sizes[0],
		(long long) sizes[1], 1e3 * med[0], 1e3 * med[1],
		med[1] / med[0], rounds, reps);
	call_free(&c[0], n_in + 1);
	call_free(&c[1], n_in + 1);
	call_free(&r, n_in + 1);
	free(t[0]);
	free(t[1]);
	ein_kernel_free(ref);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
	return 0;
}
