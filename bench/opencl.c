/*
 * opencl.c: SGEMM on OpenCL (issue 20), C = A B row-major (1024^3, an
 * odd shape and BERT's), and batched
 * SGEMM (bmm, 12 products of 128x64x128): ein's matmul (bmm) compiled
 * for the OpenCL device (EIN_OPENCL_DEVICE, else the first GPU,
 * else the first device: PoCL's CPU device here) with the default GPU
 * mapping, with the hand schedule bench/schedules/opencl/<def>.sched and
 * with the shape's schedule from "ein tune --target opencl"
 * (bench/schedules/opencl/tuned/, written by bench/opencl_tune.sh),
 * against CLBlast's CLBlastSgemm (CLBlastSgemmBatched) on the same device, context, queue and
 * buffers, and against ein's own CPU code (schedule lookup, else the
 * automatic schedule) on the host.
 *
 * The OpenCL variants take kDLOpenCL tensors (cl_mem buffers of the
 * kernels' context, made once), so that no call copies anything and
 * both ein and CLBlast are timed on the kernels alone; a call returns
 * when the device has finished (clFinish for CLBlast).  Check first: every
 * ein result, read back, against CLBlast's within 16 sqrt(K) eps |C|max;
 * a wrong kernel is reported and not timed.
 *
 * Without CLBlast (configure's have_clblast) the group says so and is
 * skipped.  The convolutions, softmax and layernorm follow
 * (opencl_ops.c).
 */
#include <config.h>
#include "bench.h"

#ifndef HAVE_CLBLAST

int bench_opencl(struct bench_program *p, const struct bench_opts *o)
{
	(void) p;
	(void) o;
	printf("\n## SGEMM on OpenCL against CLBlast\n\nSkipped: configure "
		"found no CLBlast (Debian package libclblast-dev) or no "
		"OpenCL.\n");
	return 0;
}

#else

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast_c.h>

/* A shape: nb products (matmul if 1, else bmm), each C is m x n, the
 * reduction k long. */
struct shape {
	int64_t nb, m, k, n;
};

/* SGEMM 1024^3, an odd shape, BERT-base's projections at sequence
 * length 128 (QKV and output 768 -> 768, the feed-forward's 768 -> 3072
 * and 3072 -> 768), and a batch of attention-sized products. */
static const struct shape full_shapes[] = {
	{ 1, 1024, 1024, 1024 }, { 1, 127, 255, 511 },
	{ 1, 128, 768, 768 }, { 1, 128, 768, 3072 }, { 1, 128, 3072, 768 },
	{ 12, 128, 64, 128 },
};

static const struct shape small_shapes[] = {
	{ 1, 13, 19, 17 }, { 3, 13, 19, 17 },
};

/* The default GPU mapping takes 7 to 12 s at 1024^3 on PoCL
 * (docs/performance.md): above this many multiply-adds it is neither
 * checked nor timed. */
#define DEFAULT_MAX_MACS (1LL << 27)

/* The variants, in the order of the table. */
enum { V_DFLT, V_HAND, V_TUNED, V_CLBLAST, V_CPU, N_VAR };

/* A CLBlast call: C = A B on "queue" (CLBlastSgemmBatched when s.nb >
 * 1, with each product's offsets and factors), finished when it
 * returns. */
struct clblast_call {
	struct shape s;
	cl_command_queue queue;
	cl_mem a, b, c;
	size_t off[3][16];
	float alpha[16], beta[16];
};

/* One case: host A, B and each variant's C (read back for the check),
 * the device buffers, the kernels and their calls. */
struct ocl_case {
	struct shape s;
	struct bench_tensor a, b, c[N_VAR];
	cl_mem ma, mb, mc[V_CPU];
	DLTensor da, db, dc[V_CPU];
	int64_t sha[3], shb[3], shc[3];
	ein_kernel *k[N_VAR];
	struct bench_call call[N_VAR];
	struct clblast_call cb;
};

