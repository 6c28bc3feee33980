/*
 * const_main.c: a dense layer whose weights are embedded in its object
 * ("ein compile --const W=FILE", tests/aot.test).
 *
 * Built with -DGEN_WEIGHTS it writes the weights instead: W(k, n) =
 * weight(k, n) at K x N as raw little-endian float32 (DIR/w.bin) and as a
 * .npy file (DIR/w.npy).  The checking program links the objects made
 * from them (const_raw_dense, const_npy_dense) and compares their outputs
 * with a C loop over the same weights.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float weight(long k, long n)
{
	return (float) ((k * 31 + n * 17) % 101) / 50.0f - 1.0f;
}

#ifdef GEN_WEIGHTS
static void write_weights(FILE *f, long K, long N)
{
	long k, n;

	for (k = 0; k < K; ++k)
		for (n = 0; n < N; ++n) {
			float w = weight(k, n);

			fwrite(&w, 4, 1, f);
		}
}

int main(int argc, char **argv)
{
	long K = atol(argv[2]), N = atol(argv[3]);
	char path[4096], header[128];
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "%s/w.bin", argv[1]);
	f = fopen(path, "wb");
	write_weights(f, K, N);
	fclose(f);
	/* .npy version 1: magic, version, header length, header padded with
	 * spaces to a multiple of 64 bytes and ended by a newline. */
	snprintf(header, sizeof(header), "{'descr': '<f4', 'fortran_order': "
		"False, 'shape': (%ld, %ld), }", K, N);
	len = strlen(header);
	while ((10 + len + 1) % 64)
		header[len++] = ' ';
	header[len++] = '\n';
	snprintf(path, sizeof(path), "%s/w.npy", argv[1]);
	f = fopen(path, "wb");
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc((int) (len & 0xff), f);
	fputc((int) (len >> 8), f);
	fwrite(header, 1, len, f);
	write_weights(f, K, N);
	fclose(f);
	return 0;
}
#else
#include "const_raw.h"
#include "const_npy.h"

int main(int argc, char **argv)
{
	long B = 5, K = atol(argv[1]), N = atol(argv[2]), b, k, n;
	float *X = malloc(B * K * sizeof(float));
	float *Y1 = malloc(B * N * sizeof(float));
	float *Y2 = malloc(B * N * sizeof(float));
	double err = 0;

	for (b = 0; b < B * K; ++b)
		X[b] = (float) (b % 13) / 8.0f - 0.75f;
	if (const_raw_dense(X, Y1, B) != 0 || const_npy_dense(X, Y2, B) != 0 ||
	    const_raw_dense(X, Y1, 0) != 3) {
		fprintf(stderr, "FAIL: wrong return codes\n");
		return 1;
	}
	for (b = 0; b < B; ++b)
		for (n = 0; n < N; ++n) {
			double acc = 0;

			for (k = 0; k < K; ++k)
				acc += (double) X[b * K + k] * weight(k, n);
			err = fmax(err, fabs(acc - Y1[b * N + n]));
			err = fmax(err, fabs(acc - Y2[b * N + n]));
		}
	if (!(err <= 1e-5 * K)) {
		fprintf(stderr, "FAIL: constant weights: error %g\n", err);
		return 1;
	}
	printf("constant weights (%ld x %ld): ok\n", K, N);
	free(X);
	free(Y1);
	free(Y2);
	return 0;
}
#endif
