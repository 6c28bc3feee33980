/*
 * memory.c: memory-bound kernels (softmax of rows, layer normalisation, a
 * fused bias + GELU) in GB/s against a STREAM-like triad, a[i] = b[i] +
 * s c[i] on arrays much larger than the last-level cache, timed in the
 * same groups (so that they see the same machine).
 *
 * GB/s counts the bytes a kernel must move at least: its inputs read
 * once and its outputs written once, as STREAM counts the triad's three
 * arrays (without the write-allocate traffic of a store).  The triad runs
 * twice: with plain stores, whose lines are read into the cache before
 * they are written (the bar of issue 5), and with non-temporal stores,
 * which are not: the bandwidth a kernel whose schedule streams its output
 * (docs/schedules.md, "stream") may reach.
 *
 * Check: each ein result is compared with a C loop in double precision,
 * with a relative tolerance that covers float32 rounding of the row's
 * sums (sqrt(length) FLT_EPSILON, 16 times) and of exp and erf.
 */
#include <float.h>
#include <math.h>
#if defined(__SSE__)
#include <immintrin.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

/* A memory-bound kernel: the definition in kernels.ein, its rows and
 * columns (its sizes, in order: N then M or D), its number of inputs
 * (the first is rows x cols, the others cols long) and the reference. */
struct mkernel {
	const char *def;
	int64_t rows, cols;
	int n_in;
	void (*reference)(const struct bench_tensor *in, double *out);
};

/* The triad on [lo, hi) of its arrays, with non-temporal stores if
 * "stream". */
struct triad {
	float *a, *b, *c;
	int64_t lo, hi;
	int threads;
	int stream;
};

static void softmax_ref(const struct bench_tensor *in, double *out)
{
	int64_t n = in[0].shape[0], m = in[0].shape[1], i, j;

	for (i = 0; i < n; ++i) {
		const float *x = in[0].f + i * m;
		double mx = -INFINITY, s = 0;

		for (j = 0; j < m; ++j)
			mx = fmax(mx, x[j]);
		for (j = 0; j < m; ++j)
			s += exp(x[j] - mx);
		for (j = 0; j < m; ++j)
			out[i * m + j] = exp(x[j] - mx) / s;
	}
}

static void layernorm_ref(const struct bench_tensor *in, double *out)
{
	int64_t n = in[0].shape[0], d = in[0].shape[1], i, j;

	for (i = 0; i < n; ++i) {
		const float *x = in[0].f + i * d;
		double mu = 0, var = 0;

		for (j = 0; j < d; ++j)
			mu += x[j];
		mu /= d;
		for (j = 0; j < d; ++j)
			var += (x[j] - mu) * (x[j] - mu);
		var /= d;
		for (j = 0; j < d; ++j)
			out[i * d + j] = (x[j] - mu) / sqrt(var + 1e-5) *
				in[1].f[j] + in[2].f[j];
	}
}

static void bias_gelu_ref(const struct bench_tensor *in, double *out)
{
	int64_t n = in[0].shape[0], d = in[0].shape[1], i, j;

	for (i = 0; i < n; ++i)
		for (j = 0; j < d; ++j) {
			double x = (double) in[0].f[i * d + j] + in[1].f[j];

			out[i * d + j] = 0.5 * x * (1 + erf(x * 0.70710678));
		}
}

static const struct mkernel full_kernels[] = {
	{ "softmax", 4096, 4096, 1, &softmax_ref },
	{ "layernorm", 4096, 1024, 3, &layernorm_ref },
	{ "bias_gelu", 65536, 1024, 2, &bias_gelu_ref },
};

static const struct mkernel quick_kernels[] = {
	{ "softmax", 2048, 4096, 1, &softmax_ref },
	{ "layernorm", 4096, 1024, 3, &layernorm_ref },
	{ "bias_gelu", 16384, 1024, 2, &bias_gelu_ref },
};

static const struct mkernel small_kernels[] = {
	{ "softmax", 33, 70, 1, &softmax_ref },
	{ "layernorm", 17, 65, 3, &layernorm_ref },
	{ "bias_gelu", 9, 100, 2, &bias_gelu_ref },
};

/* The triad in 4-float vectors (GCC vector extensions; memcpy makes the
 * unaligned loads and stores of a part's ends legal), so that the loop
 * is limited by memory and not by instructions even at -O2. */
typedef float v4 __attribute__((vector_size(16)));

/* The triad with non-temporal stores of 4 floats where a[i] is aligned
 * to 16 bytes (SSE's movntps; a plain loop elsewhere), then a fence that
 * orders them before the thread's join.  Returns the index it stopped
 * at. */