static int clblast_run(void *arg)
{
	struct clblast_call *c = arg;
	cl_event ev = NULL;
	CLBlastStatusCode st;

	if (c->s.nb > 1)
		st = CLBlastSgemmBatched(CLBlastLayoutRowMajor,
			CLBlastTransposeNo, CLBlastTransposeNo, c->s.m, c->s.n,
			c->s.k, c->alpha, c->a, c->off[0], c->s.k, c->b,
			c->off[1], c->s.n, c->beta, c->c, c->off[2], c->s.n,
			c->s.nb, &c->queue, &ev);
	else
		st = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
			CLBlastTransposeNo, c->s.m, c->s.n, c->s.k, 1.0f, c->a,
			0, c->s.k, c->b, 0, c->s.n, 0.0f, c->c, 0, c->s.n,
			&c->queue, &ev);
	if (ev)
		clReleaseEvent(ev);
	if (st != CLBlastSuccess)
		return -1;
	return clFinish(c->queue) == CL_SUCCESS ? 0 : -1;
}

static const char *def_name(const struct shape *s)
{
	return s->nb > 1 ? "bmm" : "matmul";
}

int bench_opencl_tuned(char *buf, size_t len, const struct bench_opts *o,
	const char *def, int n, const int64_t *size)
{
	size_t at = snprintf(buf, len, "%s/schedules/opencl/tuned/%s",
		o->dir, def);
	FILE *f;
	int i;

	for (i = 0; i < n && at < len; ++i)
		at += snprintf(buf + at, len - at, "%s%lld", i ? "x" : ".",
			(long long) size[i]);
	if (at >= len || snprintf(buf + at, len - at, ".sched") >=
	    (int) (len - at))
		return 0;
	f = fopen(buf, "r");
	if (f)
		fclose(f);
	return f != NULL;
}

/* The tuned schedule of shape "s" in "buf" (bench_opencl_tuned: batch,
 * M, K, N for bmm, M, K, N for matmul); 0 if there is none. */
static int tuned_file(char *buf, size_t len, const struct bench_opts *o,
	const struct shape *s)
{
	int64_t size[4] = { s->nb, s->m, s->k, s->n };

	return s->nb > 1 ? bench_opencl_tuned(buf, len, o, "bmm", 4, size) :
		bench_opencl_tuned(buf, len, o, "matmul", 3, size + 1);
}

/* matmul (bmm) at the case's sizes (fixed) for "target" (NULL: the CPU), with
 * the schedule file "sched", or else the default schedule when "dflt",
 * or else lookup and the automatic schedule. */
static ein_kernel *compile(struct bench_program *p, const struct shape *s,
	const char *target, const char *sched, int dflt)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = NULL;
	int ok = opts != NULL;

	if (s->nb > 1)
		ok = ok && ein_options_fix_size(opts, "Bt", s->nb) == EIN_OK;
	ok = ok && ein_options_fix_size(opts, "M", s->m) == EIN_OK &&
		ein_options_fix_size(opts, "K", s->k) == EIN_OK &&
		ein_options_fix_size(opts, "N", s->n) == EIN_OK;
	if (ok && target)
		ok = ein_options_set_target(opts, target) == EIN_OK;
	if (ok && sched)
		ok = ein_options_set_schedule(opts, sched) == EIN_OK;
	else if (ok && dflt)
		ok = ein_options_set_schedule_lookup(opts, 0) == EIN_OK &&
			ein_options_set_auto(opts, 0) == EIN_OK;
	if (ok)
		k = ein_kernel_compile_with(p->prog, def_name(s), opts);
	ein_options_free(opts);
	if (!k)
		fprintf(stderr, "bench: cannot compile %s%s%s:\n%s\n",
			def_name(s), target ? " for " : "", target ? target : "",
			ein_ctx_last_error(p->ctx));
	return k;
}

/* A kDLOpenCL view "t" of "mem" with "shape" (the batch dimension
 * first, left out for nb == 1). */
static void device_view(DLTensor *t, cl_mem mem, int64_t *shape,
	const struct shape *s)
{
	memset(t, 0, sizeof(*t));
	t->data = mem;
	t->device.device_type = kDLOpenCL;
	t->ndim = s->nb > 1 ? 3 : 2;
	shape += s->nb > 1 ? 0 : 1;
	t->shape = shape;
	t->dtype.code = kDLFloat;
	t->dtype.bits = 32;
	t->dtype.lanes = 1;
}

