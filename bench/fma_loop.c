/*
 * fma_loop.c: the FP32 peak's inner loop, GCC vector extensions of
 * BENCH_FMA_BYTES bytes (32: AVX2, 64: AVX-512, 16: anything), defined as
 * BENCH_FMA_FN.  Makefile.am compiles this file once per instruction set,
 * each time with its own -m flags, so that the rest of the benchmark needs
 * none.
 *
 * Twelve independent chains of a = a * m + c keep two FMA pipes of
 * latency 4 to 6 busy; the compiler contracts each to one FMA (GNU C's
 * default -ffp-contract=fast) and cannot shorten the chains without
 * -ffast-math.  m and c keep the values finite and normal.
 */
#include "fma_loop.h"

typedef float vec __attribute__((vector_size(BENCH_FMA_BYTES)));

float BENCH_FMA_FN(long n)
{
	vec a[BENCH_FMA_CHAINS], m, c;
	float sum = 0;
	long i;
	int j, l;

	for (l = 0; l < (int) (sizeof(vec) / sizeof(float)); ++l) {
		m[l] = 0.999999f;
		c[l] = 1e-6f;
	}
	for (j = 0; j < BENCH_FMA_CHAINS; ++j)
		for (l = 0; l < (int) (sizeof(vec) / sizeof(float)); ++l)
			a[j][l] = 1.0f + j + l;
	for (i = 0; i < n; ++i) {
		a[0] = a[0] * m + c;
		a[1] = a[1] * m + c;
		a[2] = a[2] * m + c;
		a[3] = a[3] * m + c;
		a[4] = a[4] * m + c;
		a[5] = a[5] * m + c;
		a[6] = a[6] * m + c;
		a[7] = a[7] * m + c;
		a[8] = a[8] * m + c;
		a[9] = a[9] * m + c;
		a[10] = a[10] * m + c;
		a[11] = a[11] * m + c;
	}
	for (j = 0; j < BENCH_FMA_CHAINS; ++j)
		for (l = 0; l < (int) (sizeof(vec) / sizeof(float)); ++l)
			sum += a[j][l];
	return sum;
}
