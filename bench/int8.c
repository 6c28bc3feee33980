/*
 * int8.c: the int8 GEMM, C = A B with A uint8 (M x K), B int8 (K x N)
 * and C int32, ein's qgemm (bench/kernels.ein, with the schedule ein's
 * lookup finds: schedules/<target>/qgemm.sched, VNNI's vpdpbusd) against
 * oneDNN's u8 x s8 -> s32 matmul, on one thread.
 *
 * Both get their weights in their own layout, made once before the
 * timing as inference does: ein's B in VNNI's layout (K/4 x N x 4),
 * oneDNN's reordered by oneDNN.  Check: both results are exact int32
 * sums, so ein's must equal oneDNN's bit for bit (and, with --small,
 * the reference interpreter's).
 *
 * Without VNNI, oneDNN computes u8 x s8 with vpmaddubsw, whose sums of
 * two products saturate at 16 bits (oneDNN's documentation: use 7-bit
 * sources there): with A over all of 0..255, its C differed from the
 * exact one at 64^3 on a Zen 3 (42960 against 37563).  There A is drawn
 * from 0..127, where no pair of products can saturate (2 x 127 x 128 <
 * 2^15): both are exact again, and ein's AVX2 form (even and odd bytes
 * apart, two vpmaddwd: exact for any bytes) is no faster for it.
 */
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "onednn.h"
#include "rng.h"

/* A shape: C is m x n, the reduction is k long (a multiple of 4). */
struct shape {
	int64_t m, k, n;
};

static const struct shape full_shapes[] = {
	{ 1024, 1024, 1024 }, { 128, 768, 768 }, { 128, 3072, 768 },
	{ 128, 768, 3072 },
};

static const struct shape quick_shapes[] = { { 1024, 1024, 1024 } };

static const struct shape small_shapes[] = {
	{ 64, 64, 64 }, { 20, 280, 200 },
};

/* One case: the operands in both layouts, C from ein (0), oneDNN (1) and
 * the interpreter (2, with --small), ein's call and oneDNN's matmul. */
struct int8_case {
	struct shape s;
	uint8_t *a;
	int8_t *b, *bp;
	int32_t *c[3];
	DLTensor t[5];
	int64_t shape[5][3];
	struct bench_call call[2];
	struct bench_onednn_qgemm *dnn;
};

/* DLPack view "i" of "data": type code/bits, shape d0 x d1 (x d2). */
static DLTensor *view(struct int8_case *g, int i, void *data, uint8_t code,
	uint8_t bits, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
	DLTensor *t = &g->t[i];

	memset(t, 0, sizeof(*t));
	g->shape[i][0] = d0;
	g->shape[i][1] = d1;
	g->shape[i][2] = d2;
	t->data = data;
	t->ndim = ndim;
	t->shape = g->shape[i];
	t->device.device_type = kDLCPU;
	t->dtype.code = code;
	t->dtype.bits = bits;
	t->dtype.lanes = 1;
	return t;
}

/* Whether this CPU has VNNI (AVX-512's or AVX's), where oneDNN's int8
 * matmul is exact for any uint8 A. */
static int has_vnni(void)
{
	return __builtin_cpu_supports("avx512vnni") ||
		__builtin_cpu_supports("avxvnni");
}

/* Random A (7 bits without VNNI, above) and B, and B in VNNI's layout. */
static int case_alloc(struct int8_case *g, const struct shape *s)
{
	int64_t i, j, p, mk = s->m * s->k, kn = s->k * s->n;
	uint64_t seed = 8;
	uint8_t mask = has_vnni() ? 0xff : 0x7f;

	memset(g, 0, sizeof(*g));
	g->s = *s;
	g->a = aligned_alloc(64, (mk + 63) / 64 * 64);
	g->b = aligned_alloc(64, (kn + 63) / 64 * 64);
	g->bp = aligned_alloc(64, (kn + 63) / 64 * 64);
	for (i = 0; i < 3; ++i)
		g->c[i] = calloc(s->m * s->n, sizeof(int32_t));
	if (!g->a || !g->b || !g->bp || !g->c[0] || !g->c[1] || !g->c[2])
		return -1;
	for (i = 0; i < mk; ++i)
		g->a[i] = (uint8_t) (ein_rng_next(&seed) & mask);
	for (i = 0; i < kn; ++i)
		g->b[i] = (int8_t) ein_rng_next(&seed);
	for (p = 0; p < s->k; ++p)
		for (j = 0; j < s->n; ++j)
			g->bp[(p / 4 * s->n + j) * 4 + p % 4] =
				g->b[p * s->n + j];
	return 0;
}

static void case_free(struct int8_case *g)
{
	int i;

	bench_onednn_qgemm_free(g->dnn);
	free(g->a);
	free(g->b);
	free(g->bp);
	for (i = 0; i < 3; ++i)
		free(g->c[i]);
}

/* The call of "k" on the case's tensors into C number "out"; the sizes
 * in the kernel's order. */
