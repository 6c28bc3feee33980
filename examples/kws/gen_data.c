/*
 * gen_data.c: write the weights and the input of the keyword-spotting
 * example into a directory, deterministically, as raw little-endian
 * float32 files (what "ein compile --const" embeds):
 *
 *     w1.bin (3, 10, 16)  b1.bin (16)  w2.bin (3, 16, 16)  b2.bin (16)
 *     w3.bin (16, 12)     b3.bin (12)  input.bin (49, 10)
 *
 * Generated at build time rather than committed: a few kilobytes of code
 * instead of binary files.  The weights are uniform in +-1/sqrt(fan-in)
 * and the input a sum of sinusoids, so that every layer sees values of
 * ordinary size and relu keeps about half of them.
 *
 * Usage: gen_data DIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t state = 20261123;

/* Uniform in [-1, 1), from a linear congruential generator. */
static float uniform(void)
{
	state = state * 1664525u + 1013904223u;
	return (float) (state >> 8) / 8388608.0f - 1.0f;
}

/* Write n floats to DIR/name, little-endian; 0 on success. */
static int write_file(const char *dir, const char *name, const float *p,
	int n)
{
	char path[4096];
	unsigned char b[4];
	FILE *f;
	int i, ok = 1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return 1;
	}
	for (i = 0; i < n && ok; ++i) {
		uint32_t u;

		memcpy(&u, &p[i], 4);
		b[0] = u;
		b[1] = u >> 8;
		b[2] = u >> 16;
		b[3] = u >> 24;
		ok = fwrite(b, 1, 4, f) == 4;
	}
	if (fclose(f) != 0 || !ok) {
		perror(path);
		return 1;
	}
	return 0;
}

/* n weights of a layer with "fan_in" inputs per output into DIR/name. */
static int weights(const char *dir, const char *name, int n, int fan_in,
	float offset)
{
	float p[768];
	int i;

	for (i = 0; i < n; ++i)
		p[i] = offset + uniform() / sqrtf((float) fan_in);
	return write_file(dir, name, p, n);
}

static int input(const char *dir)
{
	float x[49 * 10];
	int t, f;

	for (t = 0; t < 49; ++t)
		for (f = 0; f < 10; ++f)
			x[t * 10 + f] = sinf(0.31f * t * (f + 1)) +
				0.5f * cosf(0.17f * t + f) + 0.1f * uniform();
	return write_file(dir, "input.bin", x, 49 * 10);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";

	return weights(dir, "w1.bin", 3 * 10 * 16, 3 * 10, 0) |
		weights(dir, "b1.bin", 16, 1, 0.1f) |
		weights(dir, "w2.bin", 3 * 16 * 16, 3 * 16, 0) |
		weights(dir, "b2.bin", 16, 1, 0.1f) |
		weights(dir, "w3.bin", 16 * 12, 16 * 45, 0) |
		weights(dir, "b3.bin", 12, 1, 0) |
		input(dir);
}
