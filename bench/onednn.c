/*
 * onednn.c: oneDNN's forward convolution and int8 matmul through its
 * C API (see onednn.h).  The convolution is created with "any" layouts so that
 * oneDNN picks its fastest (blocked) ones, as a framework would; the
 * reorders between those and the caller's NCHW are separate primitives,
 * timed separately.
 */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include "onednn.h"

/* A prepared convolution.
 * engine, stream: the CPU engine and its stream;
 * conv: the convolution primitive;
 * user[i], mem[i]: the caller's memory and the convolution's, for the
 *	source (0), the weights (1) and the destination (2); mem[i] is
 *	user[i] when the layouts agree;
 * reorder[i]: user[i] to mem[i] (mem[2] to user[2] for the destination),
 *	NULL when the layouts agree;
 * impl: the implementation's name. */
struct bench_onednn_conv {
	dnnl_engine_t engine;
	dnnl_stream_t stream;
	dnnl_primitive_t conv;
	dnnl_memory_t user[3];
	dnnl_memory_t mem[3];
	dnnl_primitive_t reorder[3];
	char impl[64];
};

static const int conv_arg[3] = {
	DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST
};

static const dnnl_query_t conv_query[3] = {
	dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md
};

const char *bench_onednn_version(void)
{
	static char text[64];
	const dnnl_version_t *v = dnnl_version();

	snprintf(text, sizeof(text), "oneDNN %d.%d.%d (%s)", v->major,
		v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ?
		"OpenMP" : "other runtime");
	return text;
}

/* oneDNN's threads are OpenMP's (the Debian build uses libgomp). */
void bench_onednn_set_threads(int n)
{
	omp_set_num_threads(n);
}

/* The memory descriptor of a dense 4-d tensor in layout "tag". */
static dnnl_status_t desc_4d(dnnl_memory_desc_t *md, int a, int b, int c,
	int d, dnnl_format_tag_t tag)
{
	dnnl_dims_t dims = { a, b, c, d };

	return dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_f32, tag);
}

/* The convolution's primitive descriptor for "s" with "any" layouts. */
static dnnl_primitive_desc_t conv_pd(const struct bench_conv_shape *s,
	dnnl_engine_t engine)
{
	int oh = (s->h + 2 * s->pad - s->r) / s->stride + 1;
	int ow = (s->w + 2 * s->pad - s->s) / s->stride + 1;
	dnnl_memory_desc_t src, wei, dst;
	dnnl_convolution_desc_t cd;
	dnnl_dims_t strides = { s->stride, s->stride };
	dnnl_dims_t pad = { s->pad, s->pad };
	dnnl_primitive_desc_t pd = NULL;

	if (desc_4d(&src, s->n, s->c, s->h, s->w, dnnl_format_tag_any) ||
	    desc_4d(&wei, s->f, s->c, s->r, s->s, dnnl_format_tag_any) ||
	    desc_4d(&dst, s->n, s->f, oh, ow, dnnl_format_tag_any) ||
	    dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference,
		dnnl_convolution_direct, &src, &wei, NULL, &dst, strides, pad,
		pad) ||
	    dnnl_primitive_desc_create(&pd, &cd, NULL, engine, NULL))
		return NULL;
	return pd;
}

/* Make c->mem[i] for the convolution's layout "md" of the caller's
 * c->user[i], with a reorder between them if the layouts differ. */
static dnnl_status_t bind(struct bench_onednn_conv *c, int i,
	const dnnl_memory_desc_t *md)
{
	const dnnl_memory_desc_t *user_md;
	dnnl_primitive_desc_t rpd;
	dnnl_status_t st;

	if ((st = dnnl_memory_get_memory_desc(c->user[i], &user_md)))
		return st;
	if (dnnl_memory_desc_equal(user_md, md)) {
		c->mem[i] = c->user[i];
		return dnnl_success;
	}
	if ((st = dnnl_memory_create(&c->mem[i], md, c->engine,
		DNNL_MEMORY_ALLOCATE)))
		return st;
	st = i < 2 ? dnnl_reorder_primitive_desc_create(&rpd, user_md,
		c->engine, md, c->engine, NULL) :
		dnnl_reorder_primitive_desc_create(&rpd, md, c->engine,
		user_md, c->engine, NULL);
	if (st)
		return st;
	st = dnnl_primitive_create(&c->reorder[i], rpd);
	dnnl_primitive_desc_destroy(rpd);
	return st;
}

/* Wrap the caller's NCHW / FCRS buffers. */
static dnnl_status_t wrap_user(struct bench_onednn_conv *c,
	const struct bench_conv_shape *s, float *src, float *wei, float *dst)
{
	int oh = (s->h + 2 * s->pad - s->r) / s->stride + 1;
	int ow = (s->w + 2 * s->pad - s->s) / s->stride + 1;
	dnnl_memory_desc_t md[3];
	float *data[3] = { src, wei, dst };
	dnnl_status_t st;
	int i;

	if ((st = desc_4d(&md[0], s->n, s->c, s->h, s->w, dnnl_nchw)) ||
	    (st = desc_4d(&md[1], s->f, s->c, s->r, s->s, dnnl_oihw)) ||
	    (st = desc_4d(&md[2], s->n, s->f, oh, ow, dnnl_nchw)))
		return st;
	for (i = 0; i < 3; ++i)
		if ((st = dnnl_memory_create(&c->user[i], &md[i], c->engine,
			data[i])))
			return st;
	return dnnl_success;
}

