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

/* The most layers of onnx_build_chain. */
#define CHAIN_MAX_LAYERS 8

/* A chain of "layers" dense layers y = relu(x w_l + b_l), x (N, 4),
 * w_l (4, 4) at w + 16 l, b_l (4) at b + 4 l, all named apart (x, h0,
 * h1, ..., y; w0, b0, ...), the weights as raw_data; written to "path".
 * Returns -1 if it cannot be written or layers is out of range. */
int onnx_build_chain(const char *path, int layers, const float *w,
	const float *b);

#endif
