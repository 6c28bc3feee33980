/*
 * main.c: call a matmul and a convolution compiled ahead of time.
 *
 * kernels.o and kernels.h come from "ein compile kernels.ein" (the rule is
 * in kernels.am); the program needs nothing of ein at run time but
 * libein_rt.  Each kernel runs on deterministic inputs and is checked
 * against a plain C loop; a size that gives a tensor no shape (an input
 * smaller than the filter) must be refused before anything runs.  The
 * exit status is 1 on any mismatch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernels.h"

/* Deterministic values in [-1, 1). */
static void fill(float *p, long n, unsigned seed)
{
	long i;

	for (i = 0; i < n; ++i) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (float) ((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

static int close_to(float got, double want)
{
	return fabs(got - want) <= 1e-4 * (1 + fabs(want));
}

/* C = A B at M, K, N against a plain loop; 0 if right. */
static int check_matmul(int64_t m, int64_t k, int64_t n)
{
	float *a = malloc(m * k * sizeof(float));
	float *b = malloc(k * n * sizeof(float));
	float *c = malloc(m * n * sizeof(float));
	int64_t i, j, l, wrong = 0;

	fill(a, m * k, 1);
	fill(b, k * n, 2);
	if (matmul(a, b, c, m, k, n) != 0)
		wrong = -1;
	for (i = 0; wrong == 0 && i < m; ++i)
		for (j = 0; j < n; ++j) {
			double t = 0;

			for (l = 0; l < k; ++l)
				t += (double) a[i * k + l] * b[l * n + j];
			wrong += !close_to(c[i * n + j], t);
		}
	printf("matmul %ldx%ld . %ldx%ld: %s\n", (long) m, (long) k, (long) k,
		(long) n, wrong ? "WRONG" : "ok");
	free(a);
	free(b);
	free(c);
	return wrong != 0;
}

/* One output element of the convolution, by a plain loop. */
static double conv_at(const float *in, const float *f, int64_t c, int64_t h,
	int64_t w, int64_t r, int64_t s, int64_t n0, int64_t k0, int64_t y,
	int64_t x)
{
	int64_t ci, ri, si;
	double t = 0;

	for (ci = 0; ci < c; ++ci)
		for (ri = 0; ri < r; ++ri)
			for (si = 0; si < s; ++si)
				t += (double) in[((n0 * c + ci) * h + y + ri) *
					w + x + si] *
					f[((k0 * c + ci) * r + ri) * s + si];
	return t;
}

/* The convolution at N, C, H, W, K, R, S against a plain loop. */
static int check_conv(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
	int64_t r, int64_t s)
{
	int64_t oh = h - r + 1, ow = w - s + 1, i, j, y, x, wrong = 0;
	float *in = malloc(n * c * h * w * sizeof(float));
	float *f = malloc(k * c * r * s * sizeof(float));
	float *o = malloc(n * k * oh * ow * sizeof(float));

	fill(in, n * c * h * w, 3);
	fill(f, k * c * r * s, 4);
	/* The sizes in the header's order: N, C, H, W, K, R, S. */
	if (conv(in, f, o, n, c, h, w, k, r, s) != 0)
		wrong = -1;
	for (i = 0; wrong == 0 && i < n; ++i)
		for (j = 0; j < k; ++j)
			for (y = 0; y < oh; ++y)
				for (x = 0; x < ow; ++x)
					wrong += !close_to(o[((i * k + j) * oh +
						y) * ow + x], conv_at(in, f, c,
						h, w, r, s, i, j, y, x));
	printf("conv %ldx%ldx%ldx%ld * %ldx%ldx%ldx%ld: %s\n", (long) n,
		(long) c, (long) h, (long) w, (long) k, (long) c, (long) r,
		(long) s, wrong ? "WRONG" : "ok");
	free(in);
	free(f);
	free(o);
	return wrong != 0;
}

int main(void)
{
	float x = 0;
	int fail = 0;

	fail |= check_matmul(64, 48, 80);
	fail |= check_matmul(7, 1, 13);
	fail |= check_conv(2, 3, 17, 19, 8, 3, 3);
	fail |= check_conv(1, 16, 8, 8, 4, 1, 1);
	/* A 2x2 input under a 3x3 filter has no output shape. */
	if (conv(&x, &x, &x, 1, 1, 2, 2, 1, 3, 3) != EIN_AOT_ERROR_SIZE) {
		printf("conv with an input smaller than its filter: not "
			"refused\n");
		fail = 1;
	}
	return fail;
}