static void call_init(struct bench_call *c, ein_kernel *k, DLTensor *a,
	DLTensor *b, DLTensor *out, const struct shape *s)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->k = k;
	c->args[0] = a;
	c->args[1] = b;
	c->args[2] = out;
	c->n_arg = 3;
	c->n_size = ein_kernel_n_size(k);
	for (i = 0; i < c->n_size; ++i) {
		const char *name = ein_kernel_get_size_name(k, i);

		c->sizes[i] = !strcmp(name, "M") ? s->m :
			!strcmp(name, "N") ? s->n : !strcmp(name, "Bt") ?
			s->nb : s->k;
	}
}

static void case_free(struct ocl_case *g)
{
	int i;

	for (i = 0; i < V_CPU; ++i)
		if (g->mc[i])
			clReleaseMemObject(g->mc[i]);
	if (g->ma)
		clReleaseMemObject(g->ma);
	if (g->mb)
		clReleaseMemObject(g->mb);
	for (i = 0; i < N_VAR; ++i) {
		ein_kernel_free(g->k[i]);
		bench_tensor_free(&g->c[i]);
	}
	bench_tensor_free(&g->a);
	bench_tensor_free(&g->b);
}

static cl_mem buffer(cl_context ctx, struct bench_tensor *t)
{
	cl_int err;
	cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE |
		CL_MEM_COPY_HOST_PTR, t->n * sizeof(float), t->f, &err);

	return err == CL_SUCCESS ? m : NULL;
}

/* Compile the kernels and make the data of one shape; -1 after a
 * message. */
static int case_init(struct ocl_case *g, struct bench_program *p,
	const struct bench_opts *o, const struct shape *s)
{
	int nd = s->nb > 1 ? 3 : 2, b0 = s->nb > 1 ? 0 : 1;
	int64_t sa[3] = { s->nb, s->m, s->k }, sb[3] = { s->nb, s->k, s->n },
		sc[3] = { s->nb, s->m, s->n };
	char sched[1024], tuned[1024];
	void *ctx = NULL, *queue = NULL;
	int i, ok;

	memset(g, 0, sizeof(*g));
	g->s = *s;
	if (s->nb > 16)
		return -1;
	snprintf(sched, sizeof(sched), "%s/schedules/opencl/%s.sched",
		o->dir, def_name(s));
	if (bench_tensor_alloc(&g->a, nd, sa + b0) ||
	    bench_tensor_alloc(&g->b, nd, sb + b0))
		return -1;
	for (i = 0; i < N_VAR; ++i)
		if (bench_tensor_alloc(&g->c[i], nd, sc + b0))
			return -1;
	bench_tensor_fill(&g->a, 1);
	bench_tensor_fill(&g->b, 2);
	g->k[V_HAND] = compile(p, s, "opencl", sched, 0);
	if (s->nb * s->m * s->k * s->n <= DEFAULT_MAX_MACS)
		g->k[V_DFLT] = compile(p, s, "opencl", NULL, 1);
	if (tuned_file(tuned, sizeof(tuned), o, s) &&
	    !(g->k[V_TUNED] = compile(p, s, "opencl", tuned, 0)))
		return -1;
	g->k[V_CPU] = compile(p, s, NULL, NULL, 0);
	if (!g->k[V_HAND] || !g->k[V_CPU] ||
	    (s->nb * s->m * s->k * s->n <= DEFAULT_MAX_MACS &&
	     !g->k[V_DFLT]))
		return -1;
	if (ein_kernel_get_opencl(g->k[V_HAND], &ctx, &queue) != EIN_OK)
		return -1;
	g->ma = buffer(ctx, &g->a);
	g->mb = buffer(ctx, &g->b);
	ok = g->ma && g->mb;
	for (i = 0; i < V_CPU; ++i)
		ok = ok && (g->mc[i] = buffer(ctx, &g->c[i])) != NULL;
	if (!ok) {
		fprintf(stderr, "bench: cannot make OpenCL buffers\n");
		return -1;
	}
	memcpy(g->sha, sa, sizeof(sa));
	memcpy(g->shb, sb, sizeof(sb));
	memcpy(g->shc, sc, sizeof(sc));
	device_view(&g->da, g->ma, g->sha, s);
	device_view(&g->db, g->mb, g->shb, s);
	for (i = 0; i < V_CPU; ++i)
		device_view(&g->dc[i], g->mc[i], g->shc, s);
	for (i = V_DFLT; i <= V_TUNED; ++i)
		if (g->k[i])
			call_init(&g->call[i], g->k[i], &g->da, &g->db,
				&g->dc[i], s);
	call_init(&g->call[V_CPU], g->k[V_CPU], &g->a.dl, &g->b.dl,
		&g->c[V_CPU].dl, s);
	g->cb.s = *s;
	g->cb.queue = queue;
	g->cb.a = g->ma;
	g->cb.b = g->mb;
	g->cb.c = g->mc[V_CLBLAST];
	for (i = 0; i < s->nb; ++i) {
		g->cb.off[0][i] = i * s->m * s->k;
		g->cb.off[1][i] = i * s->k * s->n;
		g->cb.off[2][i] = i * s->m * s->n;
		g->cb.alpha[i] = 1;
		g->cb.beta[i] = 0;
	}
	return 0;
}

