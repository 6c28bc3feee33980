/*
 * panels_main.c: calls the model "odd" of tests/onnx/gen_panels.py
 * compiled ahead of time by "ein compile odd.onnx" (its weight embedded in
 * panels), on the raw float32 input argv[1] (7 x 13), and writes the
 * output (7 x 192) as raw float32 to argv[2]; tests/onnx_panels.test
 * compares it with numpy's.
 */
#include <stdio.h>
#include "odd.h"

int main(int argc, char **argv)
{
	static float x[7 * 13], y[7 * 192];
	FILE *f;
	int rc;

	if (argc != 3 || !(f = fopen(argv[1], "rb")) ||
	    fread(x, sizeof(float), 7 * 13, f) != 7 * 13)
		return 2;
	fclose(f);
	rc = odd(x, y);
	if (rc != 0) {
		fprintf(stderr, "odd returned %d\n", rc);
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(y, sizeof(float), 7 * 192, f) != 7 * 192 ||
	    fclose(f) != 0)
		return 2;
	return 0;
}
