/*
 * gemm.c: SGEMM, row-major C = A B, ein (default schedule, and the
 * schedule ein's lookup finds for each shape among
 * bench/schedules/<target>/matmul[.*].sched, or else among the installed
 * schedules/<target>/matmul[.*].sched) against OpenBLAS's cblas_sgemm
 * on 1 and 2 threads.
 *
 * Check: every ein result is compared with OpenBLAS's at the same size.
 * Both sum K float32 products in some order; their rounding errors grow
 * like sqrt(K) FLT_EPSILON times the size of the sums, and the check
 * allows 16 times that (relative to the largest |C| + 1), far below the
 * error of a skipped or repeated product (inputs lie in [-1, 1)).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "bench.h"

/* A shape: C is m x n, the reduction is k long. */
struct shape {
	int64_t m, k, n;
};

static const struct shape full_shapes[] = {
	{ 256, 256, 256 }, { 512, 512, 512 }, { 1024, 1024, 1024 },
	{ 2048, 2048, 2048 }, { 127, 255, 511 }, { 128, 768, 768 },
	{ 128, 3072, 768 }, { 128, 768, 3072 }, { 4096, 64, 64 },
	{ 1, 4096, 4096 },
};

static const struct shape quick_shapes[] = {
	{ 256, 256, 256 }, { 1024, 1024, 1024 }, { 127, 255, 511 },
	{ 128, 768, 768 }, { 4096, 64, 64 }, { 1, 4096, 4096 },
};

static const struct shape small_shapes[] = {
	{ 64, 64, 64 }, { 13, 17, 19 }, { 1, 130, 70 }, { 130, 9, 3 },
};

/* One case: the operands, and C from each implementation (0: ein's
 * default schedule, 1: ein's schedule file, 2: OpenBLAS). */
struct gemm_case {
	struct shape s;
	struct bench_tensor a, b, c[3];
	struct bench_call call[2];
};

static int blas_run(void *arg)
{
	struct gemm_case *g = arg;

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->s.m, g->s.n,
		g->s.k, 1.0f, g->a.f, g->s.k, g->b.f, g->s.n, 0.0f, g->c[2].f,
		g->s.n);
	return 0;
}

static int case_alloc(struct gemm_case *g, const struct shape *s,
	const struct bench_kernel *k, ein_kernel *sched)
{
	int64_t sa[2] = { s->m, s->k }, sb[2] = { s->k, s->n };
	int64_t sc[2] = { s->m, s->n };
	int i;

	g->s = *s;
	if (bench_tensor_alloc(&g->a, 2, sa) || bench_tensor_alloc(&g->b, 2, sb))
		return -1;
	for (i = 0; i < 3; ++i)
		if (bench_tensor_alloc(&g->c[i], 2, sc))
			return -1;
	bench_tensor_fill(&g->a, 1);
	bench_tensor_fill(&g->b, 2);
	for (i = 0; i < 2; ++i) {
		struct bench_call *c = &g->call[i];

		c->k = i == 0 ? k->dflt : sched;
		c->args[0] = &g->a.dl;
		c->args[1] = &g->b.dl;
		c->args[2] = &g->c[i].dl;
		c->n_arg = 3;
		/* matmul's sizes in order of appearance: M, K, N */
		c->sizes[0] = s->m;
		c->sizes[1] = s->k;
		c->sizes[2] = s->n;
		c->n_size = 3;
	}
	return 0;
}

static void case_free(struct gemm_case *g)
{
	int i;

	bench_tensor_free(&g->a);
	bench_tensor_free(&g->b);
	for (i = 0; i < 3; ++i)
		bench_tensor_free(&g->c[i]);
}

/* Run each implementation once and compare ein's results with
 * OpenBLAS's; the number of failures, the largest error in *err. */
static int check(struct gemm_case *g, ein_ctx *ctx, int n_ein,
	double *err)
{
	int64_t n = g->s.m * g->s.n, e;
	double scale = 1, tol, d;
	int i, failed = 0;

	blas_run(g);
	for (e = 0; e < n; ++e)
		scale = fmax(scale, fabs(g->c[2].f[e]) + 1);
	tol = 16 * sqrt(g->s.k) * FLT_EPSILON * scale;
	*err = 0;
	for (i = 0; i < n_ein; ++i) {
		if (bench_call_run(&g->call[i]) != 0) {
			fprintf(stderr, "bench: matmul %s failed: %s\n",
				i ? "schedule" : "default",
				ein_ctx_last_error(ctx));
			failed++;
			continue;
		}
		if (bench_compare_f(g->c[i].f, g->c[2].f, n, 0, tol, &d)) {
			fprintf(stderr, "bench: matmul %lldx%lldx%lld (%s): "
				"max |error| %g > %g\n", (long long) g->s.m,
				(long long) g->s.k, (long long) g->s.n,
				i ? "schedule" : "default", d, tol);
			failed++;
		}
		*err = fmax(*err, d);
	}
	return failed;
}