static const char *const var_name[N_VAR] = {
	"ein OpenCL default", "ein OpenCL hand", "ein OpenCL tuned", "CLBlast",
	"ein CPU"
};

/* Run each variant once and check it against CLBlast; the number of
 * failures (a failed variant is dropped from the timing). */
static int check(struct ocl_case *g, struct bench_program *p,
	struct bench_variant *v)
{
	int64_t e, n = g->s.nb * g->s.m * g->s.n;
	double scale = 1, tol, d;
	int i, failed = 0;

	if (clblast_run(&g->cb) != 0 || clEnqueueReadBuffer(g->cb.queue,
	    g->mc[V_CLBLAST], CL_TRUE, 0, n * sizeof(float),
	    g->c[V_CLBLAST].f, 0, NULL, NULL) != CL_SUCCESS) {
		fprintf(stderr, "bench: CLBlastSgemm failed\n");
		return N_VAR;
	}
	for (e = 0; e < n; ++e)
		scale = fmax(scale, fabs(g->c[V_CLBLAST].f[e]) + 1);
	tol = 16 * sqrt(g->s.k) * FLT_EPSILON * scale;
	for (i = 0; i < N_VAR; ++i) {
		if (i == V_CLBLAST || !v[i].run)
			continue;
		if (bench_call_run(&g->call[i]) != 0 || (i != V_CPU &&
		    clEnqueueReadBuffer(g->cb.queue, g->mc[i], CL_TRUE, 0,
		    n * sizeof(float), g->c[i].f, 0, NULL, NULL) !=
		    CL_SUCCESS)) {
			fprintf(stderr, "bench: %s failed: %s\n", var_name[i],
				ein_ctx_last_error(p->ctx));
		} else if (bench_compare_f(g->c[i].f, g->c[V_CLBLAST].f, n,
		    0, tol, &d)) {
			fprintf(stderr, "bench: %s %lld x %lldx%lldx%lld (%s):"
				" max |error| %g > %g against CLBlast\n",
				def_name(&g->s), (long long) g->s.nb,
				(long long) g->s.m, (long long) g->s.k,
				(long long) g->s.n, var_name[i], d, tol);
		} else {
			continue;
		}
		v[i].run = NULL;
		failed++;
	}
	return failed;
}