/* Run reorder "i" (if any) and wait for it. */
static int run_reorder(struct bench_onednn_conv *c, int i)
{
	dnnl_exec_arg_t args[2] = {
		{ DNNL_ARG_FROM, i < 2 ? c->user[i] : c->mem[i] },
		{ DNNL_ARG_TO, i < 2 ? c->mem[i] : c->user[i] },
	};

	if (!c->reorder[i])
		return 0;
	if (dnnl_primitive_execute(c->reorder[i], c->stream, 2, args) ||
	    dnnl_stream_wait(c->stream))
		return -1;
	return 0;
}

struct bench_onednn_conv *bench_onednn_conv_alloc(
	const struct bench_conv_shape *shape, float *src, float *wei,
	float *dst)
{
	struct bench_onednn_conv *c = calloc(1, sizeof(*c));
	dnnl_primitive_desc_t pd = NULL;
	const char *impl = NULL;
	int i, ok;

	if (!c)
		return NULL;
	ok = !dnnl_engine_create(&c->engine, dnnl_cpu, 0) &&
		!dnnl_stream_create(&c->stream, c->engine,
			dnnl_stream_default_flags) &&
		(pd = conv_pd(shape, c->engine)) != NULL &&
		!wrap_user(c, shape, src, wei, dst);
	for (i = 0; ok && i < 3; ++i)
		ok = !bind(c, i, dnnl_primitive_desc_query_md(pd,
			conv_query[i], 0));
	ok = ok && !dnnl_primitive_create(&c->conv, pd);
	if (ok && !dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0,
		&impl))
		snprintf(c->impl, sizeof(c->impl), "%s", impl);
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (ok && run_reorder(c, 1) == 0)
		return c;
	bench_onednn_conv_free(c);
	return NULL;
}

void bench_onednn_conv_free(struct bench_onednn_conv *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < 3; ++i) {
		if (c->reorder[i])
			dnnl_primitive_destroy(c->reorder[i]);
		if (c->mem[i] && c->mem[i] != c->user[i])
			dnnl_memory_destroy(c->mem[i]);
		if (c->user[i])
			dnnl_memory_destroy(c->user[i]);
	}
	if (c->conv)
		dnnl_primitive_destroy(c->conv);
	if (c->stream)
		dnnl_stream_destroy(c->stream);
	if (c->engine)
		dnnl_engine_destroy(c->engine);
	free(c);
}

const char *bench_onednn_conv_impl(struct bench_onednn_conv *c)
{
	return c->impl[0] ? c->impl : "unknown";
}

int bench_onednn_conv_src_reorder(void *c)
{
	return run_reorder(c, 0);
}

int bench_onednn_conv_compute(void *arg)
{
	struct bench_onednn_conv *c = arg;
	dnnl_exec_arg_t args[3];
	int i;

	for (i = 0; i < 3; ++i) {
		args[i].arg = conv_arg[i];
		args[i].memory = c->mem[i];
	}
	if (dnnl_primitive_execute(c->conv, c->stream, 3, args) ||
	    dnnl_stream_wait(c->stream))
		return -1;
	return 0;
}

int bench_onednn_conv_dst_reorder(void *c)
{
	return run_reorder(c, 2);
}

int bench_onednn_conv_all(void *c)
{
	if (bench_onednn_conv_src_reorder(c) ||
	    bench_onednn_conv_compute(c) ||
	    bench_onednn_conv_dst_reorder(c))
		return -1;
	return 0;
}

/* A prepared int8 matmul.
 * engine, stream: the CPU engine and its stream; mm: the primitive;
 * src, dst: the caller's A and C; wei_user, wei: the caller's B and its
 * copy in oneDNN's layout (the same object when the layouts agree);
 * impl: the implementation's name. */
struct bench_onednn_qgemm {
	dnnl_engine_t engine;
	dnnl_stream_t stream;
	dnnl_primitive_t mm;
	dnnl_memory_t src, wei_user, wei, dst;
	char impl[64];
};

/* The memory descriptor of a dense 2-d tensor of "type" in "tag". */
static dnnl_status_t desc_2d(dnnl_memory_desc_t *md, int64_t a, int64_t b,
	dnnl_data_type_t type, dnnl_format_tag_t tag)
{
	dnnl_dims_t dims = { a, b };

	return dnnl_memory_desc_init_by_tag(md, 2, dims, type, tag);
}

