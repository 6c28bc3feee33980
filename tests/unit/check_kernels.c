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
#include <check.h>
#include <cblas.h>
#include "ein.h"
#include "testutil.h"

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

/* Kernels checked against the reference interpreter: source, sizes, and
 * the relative bound on the largest difference.  The bound is that of a
 * float32 reduction of the longest length in the kernel. */
static const struct {
	const char *src;
	int64_t sizes[4];
	double bound;
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
};

START_TEST(kernel_vs_interpreter)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, interp_cases[_i].src, NULL);
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
	tcase_add_loop_test(tc, kernel_vs_interpreter, 0,
		sizeof(interp_cases) / sizeof(interp_cases[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	openblas_set_num_threads(1);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