/* Check, then time (unless --small) one shape; prints its row. */
static int run_case(struct bench_program *p, const struct bench_opts *o,
	const struct shape *s)
{
	struct ocl_case g;
	struct bench_variant v[N_VAR];
	double gf = 2e-9 * s->nb * s->m * s->k * s->n;
	char b[11][32];
	int i, failed;

	if (case_init(&g, p, o, s) != 0) {
		case_free(&g);
		return 1;
	}
	for (i = 0; i < N_VAR; ++i) {
		v[i].name = var_name[i];
		v[i].run = i == V_CLBLAST ? &clblast_run :
			g.k[i] ? &bench_call_run : NULL;
		v[i].arg = i == V_CLBLAST ? (void *) &g.cb :
			(void *) &g.call[i];
		v[i].median = -1;
	}
	failed = check(&g, p, v);
	if (!o->small && failed < N_VAR)
		failed += bench_measure(v, N_VAR, o);
	for (i = 0; i < N_VAR; ++i)
		if (o->small || !v[i].run)
			v[i].median = -1;
#define RATIO(x, y) (v[x].median > 0 && v[y].median > 0 ? \
	v[y].median / v[x].median : -1)
	printf("| %lld x %lldx%lldx%lld | %s | %s | %s | %s | %s | %s | %s | %s"
		" | %s | %s | %s |\n",
		(long long) s->nb, (long long) s->m, (long long) s->k,
		(long long) s->n, bench_cell(b[0], 32, v[V_DFLT].median * 1e3, 2),
		bench_cell(b[1], 32, v[V_HAND].median * 1e3, 2),
		bench_cell(b[2], 32, v[V_TUNED].median * 1e3, 2),
		bench_cell(b[3], 32, v[V_CLBLAST].median * 1e3, 2),
		bench_cell(b[4], 32, v[V_CPU].median * 1e3, 2),
		bench_cell(b[5], 32, v[V_HAND].median > 0 ?
			gf / v[V_HAND].median : -1, 1),
		bench_cell(b[6], 32, v[V_CLBLAST].median > 0 ?
			gf / v[V_CLBLAST].median : -1, 1),
		bench_cell(b[7], 32, RATIO(V_HAND, V_CLBLAST), 2),
		bench_cell(b[8], 32, RATIO(V_TUNED, V_CLBLAST), 2),
		bench_cell(b[9], 32, RATIO(V_CPU, V_HAND), 2),
		bench_cell(b[10], 32, RATIO(V_CPU, V_TUNED), 2));
#undef RATIO
	case_free(&g);
	return failed;
}

int bench_opencl(struct bench_program *p, const struct bench_opts *o)
{
	const struct shape *shapes = o->small ? small_shapes : full_shapes;
	size_t i, n = o->small ? sizeof(small_shapes) / sizeof(*shapes) :
		sizeof(full_shapes) / sizeof(*shapes);
	char *dev = ein_opencl_devices();
	int failed = 0;

	printf("\n## SGEMM on OpenCL against CLBlast (%d.%d.%d)\n\n"
		"Row-major C = A B (batch 1: matmul against CLBlastSgemm; "
		"more: bmm against CLBlastSgemmBatched).  ein OpenCL: "
		"matmul (bmm) compiled for the "
		"OpenCL device with the default GPU mapping (\"default\"; "
		"not run above 2^27 multiply-adds, where it takes seconds), "
		"with bench/schedules/opencl/<def>.sched (\"hand\") and "
		"with the shape's bench/schedules/opencl/tuned/<def>.<sizes>"
		".sched from ein tune --target opencl (\"tuned\", "
		"bench/opencl_tune.sh; - without one), "
		"against CLBlast on the same device, queue and buffers "
		"(no copies timed); ein CPU: ein's own code on the host, "
		"%d thread(s).  hand/CLBlast is CLBlast's median time over "
		"ein's (above 1: ein is faster); hand/CPU is ein OpenCL's "
		"time over ein CPU's (above 1: OpenCL is slower); tuned/ the "
		"same for the tuned schedule.  Devices:\n\n"
		"```\n%s```\n\n"
		"| batch x M x K x N | default ms | hand ms | tuned ms | "
		"CLBlast ms | CPU ms | hand GFLOP/s | CLBlast GFLOP/s | "
		"hand/CLBlast | tuned/CLBlast | hand/CPU | tuned/CPU |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n",
		CLBLAST_VERSION_MAJOR, CLBLAST_VERSION_MINOR,
		CLBLAST_VERSION_PATCH, o->max_threads,
		dev ? dev : "none\n");
	free(dev);
	bench_set_threads(o->max_threads);
	for (i = 0; i < n; ++i)
		failed += run_case(p, o, &shapes[i]);
	return failed + bench_opencl_ops(p, o);
}

#endif
