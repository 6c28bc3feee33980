/*
 * qgemm_main.c: the int8 GEMM of tests/quant.test compiled ahead of time
 * for another target (x86_64-avx2: u8 x s8 dot products of four by
 * vpmaddwd, src/codegen/llvm_dot4.c), against a C loop in exact integers.
 *
 * The kernel (qgemm.h, sizes fixed at M = 20, K4 = 70, N = 200: full
 * register tiles and edges) is called on bytes from a fixed LCG, then on
 * the same with A's bytes below 128 (where the kernel runs its version
 * with vpmaddubsw; the first call, whose A has bytes of 128 and more,
 * runs the exact long form), the corner 127 x -128 among them; every
 * element must equal the loop's.  Exit status 0 if so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "qgemm.h"

enum { M = 20, K4 = 70, N = 200 };

/* The next byte of the generator "s" (any 8 bits). */
static unsigned next(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (unsigned) (*s >> 33) & 255;
}

/* Call qgemm on "a" and "b" and compare with the loop; the number of
 * elements that differ. */
static int check(const uint8_t *a, const int8_t *b)
{
	static int32_t c[M * N];
	int i, j, p, bad = 0;

	if (qgemm(a, b, c) != EIN_AOT_OK)
		return fprintf(stderr, "qgemm failed\n"), 1;
	for (i = 0; i < M; ++i)
		for (j = 0; j < N; ++j) {
			int32_t s = 0;

			for (p = 0; p < 4 * K4; ++p)
				s += a[i * 4 * K4 + p] *
					b[(p / 4 * N + j) * 4 + p % 4];
			if (c[i * N + j] != s && bad++ < 5)
				fprintf(stderr, "C(%d, %d) = %d, expected %d\n",
					i, j, (int) c[i * N + j], (int) s);
		}
	return bad;
}

int main(void)
{
	static uint8_t a[M * K4 * 4];
	static int8_t b[K4 * N * 4];
	uint64_t seed = 25;
	int i, bad;

	for (i = 0; i < M * K4 * 4; ++i)
		a[i] = (uint8_t) next(&seed);
	for (i = 0; i < K4 * N * 4; ++i)
		b[i] = (int8_t) (next(&seed) - 128);
	bad = check(a, b);
	for (i = 0; i < M * K4 * 4; ++i)
		a[i] &= 127;
	for (i = 0; i < 8; ++i) {
		a[i] = 127;
		b[i / 4 * N * 4 + i % 4] = -128;
	}
	return (bad + check(a, b)) != 0;
}