/* Reorder the caller's weights into q->wei (created for "md"). */
static int reorder_weights(struct bench_onednn_qgemm *q,
	const dnnl_memory_desc_t *md)
{
	const dnnl_memory_desc_t *user_md;
	dnnl_primitive_desc_t rpd;
	dnnl_primitive_t r = NULL;
	dnnl_exec_arg_t args[2];
	int ok;

	if (dnnl_memory_get_memory_desc(q->wei_user, &user_md))
		return -1;
	if (dnnl_memory_desc_equal(user_md, md)) {
		q->wei = q->wei_user;
		return 0;
	}
	if (dnnl_memory_create(&q->wei, md, q->engine, DNNL_MEMORY_ALLOCATE) ||
	    dnnl_reorder_primitive_desc_create(&rpd, user_md, q->engine, md,
		q->engine, NULL))
		return -1;
	ok = !dnnl_primitive_create(&r, rpd);
	dnnl_primitive_desc_destroy(rpd);
	args[0].arg = DNNL_ARG_FROM;
	args[0].memory = q->wei_user;
	args[1].arg = DNNL_ARG_TO;
	args[1].memory = q->wei;
	ok = ok && !dnnl_primitive_execute(r, q->stream, 2, args) &&
		!dnnl_stream_wait(q->stream);
	if (r)
		dnnl_primitive_destroy(r);
	return ok ? 0 : -1;
}

/* The primitive descriptor of the matmul, weights in layout "any". */
static dnnl_primitive_desc_t qgemm_pd(struct bench_onednn_qgemm *q,
	int64_t m, int64_t k, int64_t n, uint8_t *a, int8_t *b, int32_t *c)
{
	dnnl_memory_desc_t amd, bmd, bany, cmd;
	dnnl_matmul_desc_t desc;
	dnnl_primitive_desc_t pd = NULL;

	if (desc_2d(&amd, m, k, dnnl_u8, dnnl_ab) ||
	    desc_2d(&bmd, k, n, dnnl_s8, dnnl_ab) ||
	    desc_2d(&bany, k, n, dnnl_s8, dnnl_format_tag_any) ||
	    desc_2d(&cmd, m, n, dnnl_s32, dnnl_ab) ||
	    dnnl_memory_create(&q->src, &amd, q->engine, a) ||
	    dnnl_memory_create(&q->wei_user, &bmd, q->engine, b) ||
	    dnnl_memory_create(&q->dst, &cmd, q->engine, c) ||
	    dnnl_matmul_desc_init(&desc, &amd, &bany, NULL, &cmd) ||
	    dnnl_primitive_desc_create(&pd, &desc, NULL, q->engine, NULL))
		return NULL;
	return pd;
}

struct bench_onednn_qgemm *bench_onednn_qgemm_alloc(int64_t m, int64_t k,
	int64_t n, uint8_t *a, int8_t *b, int32_t *c)
{
	struct bench_onednn_qgemm *q = calloc(1, sizeof(*q));
	dnnl_primitive_desc_t pd = NULL;
	const char *impl = NULL;
	int ok;

	if (!q)
		return NULL;
	ok = !dnnl_engine_create(&q->engine, dnnl_cpu, 0) &&
		!dnnl_stream_create(&q->stream, q->engine,
			dnnl_stream_default_flags) &&
		(pd = qgemm_pd(q, m, k, n, a, b, c)) != NULL &&
		!reorder_weights(q, dnnl_primitive_desc_query_md(pd,
			dnnl_query_weights_md, 0)) &&
		!dnnl_primitive_create(&q->mm, pd);
	if (ok && !dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0,
		&impl))
		snprintf(q->impl, sizeof(q->impl), "%s", impl);
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (ok)
		return q;
	bench_onednn_qgemm_free(q);
	return NULL;
}

void bench_onednn_qgemm_free(struct bench_onednn_qgemm *q)
{
	if (!q)
		return;
	if (q->wei && q->wei != q->wei_user)
		dnnl_memory_destroy(q->wei);
	if (q->wei_user)
		dnnl_memory_destroy(q->wei_user);
	if (q->src)
		dnnl_memory_destroy(q->src);
	if (q->dst)
		dnnl_memory_destroy(q->dst);
	if (q->mm)
		dnnl_primitive_destroy(q->mm);
	if (q->stream)
		dnnl_stream_destroy(q->stream);
	if (q->engine)
		dnnl_engine_destroy(q->engine);
	free(q);
}

const char *bench_onednn_qgemm_impl(struct bench_onednn_qgemm *q)
{
	return q->impl[0] ? q->impl : "unknown";
}

int bench_onednn_qgemm_run(void *arg)
{
	struct bench_onednn_qgemm *q = arg;
	dnnl_exec_arg_t args[3] = {
		{ DNNL_ARG_SRC, q->src }, { DNNL_ARG_WEIGHTS, q->wei },
		{ DNNL_ARG_DST, q->dst },
	};

	if (dnnl_primitive_execute(q->mm, q->stream, 3, args) ||
	    dnnl_stream_wait(q->stream))
		return -1;
	return 0;
}
