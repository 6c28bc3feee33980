/*
 * onnx_build.h: small ONNX models written by the unit tests themselves
 * (with the protobuf-c code generated for the importer), so that the
 * model API is tested without Python.
 */
#ifndef EIN_TESTS_ONNX_BUILD_H
#define EIN_TESTS_ONNX_BUILD_H

/* Write to "path" a two-layer perceptron with batch "batch" (a dim_param
 * such as "N", or NULL for 2):
 *     h = relu(x · w1 + b1)     x: (batch, 4), w1: (4, 4), b1: (4)
 *     y = h · w2                w2: (4, 3), y: (batch, 3)
 * with the weights given.  Returns 0, or -1 if the file cannot be
 * written. */
int onnx_build_mlp(const char *path, const char *batch, const float *w1,
	const float *b1, const float *w2);

#endif
