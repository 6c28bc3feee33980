/*
 * check_kernels.c: compiled kernels against OpenBLAS, plain C loops and the
 * reference interpreter.
 *
 * Floating-point bounds are the classical ones, not tuned tolerances: a sum
 * of K products computed in float32 in any order is within
 * K * FLT_EPSILON * sum |a_k b_k| of the exact value, so two such sums are
 * within twice that of each other.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include <cblas.h>
#include "ein.h"
#include "testutil.h"
#include "rng.h"

static const char matmul_src[] =
	"def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
	"    C(i, j) +=! A(i, k) * B(k, j)\n"
	"}\n";

/* Check C against cblas_sgemm on the same inputs, element by element,
 * with the bound of the head comment. */
static void check_matmul(ein_kernel *k, int64_t m, int64_t n, int64_t kk)
{
	struct tt a, b, c, ref;
	int64_t sizes[3] = { m, kk, n }, i, j, p;
	DLTensor *args[3] = { &a.dl, &b.dl, &c.dl };

	tt_alloc(&a, 2, (int64_t[]) { m, kk });
	tt_alloc(&b, 2, (int64_t[]) { kk, n });
	tt_alloc(&c, 2, (int64_t[]) { m, n });
	tt_alloc(&ref, 2, (int64_t[]) { m, n });
	tt_randomize(&a, 1);
	tt_randomize(&b, 2);
	ck_assert_int_eq(ein_kernel_call(k, args, 3, sizes, 3), EIN_OK);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, kk, 1.0f,
		a.f, kk, b.f, n, 0.0f, ref.f, n);
	for (i = 0; i < m; ++i)
		for (j = 0; j < n; ++j) {
			double abs_sum = 0, err;

			for (p = 0; p < kk; ++p)
				abs_sum += fabs((double) a.f[i * kk + p] *
					b.f[p * n + j]);
			err = fabs((double) c.f[i * n + j] - ref.f[i * n + j]);
			ck_assert_msg(err <= 2 * kk * FLT_EPSILON * abs_sum,
				"C(%lld, %lld) = %g, OpenBLAS %g (%lldx%lldx"
				"%lld)", (long long) i, (long long) j,
				c.f[i * n + j], ref.f[i * n + j],
				(long long) m, (long long) n, (long long) kk);
		}
	tt_free(&a);
	tt_free(&b);
	tt_free(&c);
	tt_free(&ref);
}

static const int64_t matmul_sizes[][3] = {
	{ 1, 1, 1 }, { 7, 13, 5 }, { 127, 255, 63 }, { 64, 64, 64 },
	{ 1, 300, 17 }, { 300, 1, 17 }, { 256, 256, 256 }, { 200, 384, 512 },
};

