/*
 * kws_main.c: run the keyword-spotting network of kws.ein, compiled ahead
 * of time with its weights embedded as constants, on the bundled input,
 * print its class scores and check them against a plain C implementation
 * of the same network fed the same weight files.
 *
 * Usage: kws DIR, where DIR holds gen_data's files.  The exit status is
 * 1 if a kernel fails or a score differs from the C implementation's.
 */
#include <math.h>
#include <stdio.h>
#include "kws.h"

enum { T = 49, F = 10, R = 3, C = 16, T1 = T - R + 1, D = 16,
	T2 = T1 - R + 1, L = 12 };

/* The weights and the input, read back for the C implementation. */
static float x[T][F], w1[R][F][C], b1[C], w2[R][C][D], b2[D], w3[D][L],
	b3[L];

/* Read n floats from DIR/name (little-endian, as on the hosts ein
 * targets); 0 on success. */
static int read_file(const char *dir, const char *name, float *p, int n)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	ok = fread(p, sizeof(float), n, f) == (size_t) n;
	fclose(f);
	if (!ok)
		fprintf(stderr, "%s: too short\n", path);
	return !ok;
}

static int read_all(const char *dir)
{
	return read_file(dir, "input.bin", &x[0][0], T * F) |
		read_file(dir, "w1.bin", &w1[0][0][0], R * F * C) |
		read_file(dir, "b1.bin", b1, C) |
		read_file(dir, "w2.bin", &w2[0][0][0], R * C * D) |
		read_file(dir, "b2.bin", b2, D) |
		read_file(dir, "w3.bin", &w3[0][0], D * L) |
		read_file(dir, "b3.bin", b3, L);
}

/* The network in plain C, in double precision, into score. */
static void reference(double score[L])
{
	static double y1[T1][C], y2[T2][D];
	double p[D] = { 0 }, z[L], mx, sum = 0;
	int t, r, f, c, d, l;

	for (t = 0; t < T1; ++t)
		for (c = 0; c < C; ++c) {
			double a = b1[c];

			for (r = 0; r < R; ++r)
				for (f = 0; f < F; ++f)
					a += (double) x[t + r][f] * w1[r][f][c];
			y1[t][c] = a > 0 ? a : 0;
		}
	for (t = 0; t < T2; ++t)
		for (d = 0; d < D; ++d) {
			double a = b2[d];

			for (r = 0; r < R; ++r)
				for (c = 0; c < C; ++c)
					a += y1[t + r][c] * w2[r][c][d];
			y2[t][d] = a > 0 ? a : 0;
			p[d] += y2[t][d];
		}
	for (l = 0; l < L; ++l) {
		z[l] = b3[l];
		for (d = 0; d < D; ++d)
			z[l] += p[d] * w3[d][l];
	}
	for (mx = z[0], l = 1; l < L; ++l)
		mx = z[l] > mx ? z[l] : mx;
	for (l = 0; l < L; ++l)
		sum += score[l] = exp(z[l] - mx);
	for (l = 0; l < L; ++l)
		score[l] /= sum;
}

/* The network compiled by ein: four calls, weights built in. */
static int network(float score[L])
{
	static float y1[T1][C], y2[T2][D];
	float z[L];

	return conv1(&x[0][0], &y1[0][0]) | conv2(&y1[0][0], &y2[0][0]) |
		dense(&y2[0][0], z) | softmax(z, score);
}

int main(int argc, char **argv)
{
	float score[L];
	double want[L];
	int l, best = 0, wrong = 0;

	if (read_all(argc > 1 ? argv[1] : "."))
		return 1;
	if (network(score) != 0) {
		fprintf(stderr, "a kernel refused its arguments\n");
		return 1;
	}
	reference(want);
	printf("class  score     reference\n");
	for (l = 0; l < L; ++l) {
		int bad = fabs(score[l] - want[l]) > 1e-5 + 1e-4 * want[l];

		printf("%5d  %.6f  %.6f%s\n", l, score[l], want[l],
			bad ? "  MISMATCH" : "");
		wrong += bad;
		best = score[l] > score[best] ? l : best;
	}
	printf("keyword: class %d\n", best);
	return wrong != 0;
}
