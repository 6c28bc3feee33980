/*
 * cnn_main.c: calls the CNN of tests/onnx/gen_models.py compiled ahead of
 * time by "ein compile cnn.onnx" (weights embedded), on the input .npy
 * file argv[1] (float32, shape (2, 3, 12, 12)), and writes the output
 * (2, 10) as raw float32 to argv[2]; tests/onnx.test compares it with
 * numpy's.  With EIN_GRAPH defined, the CNN is the driver that "ein
 * compile --graph" writes, calling the fused kernels (the batch fixed).
 */
#include <stdint.h>
#include <stdio.h>
#include "cnn.h"
#ifdef EIN_GRAPH
int cnn(const float *x, float *y);
#endif

int main(int argc, char **argv)
{
	static float x[2 * 3 * 12 * 12], y[2 * 10];
	unsigned char head[10];
	FILE *f;
	long skip;
	int rc;

	if (argc != 3 || !(f = fopen(argv[1], "rb")) ||
	    fread(head, 1, 10, f) != 10)
		return 2;
	skip = head[8] | head[9] << 8;
	if (fseek(f, 10 + skip, SEEK_SET) != 0 ||
	    fread(x, sizeof(float), sizeof(x) / sizeof(float), f) !=
			sizeof(x) / sizeof(float))
		return 2;
	fclose(f);
#ifdef EIN_GRAPH
	rc = cnn(x, y);
#else
	rc = cnn(x, y, 2);
#endif
	if (rc != 0) {
		fprintf(stderr, "cnn returned %d\n", rc);
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(y, sizeof(float), 20, f) != 20 || fclose(f) != 0)
		return 2;
	return 0;
}