/* Check, time and print one row of the table.  The variants: OpenBLAS,
 * the FMA loop, ein's kernels. */
static int row(struct gemm_case *g, ein_ctx *ctx, int threads, int n_ein,
	const char *file, const struct bench_opts *o)
{
	struct bench_peak pk;
	struct bench_variant v[4] = {
		{ "cblas_sgemm", &blas_run, g, -1 },
		{ "FMA peak", &bench_peak_run, &pk, -1 },
		{ "ein matmul (default)", &bench_call_run, &g->call[0], -1 },
		{ "ein matmul (schedule)", &bench_call_run, &g->call[1], -1 },
	};
	double gflop = 2e-9 * g->s.m * g->s.n * g->s.k, err, gf[4], best;
	char b[7][32];
	int i, failed;

	bench_set_threads(threads);
	bench_peak_init(&pk, threads, o->sample_s / 4);
	failed = check(g, ctx, n_ein, &err);
	if (n_ein == 1)
		v[3].run = NULL;
	if (!o->small && !failed)
		failed += bench_measure(v, 4, o);
	for (i = 0; i < 4; ++i)
		gf[i] = v[i].median > 0 ? gflop / v[i].median : -1;
	gf[1] = bench_peak_gflops(&pk, v[1].median);
	best = fmax(gf[2], gf[3]);
	printf("| %lldx%lldx%lld | %d | %s | %s | %s | %s | %s | %s | %s | %s | "
		"%.1e |\n", (long long) g->s.m, (long long) g->s.k,
		(long long) g->s.n, threads, file, bench_cell(b[0], 32, gf[2], 1),
		bench_cell(b[1], 32, gf[3], 1), bench_cell(b[2], 32, gf[0], 1),
		bench_cell(b[3], 32, gf[2] > 0 && gf[0] > 0 ?
			gf[2] / gf[0] : -1, 2),
		bench_cell(b[4], 32, gf[3] > 0 && gf[0] > 0 ?
			gf[3] / gf[0] : -1, 2),
		bench_cell(b[5], 32, gf[1], 1),
		bench_cell(b[6], 32, best > 0 && gf[1] > 0 ?
			100 * best / gf[1] : -1, 0), err);
	fflush(stdout);
	return failed;
}

int bench_gemm(struct bench_program *p, const struct bench_opts *o)
{
	const struct shape *shapes = o->small ? small_shapes :
		o->quick ? quick_shapes : full_shapes;
	int n_shape = o->small ? 4 : o->quick ? 6 : 10;
	struct bench_kernel k;
	int i, t, failed = 0;

	if (bench_kernel_compile(&k, p, "matmul", o) != 0) {
		bench_kernel_free(&k);
		return 1;
	}
	printf("\n### SGEMM, row-major C = A B (M x K x N)\n\n");
	printf("ein: `matmul` of bench/kernels.ein.  Schedules: for each "
		"shape, the one ein's lookup chooses (nearest sizes) among "
		"bench/schedules/<target>/matmul[.*].sched, or else the "
		"installed schedules/<target>/matmul[.*].sched, compiled for "
		"the shape (ein_options_fix_size); the default schedule for any "
		"shape.  GFLOP/s = 2 M N K "
		"/ median time.\n\n");
	printf("| M x K x N | threads | schedule | ein default GFLOP/s | "
		"ein schedule GFLOP/s | OpenBLAS GFLOP/s | default/OpenBLAS | "
		"schedule/OpenBLAS | FMA peak GFLOP/s | ein best %% of peak | "
		"max abs error |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n_shape; ++i) {
		struct gemm_case g = { 0 };
		static const char *const names[3] = { "M", "K", "N" };
		int64_t values[3] = { shapes[i].m, shapes[i].k, shapes[i].n };
		char *path;
		ein_kernel *sched = bench_compile_lookup(p, "matmul", o, 3,
			names, values, 1, &path);
		const char *base = path ? strrchr(path, '/') : NULL;

		if (path && !sched) {
			failed++;
		} else if (case_alloc(&g, &shapes[i], &k, sched) != 0) {
			fprintf(stderr, "bench: out of memory\n");
			failed++;
		} else {
			for (t = 1; t <= o->max_threads; ++t)
				failed += row(&g, p->ctx, t, sched ? 2 : 1,
					base ? base + 1 : "none", o);
		}
		case_free(&g);
		ein_kernel_free(sched);
		free(path);
	}
	bench_kernel_free(&k);
	return failed;
}