static void make_call(struct bench_call *c, struct int8_case *g,
	ein_kernel *k, int out, int reference)
{
	int i;

	c->k = k;
	c->args[0] = view(g, 0, g->a, kDLUInt, 8, 3, g->s.m, g->s.k / 4, 4);
	c->args[1] = view(g, 1, g->bp, kDLInt, 8, 3, g->s.k / 4, g->s.n, 4);
	c->args[2] = view(g, 2 + out, g->c[out], kDLInt, 32, 2, g->s.m,
		g->s.n, 1);
	c->n_arg = 3;
	c->n_size = ein_kernel_n_size(k);
	for (i = 0; i < c->n_size; ++i) {
		const char *name = ein_kernel_get_size_name(k, i);

		c->sizes[i] = !strcmp(name, "M") ? g->s.m :
			!strcmp(name, "N") ? g->s.n : g->s.k / 4;
	}
	c->reference = reference;
}

/* Do C number "i" and number 0 agree?  Prints the first difference. */
static int same(const struct int8_case *g, int i, const char *who)
{
	int64_t e, n = g->s.m * g->s.n;

	for (e = 0; e < n; ++e)
		if (g->c[0][e] != g->c[i][e]) {
			fprintf(stderr, "bench: int8 %lldx%lldx%lld: ein's "
				"C[%lld] = %d, %s's %d\n", (long long) g->s.m,
				(long long) g->s.k, (long long) g->s.n,
				(long long) e, g->c[0][e], who, g->c[i][e]);
			return 0;
		}
	return 1;
}

/* Check, then time (unless --small) one shape; prints its row. */
static int run_case(struct bench_program *p, const struct bench_opts *o,
	struct int8_case *g)
{
	const char *names[3] = { "M", "K4", "N" };
	int64_t values[3] = { g->s.m, g->s.k / 4, g->s.n };
	double gop = 2e-9 * g->s.m * g->s.k * g->s.n;
	struct bench_variant v[2] = {
		{ "ein qgemm", NULL, NULL, 0 }, { "oneDNN int8", NULL, NULL, 0 }
	};
	char *path = NULL, b0[32], b1[32], b2[32], b3[32], b4[32];
	ein_kernel *k = bench_compile_lookup(p, "qgemm", o, 3, names, values,
		1, &path);
	int failed = 0;

	g->dnn = bench_onednn_qgemm_alloc(g->s.m, g->s.k, g->s.n, g->a,
		g->b, g->c[1]);
	if (!k) {
		fprintf(stderr, "bench: no schedule for qgemm (%s)\n",
			path ? path : "none found");
		free(path);
		return 1;
	}
	make_call(&g->call[0], g, k, 0, 0);
	make_call(&g->call[1], g, k, 2, 1);
	v[0].run = &bench_call_run;
	v[0].arg = &g->call[0];
	v[1].run = g->dnn ? &bench_onednn_qgemm_run : NULL;
	v[1].arg = g->dnn;
	if (bench_call_run(&g->call[0]) != 0)
		failed++;
	if (!failed && g->dnn && (bench_onednn_qgemm_run(g->dnn) != 0 ||
	    !same(g, 1, "oneDNN")))
		failed++;
	if (!failed && o->small && (bench_call_run(&g->call[1]) != 0 ||
	    !same(g, 2, "the interpreter")))
		failed++;
	if (!failed && !o->small)
		failed += bench_measure(v, 2, o);
	if (o->small)
		v[0].median = v[1].median = -1;
	printf("| %lld x %lld x %lld | 1 | %s | %s | %s | %s | %s | %s |\n",
		(long long) g->s.m, (long long) g->s.k, (long long) g->s.n,
		bench_cell(b0, sizeof(b0), v[0].median * 1e3, 3),
		bench_cell(b1, sizeof(b1), v[1].median * 1e3, 3),
		bench_cell(b2, sizeof(b2), v[0].median > 0 ?
			gop / v[0].median : -1, 0),
		bench_cell(b3, sizeof(b3), v[1].median > 0 ?
			gop / v[1].median : -1, 0),
		bench_cell(b4, sizeof(b4), v[0].median > 0 &&
			v[1].median > 0 ? v[1].median / v[0].median : -1, 2),
		path);
	free(path);
	ein_kernel_free(k);
	return failed;
}

int bench_int8(struct bench_program *p, const struct bench_opts *o)
{
	const struct shape *shapes = o->small ? small_shapes : o->quick ?
		quick_shapes : full_shapes;
	size_t n = o->small ? sizeof(small_shapes) / sizeof(*shapes) :
		o->quick ? sizeof(quick_shapes) / sizeof(*shapes) :
		sizeof(full_shapes) / sizeof(*shapes);
	struct int8_case g;
	size_t i;
	int failed = 0;

	printf("\n## int8 GEMM (u8 x s8 -> s32), one thread\n\n"
		"ein's qgemm with its schedule against oneDNN's int8 matmul "
		"(%s); ein/oneDNN is oneDNN's median time over ein's (above "
		"1: ein is faster).%s\n\n"
		"| M x K x N | threads | ein ms | oneDNN ms | ein GOP/s | "
		"oneDNN GOP/s | ein/oneDNN | ein schedule |\n"
		"|---|---|---|---|---|---|---|---|\n",
		bench_onednn_version() ? bench_onednn_version() : "absent",
		has_vnni() ? "" : "  This CPU has no VNNI: A is drawn from "
		"0..127, where oneDNN's vpmaddubsw cannot saturate (bench/"
		"int8.c).");
	bench_set_threads(1);
	for (i = 0; i < n; ++i) {
		if (case_alloc(&g, &shapes[i]) != 0) {
			fprintf(stderr, "bench: out of memory\n");
			failed++;
		} else {
			failed += run_case(p, o, &g);
		}
		case_free(&g);
	}
	return failed;
}
