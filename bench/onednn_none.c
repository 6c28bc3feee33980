/*
 * onednn_none.c: the benchmark built without oneDNN (configure found no
 * libdnnl): the convolution section prints ein's figures alone.
 */
#include <stddef.h>
#include "onednn.h"

const char *bench_onednn_version(void)
{
	return NULL;
}

void bench_onednn_set_threads(int n)
{
}

struct bench_onednn_conv *bench_onednn_conv_alloc(
	const struct bench_conv_shape *shape, float *src, float *wei,
	float *dst)
{
	return NULL;
}

void bench_onednn_conv_free(struct bench_onednn_conv *c)
{
}

const char *bench_onednn_conv_impl(struct bench_onednn_conv *c)
{
	return "none";
}

int bench_onednn_conv_src_reorder(void *c)
{
	return -1;
}

int bench_onednn_conv_compute(void *c)
{
	return -1;
}

int bench_onednn_conv_dst_reorder(void *c)
{
	return -1;
}

int bench_onednn_conv_all(void *c)
{
	return -1;
}

struct bench_onednn_qgemm *bench_onednn_qgemm_alloc(int64_t m, int64_t k,
	int64_t n, uint8_t *a, int8_t *b, int32_t *c)
{
	return NULL;
}

void bench_onednn_qgemm_free(struct bench_onednn_qgemm *q)
{
}

const char *bench_onednn_qgemm_impl(struct bench_onednn_qgemm *q)
{
	return "none";
}

int bench_onednn_qgemm_run(void *q)
{
	return -1;
}
