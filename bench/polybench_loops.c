/*
 * polybench_loops.c: PolyBench/C 4.2's loops for 2mm, 3mm, gemver and
 * atax (polybench_loops.h), with the LARGE sizes as constants, as
 * PolyBench compiles them, so that Polly sees fixed bounds.  Written from
 * PolyBench's definitions of the kernels.
 */
#include <string.h>
#include "polybench_loops.h"

#ifndef BENCH_POLYBENCH_CC
#define BENCH_POLYBENCH_CC "unknown compiler"
#endif

const char *bench_polybench_compiler(void)
{
	return BENCH_POLYBENCH_CC;
}

void bench_pb_2mm(const float *a_, const float *b_, const float *c_,
	const float *d_in, float *d_, float *tmp_)
{
	const float (*A)[PB_2MM_NK] = (const void *) a_;
	const float (*B)[PB_2MM_NJ] = (const void *) b_;
	const float (*C)[PB_2MM_NL] = (const void *) c_;
	float (*D)[PB_2MM_NL] = (void *) d_;
	float (*tmp)[PB_2MM_NJ] = (void *) tmp_;
	int i, j, k;

	memcpy(d_, d_in, sizeof(float) * PB_2MM_NI * PB_2MM_NL);
	for (i = 0; i < PB_2MM_NI; i++)
		for (j = 0; j < PB_2MM_NJ; j++) {
			tmp[i][j] = 0.0f;
			for (k = 0; k < PB_2MM_NK; ++k)
				tmp[i][j] += 1.5f * A[i][k] * B[k][j];
		}
	for (i = 0; i < PB_2MM_NI; i++)
		for (j = 0; j < PB_2MM_NL; j++) {
			D[i][j] *= 1.2f;
			for (k = 0; k < PB_2MM_NJ; ++k)
				D[i][j] += tmp[i][k] * C[k][j];
		}
}

void bench_pb_3mm(const float *a_, const float *b_, const float *c_,
	const float *d_, float *g_, float *e_, float *f_)
{
	const float (*A)[PB_3MM_NK] = (const void *) a_;
	const float (*B)[PB_3MM_NJ] = (const void *) b_;
	const float (*C)[PB_3MM_NM] = (const void *) c_;
	const float (*D)[PB_3MM_NL] = (const void *) d_;
	float (*E)[PB_3MM_NJ] = (void *) e_;
	float (*F)[PB_3MM_NL] = (void *) f_;
	float (*G)[PB_3MM_NL] = (void *) g_;
	int i, j, k;

	for (i = 0; i < PB_3MM_NI; i++)
		for (j = 0; j < PB_3MM_NJ; j++) {
			E[i][j] = 0.0f;
			for (k = 0; k < PB_3MM_NK; ++k)
				E[i][j] += A[i][k] * B[k][j];
		}
	for (i = 0; i < PB_3MM_NJ; i++)
		for (j = 0; j < PB_3MM_NL; j++) {
			F[i][j] = 0.0f;
			for (k = 0; k < PB_3MM_NM; ++k)
				F[i][j] += C[i][k] * D[k][j];
		}
	for (i = 0; i < PB_3MM_NI; i++)
		for (j = 0; j < PB_3MM_NL; j++) {
			G[i][j] = 0.0f;
			for (k = 0; k < PB_3MM_NJ; ++k)
				G[i][j] += E[i][k] * F[k][j];
		}
}

void bench_pb_gemver(const float *a_in, const float *u1, const float *v1,
	const float *u2, const float *v2, const float *w_in,
	const float *x_in, const float *y, const float *z, float *a_,
	float *x, float *w)
{
	float (*A)[PB_GEMVER_N] = (void *) a_;
	int i, j;

	memcpy(a_, a_in, sizeof(float) * PB_GEMVER_N * PB_GEMVER_N);
	memcpy(x, x_in, sizeof(float) * PB_GEMVER_N);
	memcpy(w, w_in, sizeof(float) * PB_GEMVER_N);
	for (i = 0; i < PB_GEMVER_N; i++)
		for (j = 0; j < PB_GEMVER_N; j++)
			A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
	for (i = 0; i < PB_GEMVER_N; i++)
		for (j = 0; j < PB_GEMVER_N; j++)
			x[i] = x[i] + 1.2f * A[j][i] * y[j];
	for (i = 0; i < PB_GEMVER_N; i++)
		x[i] = x[i] + z[i];
	for (i = 0; i < PB_GEMVER_N; i++)
		for (j = 0; j < PB_GEMVER_N; j++)
			w[i] = w[i] + 1.5f * A[i][j] * x[j];
}

void bench_pb_atax(const float *a_, const float *x, float *y, float *tmp)
{
	const float (*A)[PB_ATAX_N] = (const void *) a_;
	int i, j;

	for (i = 0; i < PB_ATAX_N; i++)
		y[i] = 0.0f;
	for (i = 0; i < PB_ATAX_M; i++) {
		tmp[i] = 0.0f;
		for (j = 0; j < PB_ATAX_N; j++)
			tmp[i] = tmp[i] + A[i][j] * x[j];
		for (j = 0; j < PB_ATAX_N; j++)
			y[j] = y[j] + A[i][j] * tmp[i];
	}
}