static int64_t triad_stream(const struct triad *t)
{
	int64_t i = t->lo;
#if defined(__SSE__)
	for (; i < t->hi && ((uintptr_t) (t->a + i) & 15); ++i)
		t->a[i] = t->b[i] + 3.0f * t->c[i];
	for (; i + 4 <= t->hi; i += 4) {
		v4 b, c, a;

		memcpy(&b, t->b + i, sizeof(b));
		memcpy(&c, t->c + i, sizeof(c));
		a = b + 3.0f * c;
		_mm_stream_ps(t->a + i, (__m128) a);
	}
	_mm_sfence();
#endif
	return i;
}

static void *triad_part(void *arg)
{
	const struct triad *t = arg;
	int64_t i = t->stream ? triad_stream(t) : t->lo;

	for (; i + 4 <= t->hi; i += 4) {
		v4 b, c, a;

		memcpy(&b, t->b + i, sizeof(b));
		memcpy(&c, t->c + i, sizeof(c));
		a = b + 3.0f * c;
		memcpy(t->a + i, &a, sizeof(a));
	}
	for (; i < t->hi; ++i)
		t->a[i] = t->b[i] + 3.0f * t->c[i];
	return NULL;
}

/* One triad on t->threads threads, each on a contiguous part. */
static int triad_run(void *arg)
{
	const struct triad *t = arg;
	struct triad part[t->threads];
	pthread_t tid[t->threads];
	int64_t n = t->hi;
	int i, started = 0;

	for (i = 0; i < t->threads; ++i) {
		part[i] = *t;
		part[i].lo = n * i / t->threads;
		part[i].hi = n * (i + 1) / t->threads;
		if (i > 0 && pthread_create(&tid[i], NULL, &triad_part,
			&part[i]) == 0)
			started++;
	}
	if (started != t->threads - 1)
		return -1;
	triad_part(&part[0]);
	for (i = 1; i <= started; ++i)
		pthread_join(tid[i], NULL);
	return 0;
}

/* One kernel's data: inputs, output of each ein kernel, the reference. */
struct mem_case {
	const struct mkernel *mk;
	struct bench_tensor in[3], out[2];
	double *ref;
	struct bench_call call[2];
};

static void set_call(struct bench_call *c, ein_kernel *k,
	struct mem_case *mc, int i)
{
	int j;

	c->k = k;
	for (j = 0; j < mc->mk->n_in; ++j)
		c->args[j] = &mc->in[j].dl;
	c->args[j] = &mc->out[i].dl;
	c->n_arg = mc->mk->n_in + 1;
	c->sizes[0] = mc->mk->rows;
	c->sizes[1] = mc->mk->cols;
	c->n_size = 2;
}

static int case_alloc(struct mem_case *mc, const struct mkernel *mk,
	const struct bench_kernel *k)
{
	int64_t s2[2] = { mk->rows, mk->cols }, s1[1] = { mk->cols };
	int i;

	mc->mk = mk;
	for (i = 0; i < mk->n_in; ++i) {
		if (bench_tensor_alloc(&mc->in[i], i ? 1 : 2, i ? s1 : s2))
			return -1;
		bench_tensor_fill(&mc->in[i], 10 + i);
	}
	for (i = 0; i < 2; ++i)
		if (bench_tensor_alloc(&mc->out[i], 2, s2))
			return -1;
	mc->ref = malloc(mc->out[0].n * sizeof(double));
	if (!mc->ref)
		return -1;
	mk->reference(mc->in, mc->ref);
	set_call(&mc->call[0], k->dflt, mc, 0);
	if (k->sched)
		set_call(&mc->call[1], k->sched, mc, 1);
	return 0;
}

static void case_free(struct mem_case *mc)
{
	int i;

	for (i = 0; i < 3; ++i)
		bench_tensor_free(&mc->in[i]);
	for (i = 0; i < 2; ++i)
		bench_tensor_free(&mc->out[i]);
	free(mc->ref);
}

/* Run ein kernel "i" once and compare its output with the reference. */
static int check(struct mem_case *mc, int i, double *err)
{
	int64_t n = mc->out[i].n;
	double rtol = 16 * sqrt(mc->mk->cols) * FLT_EPSILON, d;

	memset(mc->out[i].f, 0xff, n * sizeof(float));
	if (bench_call_run(&mc->call[i]) != 0) {
		fprintf(stderr, "bench: %s failed\n", mc->mk->def);
		return 1;
	}
	if (bench_compare(mc->out[i].f, mc->ref, n, rtol, 1e-6, &d)) {
		fprintf(stderr, "bench: %s (%s): error %g beyond %g |ref| + "
			"1e-6\n", mc->mk->def, i ? "schedule" : "default", d,
			rtol);
		return 1;
	}
	*err = fmax(*err, d);
	return 0;
}

