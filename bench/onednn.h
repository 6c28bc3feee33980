/*
 * onednn.h: oneDNN's forward convolution for the benchmark, through its C
 * API, when libdnnl is present (bench/onednn.c); without it,
 * bench/onednn_none.c says so and every call fails.
 *
 * oneDNN chooses its own layouts (blocked, such as nChw8c on AVX2): the
 * source is reordered from NCHW before each convolution and the
 * destination back to NCHW after it, and those reorders are timed apart
 * from the convolution; the weights are reordered once, as inference
 * does.
 */
#ifndef BENCH_ONEDNN_H
#define BENCH_ONEDNN_H

#include <stdint.h>

/* A convolution, batch N, NCHW input, FCRS weights, no bias; the output
 * is N x F x OH x OW with OH = (H + 2 pad - R) / stride + 1. */
struct bench_conv_shape {
	int n, c, h, w, f, r, s, stride, pad;
};

struct bench_onednn_conv;

/* "oneDNN X.Y.Z", or NULL when the benchmark was built without it. */
const char *bench_onednn_version(void);
/* Set the number of threads oneDNN's OpenMP runtime uses. */
void bench_onednn_set_threads(int n);

/* Prepare the convolution of "src" by "wei" into "dst" (all NCHW / FCRS,
 * kept by the caller), reordering the weights; NULL on failure. */
struct bench_onednn_conv *bench_onednn_conv_alloc(
	const struct bench_conv_shape *shape, float *src, float *wei,
	float *dst);
void bench_onednn_conv_free(struct bench_onednn_conv *c);
/* The implementation oneDNN chose ("jit:avx2", ...). */
const char *bench_onednn_conv_impl(struct bench_onednn_conv *c);

/* One call of: the reorder of the source, the convolution, the reorder
 * of the destination, and all three in turn.  0 on success. */
int bench_onednn_conv_src_reorder(void *c);
int bench_onednn_conv_compute(void *c);
int bench_onednn_conv_dst_reorder(void *c);
int bench_onednn_conv_all(void *c);

/* An int8 matrix product C = A B, row-major: A uint8 M x K, B int8
 * K x N, C int32 M x N (oneDNN's u8 x s8 -> s32 matmul), the weights
 * reordered once into oneDNN's layout ("any", its VNNI blocks), as
 * inference does; A and C in the caller's layout. */
struct bench_onednn_qgemm;

struct bench_onednn_qgemm *bench_onednn_qgemm_alloc(int64_t m, int64_t k,
	int64_t n, uint8_t *a, int8_t *b, int32_t *c);
void bench_onednn_qgemm_free(struct bench_onednn_qgemm *q);
const char *bench_onednn_qgemm_impl(struct bench_onednn_qgemm *q);
/* One product; 0 on success. */
int bench_onednn_qgemm_run(void *q);

#endif
