/*
 * aot_main.c: kernels compiled by "ein compile" (tests/aot.test), linked
 * into this program and checked against OpenBLAS (matmul) and plain C
 * loops (convolution): symbolic sizes, sizes fixed at compile time, and
 * the error codes of invalid sizes and NULL pointers.
 *
 * aot_sym.h and aot_fix.h declare the same definitions compiled with
 * symbolic sizes (prefix sym_) and with K=64, R=S=3 fixed (fix_);
 * aot_par.h a matmul whose schedule runs its rows in parallel on
 * libein_rt's threads (par_).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cblas.h>
#include "aot_sym.h"
#include "aot_fix.h"
#include "aot_par.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } \
	} while (0)

static void fill(float *x, long n, unsigned *seed)
{
	long i;

	for (i = 0; i < n; ++i) {
		*seed = *seed * 1103515245u + 12345u;
		x[i] = (float) ((*seed >> 8) % 2001) / 1000.0f - 1.0f;
	}
}

static double max_diff(const float *a, const float *b, long n)
{
	double m = 0;
	long i;

	for (i = 0; i < n; ++i)
		if (!(fabs(a[i] - b[i]) <= m))
			m = isnan(a[i] - b[i]) ? INFINITY : fabs(a[i] - b[i]);
	return m;
}

/* matmul at M x K x N against cblas_sgemm, through "fn". */
static void test_matmul(const char *what, long M, long K, long N,
	int (*run)(const float *, const float *, float *, long, long, long))
{
	float *A = malloc(M * K * sizeof(float));
	float *B = malloc(K * N * sizeof(float));
	float *C = malloc(M * N * sizeof(float));
	float *R = malloc(M * N * sizeof(float));
	unsigned seed = 7;
	int rc;

	fill(A, M * K, &seed);
	fill(B, K * N, &seed);
	fill(C, M * N, &seed);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f,
		A, K, B, N, 0.0f, R, N);
	rc = run(A, B, C, M, K, N);
	CHECK(rc == EIN_AOT_OK, "%s: returned %d", what, rc);
	CHECK(max_diff(C, R, M * N) <= 1e-4 * K, "%s %ldx%ldx%ld: error %g",
		what, M, K, N, max_diff(C, R, M * N));
	free(A);
	free(B);
	free(C);
	free(R);
}

static int run_sym_matmul(const float *A, const float *B, float *C, long M,
	long K, long N)
{
	return sym_matmul(A, B, C, M, K, N);
}

static int run_par_matmul(const float *A, const float *B, float *C, long M,
	long K, long N)
{
	return par_matmul(A, B, C, M, K, N);
}

static int run_fix_matmul(const float *A, const float *B, float *C, long M,
	long K, long N)
{
	return fix_matmul(A, B, C, M, N);
}

/* The reference convolution: O = valid correlation of I with Wt. */
static void conv_ref(const float *In, const float *Wt, float *O, long N,
	long C, long H, long W, long K, long R, long S)
{
	long n, k, h, w, c, r, s, OH = H - R + 1, OW = W - S + 1;

	for (n = 0; n < N; ++n)
	for (k = 0; k < K; ++k)
	for (h = 0; h < OH; ++h)
	for (w = 0; w < OW; ++w) {
		double acc = 0;

		for (c = 0; c < C; ++c)
		for (r = 0; r < R; ++r)
		for (s = 0; s < S; ++s)
			acc += (double) In[((n * C + c) * H + h + r) * W + w + s] *
				Wt[((k * C + c) * R + r) * S + s];
		O[((n * K + k) * OH + h) * OW + w] = (float) acc;
	}
}

static void test_conv(int fixed, long N, long C, long H, long W, long K)
{
	long R = 3, S = 3, no = N * K * (H - 2) * (W - 2);
	float *In = malloc(N * C * H * W * sizeof(float));
	float *Wt = malloc(K * C * R * S * sizeof(float));
	float *O = malloc(no * sizeof(float)), *Ref = malloc(no * sizeof(float));
	unsigned seed = 3;
	int rc;

	fill(In, N * C * H * W, &seed);
	fill(Wt, K * C * R * S, &seed);
	conv_ref(In, Wt, Ref, N, C, H, W, K, R, S);
	rc = fixed ? fix_conv(In, Wt, O, N, C, H, W, K) :
		sym_conv(In, Wt, O, N, C, H, W, K, R, S);
	CHECK(rc == EIN_AOT_OK, "conv: returned %d", rc);
	CHECK(max_diff(O, Ref, no) <= 1e-4, "conv (%s): error %g",
		fixed ? "fixed" : "symbolic", max_diff(O, Ref, no));
	free(In);
	free(Wt);
	free(O);
	free(Ref);
}

/* Invalid sizes and NULL pointers are refused before anything runs. */
static void test_errors(void)
{
	float a[16] = { 0 }, b[16] = { 0 }, c[16] = { 0 }, o[16];
	int i;

	for (i = 0; i < 16; ++i)
		o[i] = 42;
	CHECK(sym_matmul(a, b, c, 0, 2, 2) == EIN_AOT_ERROR_SIZE, "M = 0");
	CHECK(sym_matmul(a, b, c, 2, -1, 2) == EIN_AOT_ERROR_SIZE, "K < 0");
	CHECK(fix_matmul(a, b, c, 2, 0) == EIN_AOT_ERROR_SIZE, "N = 0");
	CHECK(sym_matmul(NULL, b, c, 2, 2, 2) == EIN_AOT_ERROR_NULL, "NULL A");
	CHECK(fix_matmul(a, b, NULL, 2, 2) == EIN_AOT_ERROR_NULL, "NULL C");
	/* H < R: the output would have no rows. */
	CHECK(sym_conv(a, b, o, 1, 1, 2, 4, 1, 3, 3) == EIN_AOT_ERROR_SIZE,
		"H < R");
	CHECK(fix_conv(a, b, o, 1, 1, 4, 2, 1) == EIN_AOT_ERROR_SIZE,
		"W < S");
	for (i = 0; i < 16; ++i)
		CHECK(o[i] == 42, "a refused call wrote its output");
}

int main(void)
{
	test_matmul("symbolic matmul", 37, 53, 29, run_sym_matmul);
	test_matmul("symbolic matmul", 1, 1, 1, run_sym_matmul);
	test_matmul("fixed matmul", 33, 64, 70, run_fix_matmul);
	test_matmul("parallel matmul", 67, 45, 81, run_par_matmul);
	test_conv(0, 2, 3, 9, 11, 4);
	test_conv(1, 2, 3, 9, 11, 4);
	test_conv(1, 1, 1, 3, 3, 1);
	test_errors();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("aot: all checks passed\n");
	return failures ? 1 : 0;
}