static int row(struct mem_case *mc, struct triad *triad, int threads,
	int n_ein, const struct bench_opts *o)
{
	const struct mkernel *mk = mc->mk;
	struct triad nt = *triad;
	struct bench_variant v[4] = {
		{ "triad", &triad_run, triad, -1 },
		{ "ein default", &bench_call_run, &mc->call[0], -1 },
		{ "ein schedule", &bench_call_run, &mc->call[1], -1 },
		{ "triad (non-temporal stores)", &triad_run, &nt, -1 },
	};
	double bytes = 4.0 * (2 * mk->rows * mk->cols +
		(mk->n_in - 1) * mk->cols);
	double err = 0, gbs[4], best;
	char b[8][32];
	int i, failed = 0;

	bench_set_threads(threads);
	triad->threads = nt.threads = threads;
	nt.stream = 1;
	for (i = 0; i < n_ein; ++i)
		failed += check(mc, i, &err);
	if (n_ein == 1)
		v[2].run = NULL;
	if (!o->small && !failed)
		failed += bench_measure(v, 4, o);
	for (i = 0; i < 4; ++i)
		gbs[i] = v[i].median > 0 ? bytes / v[i].median * 1e-9 : -1;
	gbs[0] = v[0].median > 0 ? 12.0 * triad->hi / v[0].median * 1e-9 : -1;
	gbs[3] = v[3].median > 0 ? 12.0 * triad->hi / v[3].median * 1e-9 : -1;
	best = fmax(gbs[1], gbs[2]);
	printf("| %s | %lldx%lld | %d | %s | %s | %s | %s | %s | %s | %s | "
		"%s | %.1e |\n",
		mk->def, (long long) mk->rows, (long long) mk->cols, threads,
		bench_cell(b[0], 32, v[1].median > 0 ? 1e3 * v[1].median : -1,
			2),
		bench_cell(b[1], 32, v[2].median > 0 ? 1e3 * v[2].median : -1,
			2),
		bench_cell(b[2], 32, gbs[1], 1), bench_cell(b[3], 32, gbs[2], 1),
		bench_cell(b[4], 32, gbs[0], 1),
		bench_cell(b[5], 32, best > 0 && gbs[0] > 0 ?
			100 * best / gbs[0] : -1, 0),
		bench_cell(b[6], 32, gbs[3], 1),
		bench_cell(b[7], 32, best > 0 && gbs[3] > 0 ?
			100 * best / gbs[3] : -1, 0), err);
	fflush(stdout);
	return failed;
}

/* The triad's arrays: n floats each. */
static int triad_alloc(struct triad *t, int64_t n)
{
	struct bench_tensor x;
	float **arr[3] = { &t->a, &t->b, &t->c };
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < 3; ++i) {
		if (bench_tensor_alloc(&x, 1, &n))
			return -1;
		bench_tensor_fill(&x, 20 + i);
		*arr[i] = x.f;
	}
	t->hi = n;
	t->threads = 1;
	return 0;
}

int bench_memory(struct bench_program *p, const struct bench_opts *o)
{
	const struct mkernel *mks = o->small ? small_kernels :
		o->quick ? quick_kernels : full_kernels;
	int64_t triad_n = o->small ? 1024 : o->quick ? 1 << 24 : 1 << 25;
	struct bench_kernel k[3];
	struct triad triad;
	int i, t, failed = 0;

	for (i = 0; i < 3; ++i)
		if (bench_kernel_compile(&k[i], p, mks[i].def, o) != 0)
			failed++;
	if (triad_alloc(&triad, triad_n) != 0)
		failed++;
	printf("\n### Memory-bound kernels\n\n");
	printf("ein: `softmax`, `layernorm`, `bias_gelu` of "
		"bench/kernels.ein.  ");
	bench_print_schedules(k, failed ? 0 : 3);
	printf("  With a schedule, each kernel is compiled for its sizes "
		"(ein_options_fix_size); the default, for any sizes.");
	printf("  GB/s: the bytes of the inputs and outputs, each moved "
		"once, per second; triad: a[i] = b[i] + 3 c[i] on three "
		"arrays of %lld floats (12 bytes per element), timed "
		"interleaved with each kernel, with plain stores and with "
		"non-temporal stores (NT: no read of a line before it is "
		"written, as a schedule's `stream` does).\n\n",
		(long long) triad_n);
	printf("| kernel | size | threads | ein default ms | ein schedule ms | "
		"ein default GB/s | ein schedule GB/s | triad GB/s | "
		"ein best %% of triad | triad NT GB/s | ein best %% of triad "
		"NT | max abs error |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; !failed && i < 3; ++i) {
		struct mem_case mc = { 0 };
		int64_t sizes[2] = { mks[i].rows, mks[i].cols };

		if (bench_kernel_fix(&k[i], p, sizes) != 0) {
			failed++;
		} else if (case_alloc(&mc, &mks[i], &k[i]) != 0) {
			fprintf(stderr, "bench: out of memory\n");
			failed++;
		} else {
			for (t = 1; t <= o->max_threads; ++t)
				failed += row(&mc, &triad, t,
					k[i].sched ? 2 : 1, o);
		}
		case_free(&mc);
	}
	for (i = 0; i < 3; ++i)
		bench_kernel_free(&k[i]);
	free(triad.a);
	free(triad.b);
	free(triad.c);
	return failed;
}