START_TEST(matmul_vs_openblas)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, matmul_src, "matmul");
	const int64_t *s = matmul_sizes[_i];

	check_matmul(k, s[0], s[1], s[2]);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(matvec_vs_loop)
{
	static const char src[] =
		"def matvec(float32(M, N) A, float32(N) x) -> (y) {\n"
		"    y(i) +=! A(i, j) * x(j)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t m = 77, n = 131, sizes[2] = { m, n }, i, j;
	struct tt a, x, y;
	DLTensor *args[3] = { &a.dl, &x.dl, &y.dl };

	tt_alloc(&a, 2, (int64_t[]) { m, n });
	tt_alloc(&x, 1, &n);
	tt_alloc(&y, 1, &m);
	tt_randomize(&a, 3);
	tt_randomize(&x, 4);
	ck_assert_int_eq(ein_kernel_call(k, args, 3, sizes, 2), EIN_OK);
	for (i = 0; i < m; ++i) {
		float s = 0;
		double abs_sum = 0;

		for (j = 0; j < n; ++j) {
			s += a.f[i * n + j] * x.f[j];
			abs_sum += fabs((double) a.f[i * n + j] * x.f[j]);
		}
		ck_assert(fabs((double) y.f[i] - s) <=
			2 * n * FLT_EPSILON * abs_sum);
	}
	tt_free(&a);
	tt_free(&x);
	tt_free(&y);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(add_vs_loop)
{
	static const char src[] =
		"def add(float32(M, N) A, float32(M, N) B) -> (C) {\n"
		"    C(i, j) = A(i, j) + B(i, j)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t m = 33, n = 1001, sizes[2] = { m, n }, i;
	struct tt a, b, c;
	DLTensor *args[3] = { &a.dl, &b.dl, &c.dl };

	tt_alloc(&a, 2, (int64_t[]) { m, n });
	tt_alloc(&b, 2, (int64_t[]) { m, n });
	tt_alloc(&c, 2, (int64_t[]) { m, n });
	tt_randomize(&a, 5);
	tt_randomize(&b, 6);
	ck_assert_int_eq(ein_kernel_call(k, args, 3, sizes, 2), EIN_OK);
	/* One correctly rounded addition: the results are identical. */
	for (i = 0; i < m * n; ++i)
		ck_assert(c.f[i] == a.f[i] + b.f[i]);
	tt_free(&a);
	tt_free(&b);
	tt_free(&c);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(sum_vs_loop)
{
	static const char src[] =
		"def total(float32(M, N) A) -> (s) {\n"
		"    s() +=! A(i, j)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t m = 64, n = 250, sizes[2] = { m, n }, i;
	struct tt a, s;
	DLTensor *args[2] = { &a.dl, &s.dl };
	double exact = 0, abs_sum = 0;

	tt_alloc(&a, 2, (int64_t[]) { m, n });
	tt_alloc(&s, 0, NULL);
	tt_randomize(&a, 7);
	ck_assert_int_eq(ein_kernel_call(k, args, 2, sizes, 2), EIN_OK);
	for (i = 0; i < m * n; ++i) {
		exact += a.f[i];
		abs_sum += fabs(a.f[i]);
	}
	ck_assert_msg(fabs(s.f[0] - exact) <= m * n * FLT_EPSILON * abs_sum,
		"sum %g, exact %g", s.f[0], exact);
	tt_free(&a);
	tt_free(&s);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(transpose_vs_loop)
{
	static const char src[] =
		"def transpose(float32(M, N) A) -> (B) {\n"
		"    B(j, i) = A(i, j)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t m = 37, n = 53, sizes[2] = { m, n }, i, j;
	struct tt a, b;
	DLTensor *args[2] = { &a.dl, &b.dl };

	tt_alloc(&a, 2, (int64_t[]) { m, n });
	tt_alloc(&b, 2, (int64_t[]) { n, m });
	tt_randomize(&a, 8);
	ck_assert_int_eq(ein_kernel_call(k, args, 2, sizes, 2), EIN_OK);
	for (i = 0; i < m; ++i)
		for (j = 0; j < n; ++j)
			ck_assert(b.f[j * m + i] == a.f[i * n + j]);
	tt_free(&a);
	tt_free(&b);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Reproducible values in lo .. lo + span - 1. */
static int64_t small_random(uint64_t *seed, int64_t lo, int64_t span)
{
	return lo + (int64_t) (ein_rng_next(seed) % (uint64_t) span);
}

/* An int8 matmul accumulating in int32 equals the C loop exactly, in the
 * compiled kernel and in the reference interpreter, including sums that
 * wrap around. */
START_TEST(qmatmul_vs_loop)
{
	static const char src[] =
		"def qmatmul(int8(M, K) A, int8(K, N) B) -> (int32(M, N) C) {\n"
		"    C(i, j) +=! A(i, k) * B(k, j)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t m = 37, n = 45, kk = 300, sizes[3] = { m, kk, n }, i, j, p;
	uint64_t seed = 11;
	struct anyt a, b, c, r;
	DLTensor *args[3] = { &a.dl, &b.dl, &c.dl };
	DLTensor *rargs[3] = { &a.dl, &b.dl, &r.dl };
	int8_t *pa, *pb;

	anyt_alloc(&a, kDLInt, 8, 2, (int64_t[]) { m, kk });
	anyt_alloc(&b, kDLInt, 8, 2, (int64_t[]) { kk, n });
	anyt_alloc(&c, kDLInt, 32, 2, (int64_t[]) { m, n });
	anyt_alloc(&r, kDLInt, 32, 2, (int64_t[]) { m, n });
	pa = a.dl.data;
	pb = b.dl.data;
	for (i = 0; i < a.n; ++i)
		pa[i] = (int8_t) small_random(&seed, -128, 256);
	for (i = 0; i < b.n; ++i)
		pb[i] = (int8_t) small_random(&seed, -128, 256);
	ck_assert_int_eq(ein_kernel_call(k, args, 3, sizes, 3), EIN_OK);
	ck_assert_int_eq(ein_kernel_call_reference(k, rargs, 3, sizes, 3),
		EIN_OK);
	for (i = 0; i < m; ++i)
		for (j = 0; j < n; ++j) {
			int32_t s = 0;

			for (p = 0; p < kk; ++p)
				s += pa[i * kk + p] * pb[p * n + j];
			ck_assert_int_eq(((int32_t *) c.dl.data)[i * n + j], s);
			ck_assert_int_eq(((int32_t *) r.dl.data)[i * n + j], s);
		}
	free(a.dl.data);
	free(b.dl.data);
	free(c.dl.data);
	free(r.dl.data);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Integer division and remainder truncate towards zero; by zero they give
 * 0; INT32_MIN / -1 wraps; sums wrap. */
static int32_t c_div(int32_t a, int32_t b)
{
	if (b == 0)
		return 0;
	return b == -1 ? (int32_t) (0u - (uint32_t) a) : a / b;
}

static int32_t c_rem(int32_t a, int32_t b)
{
	return b == 0 || b == -1 ? 0 : a % b;
}

START_TEST(int_division_vs_loop)
{
	static const char src[] =
		"def idiv(int32(N) A, int32(N) B) -> (Q, R, S) {\n"
		"    Q(i) = A(i) / B(i)\n"
		"    R(i) = A(i) % B(i)\n"
		"    S(i) = A(i) + B(i) * 65536\n"
		"}\n";
	static const int32_t av[] = { 7, -7, 7, -7, 5, INT32_MIN, INT32_MIN,
		INT32_MAX, 0, 12345 };
	static const int32_t bv[] = { 2, 2, -2, -2, 0, -1, 0, 65536, 0, -1 };
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t n = 10, i;
	int t, ref;
	struct anyt x[5];
	DLTensor *args[5];

	for (ref = 0; ref < 2; ++ref) {
		for (t = 0; t < 5; ++t) {
			anyt_alloc(&x[t], kDLInt, 32, 1, &n);
			args[t] = &x[t].dl;
		}
		memcpy(x[0].dl.data, av, sizeof(av));
		memcpy(x[1].dl.data, bv, sizeof(bv));
		ck_assert_int_eq(ref ? ein_kernel_call_reference(k, args, 5,
			&n, 1) : ein_kernel_call(k, args, 5, &n, 1), EIN_OK);
		for (i = 0; i < n; ++i) {
			int32_t *q = x[2].dl.data, *r = x[3].dl.data;
			int32_t *s = x[4].dl.data;

			ck_assert_int_eq(q[i], c_div(av[i], bv[i]));
			ck_assert_int_eq(r[i], c_rem(av[i], bv[i]));
			ck_assert_int_eq(s[i], (int32_t) ((uint32_t) av[i] +
				(uint32_t) bv[i] * 65536u));
		}
		for (t = 0; t < 5; ++t)
			free(x[t].dl.data);
	}
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A bool mask selects values, and comparisons make bools; a bool tensor
 * is one byte per element. */
START_TEST(bool_mask_vs_loop)
{
	static const char src[] =
		"def mask(float32(N) X, bool(N) M) -> (Y, P) {\n"
		"    Y(i) = M(i) ? X(i) : -1\n"
		"    P(i) = X(i) > 0 && !M(i)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t n = 999, i;
	uint64_t seed = 5;
	struct tt x, y;
	struct anyt m, p;
	DLTensor *args[4] = { &x.dl, &m.dl, &y.dl, &p.dl };
	uint8_t *pm, *pp;
	DLDataType dt;

	ck_assert_int_eq(ein_kernel_tensor_dtype(k, 3, &dt), EIN_OK);
	ck_assert_int_eq(dt.code, kDLUInt);
	ck_assert_int_eq(dt.bits, 8);
	ck_assert_str_eq(ein_kernel_get_tensor_type(k, 3), "bool");
	tt_alloc(&x, 1, &n);
	tt_alloc(&y, 1, &n);
	tt_randomize(&x, 9);
	anyt_alloc(&m, kDLUInt, 8, 1, &n);
	anyt_alloc(&p, kDLUInt, 8, 1, &n);
	pm = m.dl.data;
	pp = p.dl.data;
	for (i = 0; i < n; ++i)
		pm[i] = (uint8_t) small_random(&seed, 0, 3);	/* 2 is true */
	ck_assert_int_eq(ein_kernel_call(k, args, 4, &n, 1), EIN_OK);
	for (i = 0; i < n; ++i) {
		ck_assert(y.f[i] == (pm[i] ? x.f[i] : -1.0f));
		ck_assert_int_eq(pp[i], x.f[i] > 0 && !pm[i]);
	}
	/* A float tensor where a bool one is expected is refused. */
	args[1] = &x.dl;
	ck_assert_int_eq(ein_kernel_call(k, args, 4, &n, 1), EIN_ERROR_SHAPE);
	tt_free(&x);
	tt_free(&y);
	free(m.dl.data);
	free(p.dl.data);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A zero-padded 3x3 convolution, written with a guarded access, against
 * a C loop that pads explicitly.  Each output is a sum of at most
 * C * 9 products, hence the bound. */
START_TEST(conv_pad_vs_loop)
{
	static const char src[] =
		"def conv_pad(float32(N, C, H, W) I, float32(K, C, 3, 3) Wt) "
		"-> (float32(N, K, H, W) O) {\n"
		"    O(n, k, h, w) +=! (h + r >= 1 && h + r <= H && w + s >= 1 "
		"&& w + s <= W) ? I(n, c, h + r - 1, w + s - 1) * "
		"Wt(k, c, r, s) : 0\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, NULL);
	int64_t N = 2, C = 3, H = 7, W = 5, K = 4;
	int64_t sizes[5] = { N, C, H, W, K }, n, kk, h, w, c, r, s;
	struct tt in, wt, out;
	DLTensor *args[3] = { &in.dl, &wt.dl, &out.dl };

	tt_alloc(&in, 4, (int64_t[]) { N, C, H, W });
	tt_alloc(&wt, 4, (int64_t[]) { K, C, 3, 3 });
	tt_alloc(&out, 4, (int64_t[]) { N, K, H, W });
	tt_randomize(&in, 21);
	tt_randomize(&wt, 22);
	ck_assert_int_eq(ein_kernel_call(k, args, 3, sizes, 5), EIN_OK);
	for (n = 0; n < N; ++n)
	for (kk = 0; kk < K; ++kk)
	for (h = 0; h < H; ++h)
	for (w = 0; w < W; ++w) {
		double sum = 0, abs_sum = 0, v;

		for (c = 0; c < C; ++c)
		for (r = 0; r < 3; ++r)
		for (s = 0; s < 3; ++s) {
			int64_t y = h + r - 1, x = w + s - 1;

			if (y < 0 || y >= H || x < 0 || x >= W)
				continue;
			v = (double) in.f[((n * C + c) * H + y) * W + x] *
				wt.f[((kk * C + c) * 3 + r) * 3 + s];
			sum += v;
			abs_sum += fabs(v);
		}
		v = out.f[((n * K + kk) * H + h) * W + w];
		ck_assert_msg(fabs(v - sum) <= C * 9 * FLT_EPSILON * abs_sum,
			"O(%lld, %lld, %lld, %lld) = %g, expected %g",
			(long long) n, (long long) kk, (long long) h,
			(long long) w, v, sum);
	}
	tt_free(&in);
	tt_free(&wt);
	tt_free(&out);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* float32 times float64 computes in float64 (the float32 operand is
 * widened exactly), and the literal 0.1 is the float64 0.1. */
START_TEST(mixed_float_vs_loop)
{
	static const char src[] =
		"def mixed(float32(N) X, float64(N) D) -> (Y) {\n"
		"    Y(i) = X(i) * D(i) + 0.1\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;
	int64_t n = 100, i;
	struct tt x;
	struct anyt d, y;
	DLTensor *args[3] = { &x.dl, &d.dl, &y.dl };

	/* Strict: without it, X * D + 0.1 may be one fused multiply-add. */
	ein_options_set_strict_fp(opts, 1);
	prog = ein_program_parse(ctx, src, "test.ein");
	ck_assert_ptr_nonnull(prog);
	k = ein_kernel_compile_with(prog, NULL, opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	ein_options_free(opts);
	DLDataType dt;

	ck_assert_int_eq(ein_kernel_tensor_dtype(k, 2, &dt), EIN_OK);
	ck_assert_int_eq(dt.code, kDLFloat);
	ck_assert_int_eq(dt.bits, 64);
	tt_alloc(&x, 1, &n);
	tt_randomize(&x, 31);
	anyt_alloc(&d, kDLFloat, 64, 1, &n);
	anyt_alloc(&y, kDLFloat, 64, 1, &n);
	for (i = 0; i < n; ++i)
		((double *) d.dl.data)[i] = 1.0 / (i + 3);
	ck_assert_int_eq(ein_kernel_call(k, args, 3, &n, 1), EIN_OK);
	for (i = 0; i < n; ++i)
		ck_assert(((double *) y.dl.data)[i] ==
			(double) x.f[i] * ((double *) d.dl.data)[i] + 0.1);
	tt_free(&x);
	free(d.dl.data);
	free(y.dl.data);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Kernels checked against the reference interpreter: source, sizes, the
 * relative bound on the largest difference, and whether to compile with
 * the default schedule (ein_options_set_auto(opts, 0)) instead of the
 * automatic one.  The bound is that of a float32 reduction of the longest
 * length in the kernel.  quantize's exact bound holds for a division: the
 * automatic schedule vectorises it, and an explicitly vectorised division
 * by a uniform value may be a multiplication by the reciprocal, within an
 * ulp (docs/language.md), which moves int8(...) / 200 by an ulp. */
static const struct {
	const char *src;
	int64_t sizes[4];
	double bound;
	int no_auto;
} interp_cases[] = {
	{ "def relu(float32(N) X) -> (Y) {\n"
	  "    Y(i) = X(i) > 0 ? X(i) : 0\n}\n", { 1000 }, 0 },
	{ "def rowmax(float32(M, N) X) -> (Y) {\n"
	  "    Y(i) max=! X(i, j)\n}\n", { 20, 300 }, 0 },
	{ "def rowmin(float32(M, N) X) -> (Y) {\n"
	  "    Y(i) min=! X(i, j)\n}\n", { 20, 300 }, 0 },
	{ "def conv1d(float32(N) X, float32(R) W) -> (Y) {\n"
	  "    Y(i) +=! X(i + r) * W(r)\n}\n", { 100, 5 }, 25 * FLT_EPSILON },
	{ "def strided(float32(N) X) -> (Y) {\n"
	  "    Y(i) = X(2 * i) + X(2 * i + 1)\n}\n", { 101 }, FLT_EPSILON },
	{ "def mean(float32(M, N) X) -> (Y) {\n"
	  "    Y(i) +=! X(i, j) / N\n}\n", { 10, 64 }, 64 * FLT_EPSILON },
	{ "def funcs(float32(N) X) -> (Y) {\n"
	  "    Y(i) = exp(X(i)) + sqrt(abs(X(i))) + max(X(i), 0.5) * "
	  "tanh(X(i))\n}\n", { 64 }, 8 * FLT_EPSILON },
	{ "def bias_relu(float32(M, N) X, float32(N) b) -> (Y) {\n"
	  "    T(i, j) = X(i, j) + b(j)\n"
	  "    Y(i, j) = max(T(i, j), 0)\n}\n", { 9, 31 }, FLT_EPSILON },
	{ "def index_value(float32(N) X) -> (Y) {\n"
	  "    Y(i) = X(i) * i\n}\n", { 40 }, FLT_EPSILON },
	{ "def shift_pad(float32(N) X) -> (float32(N) Y) {\n"
	  "    Y(i) = i > 0 && i < N - 1 ? X(i - 1) + X(i + 1) : X(i)\n}\n",
	  { 50 }, FLT_EPSILON },
	{ "def quantize(float32(N) X) -> (Y) {\n"
	  "    Y(i) = float32(int8(X(i) * 200)) / 200\n}\n", { 64 }, 0, 1 },
};

/* Compile interp_cases[c]. */
static ein_kernel *compile_case(ein_ctx *ctx, ein_program **prog, int c)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;

	*prog = ein_program_parse(ctx, interp_cases[c].src, "test.ein");
	ck_assert_msg(*prog && opts, "parse failed: %s",
		ein_ctx_last_error(ctx));
	ein_options_set_auto(opts, !interp_cases[c].no_auto);
	k = ein_kernel_compile_with(*prog, NULL, opts);
	ein_options_free(opts);
	ck_assert_msg(k != NULL, "compile failed: %s",
		ein_ctx_last_error(ctx));
	return k;
}

START_TEST(kernel_vs_interpreter)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = compile_case(ctx, &prog, _i);
	int n = ein_kernel_n_tensor(k), i;
	const int64_t *sizes = interp_cases[_i].sizes;
	int n_size = ein_kernel_n_size(k);
	struct tt out[n], ref[n];
	DLTensor *a_out[n], *a_ref[n];
	int64_t shape[8], e;

	for (i = 0; i < n; ++i) {
		ck_assert_int_eq(ein_kernel_tensor_shape(k, i, sizes, n_size,
			shape), EIN_OK);
		tt_alloc(&out[i], ein_kernel_tensor_ndim(k, i), shape);
		tt_alloc(&ref[i], ein_kernel_tensor_ndim(k, i), shape);
		if (!ein_kernel_tensor_is_output(k, i)) {
			tt_randomize(&out[i], 100 + i);
			tt_randomize(&ref[i], 100 + i);
		}
		a_out[i] = &out[i].dl;
		a_ref[i] = &ref[i].dl;
	}
	ck_assert_int_eq(ein_kernel_call(k, a_out, n, sizes, n_size), EIN_OK);
	ck_assert_int_eq(ein_kernel_call_reference(k, a_ref, n, sizes, n_size),
		EIN_OK);
	for (i = 0; i < n; ++i)
		for (e = 0; e < out[i].n; ++e) {
			double r = ref[i].f[e], v = out[i].f[e];
			double bound = interp_cases[_i].bound * (fabs(r) + 1);

			ck_assert_msg(fabs(v - r) <= bound, "case %d, %s[%lld]"
				": %g, reference %g", _i,
				ein_kernel_get_tensor_name(k, i),
				(long long) e, v, r);
		}
	for (i = 0; i < n; ++i) {
		tt_free(&out[i]);
		tt_free(&ref[i]);
	}
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Streamed kernels (the `stream` directive: non-temporal stores, which
 * need an aligned address) with their output at every multiple of 4
 * bytes from 0 to 60 past a 64-byte boundary, against the reference
 * interpreter: the vector loop runs scalar iterations until its stores
 * are aligned, then vectors, then the rest (codegen/vector_loop.c).  The
 * floats around the output must be left as they were.  Sources, sizes
 * and bounds (in FLT_EPSILON (1 + |reference|)) are those of
 * tests/kernels/softmax.ein and layernorm.ein; "fixed" compiles for the
 * sizes, which makes a loop's number of iterations a constant: 64 is 4
 * vectors of 16 (aligned at run time), 48 only 3 (each vector checks its
 * own address instead). */
static const char stream_softmax[] =
	"def softmax(float32(M, N) X) -> (Y) {\n"
	"    mx(i) max=! X(i, j)\n"
	"    e(i, j) = exp(X(i, j) - mx(i))\n"
	"    s(i) +=! e(i, j)\n"
	"    Y(i, j) = e(i, j) / s(i)\n"
	"}\n";
static const char stream_softmax_sched[] = "ein-schedule 1\n"
	"e: compute_at Y i\ns: compute_at Y i\nmx: compute_at Y i\n"
	"Y: vectorize j 16\nY: stream j\n";
static const char stream_layernorm[] =
	"def layernorm(float32(M, N) X, float32(N) gamma, float32(N) beta) "
	"-> (Y) {\n"
	"    mean(i) +=! X(i, j) / N\n"
	"    d(i, j) = X(i, j) - mean(i)\n"
	"    var(i) +=! d(i, j) * d(i, j) / N\n"
	"    Y(i, j) = d(i, j) * rsqrt(var(i) + 1e-5) * gamma(j) + beta(j)\n"
	"}\n";
static const char stream_layernorm_sched[] = "ein-schedule 1\n"
	"d: compute_at Y i\nvar: compute_at Y i\nmean: compute_at Y i\n"
	"Y: vectorize j 16\nY: stream j\n";
static const char stream_scale[] =
	"def scale(float32(N) X) -> (Y) {\n    Y(i) = 2 * X(i)\n}\n";
static const char stream_scale_sched[] = "ein-schedule 1\n"
	"Y: vectorize i 16\nY: stream i\n";

static const struct {
	const char *src;
	const char *sched;
	int64_t sizes[2];
	int fixed;
	double tol;
} stream_cases[] = {
	{ stream_softmax, stream_softmax_sched, { 3, 70 }, 0, 2 * 70 + 8 },
	{ stream_softmax, stream_softmax_sched, { 2, 64 }, 1, 2 * 64 + 8 },
	{ stream_softmax, stream_softmax_sched, { 2, 48 }, 1, 2 * 48 + 8 },
	{ stream_layernorm, stream_layernorm_sched, { 3, 100 }, 0,
	  4 * 100 + 16 },
	{ stream_scale, stream_scale_sched, { 1000 }, 0, 0 },
	{ stream_scale, stream_scale_sched, { 9 }, 0, 0 },
};

/* Compile stream_cases[c] with its schedule. */
static ein_kernel *compile_stream_case(ein_ctx *ctx, ein_program **prog,
	int c)
{
	char path[] = "/tmp/ein_stream_XXXXXX";
	int fd = mkstemp(path), d;
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;

	ck_assert(fd >= 0 && opts);
	ck_assert(write(fd, stream_cases[c].sched,
		strlen(stream_cases[c].sched)) ==
		(ssize_t) strlen(stream_cases[c].sched));
	close(fd);
	*prog = ein_program_parse(ctx, stream_cases[c].src, "stream.ein");
	ck_assert_msg(*prog != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_int_eq(ein_options_set_schedule(opts, path), EIN_OK);
	for (d = 0; stream_cases[c].fixed &&
		d < ein_program_n_size(*prog, NULL); ++d)
		ck_assert_int_eq(ein_options_fix_size(opts,
			ein_program_get_size_name(*prog, NULL, d),
			stream_cases[c].sizes[d]), EIN_OK);
	k = ein_kernel_compile_with(*prog, NULL, opts);
	ein_options_free(opts);
	unlink(path);
	ck_assert_msg(k != NULL, "compile failed: %s",
		ein_ctx_last_error(ctx));
	return k;
}

/* Check the n floats of the output at "out" against "ref" with the bound
 * of stream_cases[c], and the 16 floats before and after it untouched
 * ("guard"). */
static void check_stream_output(int c, int offset, const float *out,
	const float *ref, int64_t n, float guard)
{
	int64_t i;

	for (i = 0; i < n; ++i) {
		double bound = stream_cases[c].tol * FLT_EPSILON *
			(1 + fabs(ref[i]));

		ck_assert_msg(fabs((double) out[i] - ref[i]) <= bound,
			"case %d, offset %d: Y[%lld] = %g, reference %g", c,
			offset, (long long) i, out[i], ref[i]);
	}
	for (i = -offset / 4; i < 0; ++i)
		ck_assert_msg(out[i] == guard, "case %d, offset %d: wrote "
			"%lld floats before the output", c, offset,
			(long long) -i);
	for (i = n; i < n + 16; ++i)
		ck_assert_msg(out[i] == guard, "case %d, offset %d: wrote "
			"float %lld past the output", c, offset,
			(long long) (i - n));
}

START_TEST(streamed_unaligned_vs_interpreter)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = compile_stream_case(ctx, &prog, _i);
	int n = ein_kernel_n_tensor(k), n_size = ein_kernel_n_size(k);
	const int64_t *sizes = stream_cases[_i].sizes;
	const float guard = 1234.5f;
	struct tt in[n], ref[n];
	DLTensor *a_ref[n], *a_out[n], out;
	int64_t shape[8];
	int i, y = -1, offset;
	float *mem;

	for (i = 0; i < n; ++i) {
		ck_assert_int_eq(ein_kernel_tensor_shape(k, i, sizes, n_size,
			shape), EIN_OK);
		tt_alloc(&in[i], ein_kernel_tensor_ndim(k, i), shape);
		tt_randomize(&in[i], 200 + i);
		tt_alloc(&ref[i], ein_kernel_tensor_ndim(k, i), shape);
		memcpy(ref[i].f, in[i].f, in[i].n * sizeof(float));
		a_ref[i] = &ref[i].dl;
		a_out[i] = &in[i].dl;
		if (ein_kernel_tensor_is_output(k, i))
			y = i;
	}
	ck_assert_int_ge(y, 0);
	ck_assert_int_eq(ein_kernel_call_reference(k, a_ref, n, sizes, n_size),
		EIN_OK);
	ck_assert_int_eq(posix_memalign((void **) &mem, 64,
		(in[y].n + 32) * sizeof(float)), 0);
	out = in[y].dl;
	a_out[y] = &out;
	for (offset = 0; offset < 64; offset += 4) {
		for (i = 0; i < in[y].n + 32; ++i)
			mem[i] = guard;
		out.data = mem;
		out.byte_offset = offset;
		ck_assert_int_eq(ein_kernel_call(k, a_out, n, sizes, n_size),
			EIN_OK);
		check_stream_output(_i, offset, mem + offset / 4, ref[y].f,
			in[y].n, guard);
	}
	free(mem);
	for (i = 0; i < n; ++i) {
		tt_free(&in[i]);
		tt_free(&ref[i]);
	}
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernels");
	TCase *tc = tcase_create("compiled");
	SRunner *sr;
	int failed;

	/* Each test JIT-compiles with LLVM's O3 pipeline and may run the
	 * interpreter: well over Check's default of 4 s under sanitizers. */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, matmul_vs_openblas, 0,
		sizeof(matmul_sizes) / sizeof(matmul_sizes[0]));
	tcase_add_test(tc, matvec_vs_loop);
	tcase_add_test(tc, add_vs_loop);
	tcase_add_test(tc, sum_vs_loop);
	tcase_add_test(tc, transpose_vs_loop);
	tcase_add_test(tc, qmatmul_vs_loop);
	tcase_add_test(tc, int_division_vs_loop);
	tcase_add_test(tc, bool_mask_vs_loop);
	tcase_add_test(tc, conv_pad_vs_loop);
	tcase_add_test(tc, mixed_float_vs_loop);
	tcase_add_loop_test(tc, kernel_vs_interpreter, 0,
		sizeof(interp_cases) / sizeof(interp_cases[0]));
	tcase_add_loop_test(tc, streamed_unaligned_vs_interpreter, 0,
		sizeof(stream_cases) / sizeof(stream_cases[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	openblas_set_num_threads(1);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
