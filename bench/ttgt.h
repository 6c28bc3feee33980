/*
 * ttgt.h: a tensor contraction C = A B by transpose-transpose-GEMM-
 * transpose through OpenBLAS (bench/ttgt.c), the peer of the TCCG
 * contractions in issue 22's benchmark.
 *
 * Each tensor is named by its index letters in row-major order (the last
 * letter contiguous): "edcba" = "dabfe" * "fc".  The indices of C that A
 * holds (in C's order) become the rows M of a matrix, those that B holds
 * the columns N, and the indices A and B share the contracted K.  An
 * operand already laid out as M x K or K x M (N similarly) is passed to
 * cblas_sgemm as it is, transposed or not; any other is first copied into
 * a scratch buffer in that order, and C is computed into a scratch buffer
 * and copied out unless it is M x N or N x M.  The copies are part of
 * every call, as in TTGT.
 */
#ifndef BENCH_TTGT_H
#define BENCH_TTGT_H

#include <stdint.h>

struct bench_ttgt;

/* Plan C = A B for the index strings "c", "a", "b" (letters 'a'-'z', each
 * at most once per tensor, every letter of c in a or b, every other
 * letter in both) with extents ext['x' - 'a']; allocates the scratch
 * buffers.  NULL on a malformed contraction or out of memory. */
struct bench_ttgt *bench_ttgt_plan(const char *c, const char *a,
	const char *b, const int64_t *ext);
void bench_ttgt_free(struct bench_ttgt *t);
/* C = A B; 0 on success. */
int bench_ttgt_run(struct bench_ttgt *t, const float *a, const float *b,
	float *c);
/* The plan in words ("copy A, GEMM N T, copy C"). */
const char *bench_ttgt_describe(const struct bench_ttgt *t);

#endif
