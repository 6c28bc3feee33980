/*
 * opencl_ops.c: the rest of issue 20's OpenCL benchmark (opencl.c has
 * the GEMMs): the 3x3 convolutions of ResNet-50 (conv3x3, NCHW, stride
 * 1, padding 1) at 56^2 (64 -> 64 channels) and 14^2 (256 -> 256)
 * against CLBlast's convgemm (CLBlastSconvgemm, cross-correlation, the
 * same NCHW and FCRS layouts), and softmax (4096 x 4096) and layer
 * normalisation (4096 x 1024), which CLBlast has no routine for.  Each
 * kernel of bench/kernels.ein runs for the OpenCL device with the
 * default GPU mapping, with bench/schedules/opencl/<def>.sched and with
 * the row's schedule from "ein tune --target opencl"
 * (bench/schedules/opencl/tuned/, bench/opencl_tune.sh), and on
 * the host as ein's own CPU code with the CPU's hand schedule
 * bench/schedules/<def>.sched (the best the benchmark has for it).
 *
 * As in opencl.c, the OpenCL variants take kDLOpenCL tensors (cl_mem
 * buffers made once, on the kernels' context and queue), so that no copy
 * is timed, and a call returns when the device has finished.  Every
 * result (CLBlast's too) is checked first against C loops in double, as
 * conv.c and memory.c check theirs; a wrong one is reported and not
 * timed.
 */
#include <config.h>
#include "bench.h"

#ifndef HAVE_CLBLAST

/* opencl.c reports the group skipped. */
int bench_opencl_ops(struct bench_program *p, const struct bench_opts *o)
{
	(void) p;
	(void) o;
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

/* The variants, in the order of the table. */
enum { V_DFLT, V_HAND, V_TUNED, V_CLBLAST, V_CPU, N_VAR };

/* The most inputs of a kernel (layernorm: X, gamma, beta). */
#define MAX_IN 3

/* One row of the table: definition "def" at the sizes "size" (named as
 * in kernels.ein, in its order), its inputs' and output's shapes, the
 * floating-point operations of a call (for GFLOP/s; 0: none shown) and
 * whether CLBlast's convgemm computes it. */
struct op {
	const char *def;
	const char *label;
	int n_size;
	const char *size_name[5];
	int64_t size[5];
	int n_in;
	int in_nd[MAX_IN];
	int64_t in_shape[MAX_IN][4];
	int out_nd;
	int64_t out_shape[4];
	double flops;
	int conv;
};

#define CONV(c, hw) { "conv3x3", "conv3x3 " #hw "^2, " #c " -> " #c, 5, \
	{ "N", "C", "H", "W", "F" }, { 1, c, hw, hw, c }, 2, { 4, 4 }, \
	{ { 1, c, hw, hw }, { c, c, 3, 3 } }, 4, { 1, c, hw, hw }, \
	2.0 * c * c * 9 * hw * hw, 1 }
#define SOFTMAX(n, m) { "softmax", "softmax " #n " x " #m, 2, { "N", "M" }, \
	{ n, m }, 1, { 2 }, { { n, m } }, 2, { n, m }, 0, 0 }
#define LAYERNORM(n, d) { "layernorm", "layernorm " #n " x " #d, 2, \
	{ "N", "D" }, { n, d }, 3, { 2, 1, 1 }, { { n, d }, { d }, { d } }, \
	2, { n, d }, 0, 0 }

static const struct op full_ops[] = {
	CONV(64, 56), CONV(256, 14), SOFTMAX(4096, 4096),
	LAYERNORM(4096, 1024),
};

static const struct op small_ops[] = {
	CONV(5, 9), SOFTMAX(5, 37), LAYERNORM(7, 19),
};

/* CLBlast's convgemm of "op" on "queue": result = conv(im, kernel),
 * finished when it returns. */
struct convgemm_call {
	const struct op *op;
	cl_command_queue queue;
	cl_mem im, kernel, result;
};

/* One row being measured: host inputs and each variant's output, their
 * device buffers and kDLOpenCL views, the kernels and their calls, and
 * the reference in double. */
struct op_case {
	const struct op *op;
	struct bench_tensor in[MAX_IN], out[N_VAR];
	cl_mem min[MAX_IN], mout[V_CPU];
	DLTensor din[MAX_IN], dout[V_CPU];
	ein_kernel *k[N_VAR];
	struct bench_call call[N_VAR];
	struct convgemm_call cg;
	double *ref;
};

static int convgemm_run(void *arg)
{
	struct convgemm_call *c = arg;
	const int64_t *s = c->op->size;
	cl_event ev = NULL;
	CLBlastStatusCode st;

	st = CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, s[1], s[2],
		s[3], 3, 3, 1, 1, 1, 1, 1, 1, s[4], s[0], c->im, 0, c->kernel,
		0, c->result, 0, &c->queue, &ev);
	if (ev)
		clReleaseEvent(ev);
	if (st != CLBlastSuccess)
		return -1;
	return clFinish(c->queue) == CL_SUCCESS ? 0 : -1;
}

/* op's kernel at its sizes (fixed) for "target" (NULL: the CPU) with the
 * schedule file "sched", or the default GPU mapping if NULL. */
static ein_kernel *compile(struct bench_program *p, const struct op *op,
	const char *target, const char *sched)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = NULL;
	int i, ok = opts != NULL;

	for (i = 0; ok && i < op->n_size; ++i)
		ok = ein_options_fix_size(opts, op->size_name[i],
			op->size[i]) == EIN_OK;
	if (ok && target)
		ok = ein_options_set_target(opts, target) == EIN_OK;
	if (ok && sched)
		ok = ein_options_set_schedule(opts, sched) == EIN_OK;
	else if (ok)
		ok = ein_options_set_schedule_lookup(opts, 0) == EIN_OK &&
			ein_options_set_auto(opts, 0) == EIN_OK;
	if (ok)
		k = ein_kernel_compile_with(p->prog, op->def, opts);
	ein_options_free(opts);
	if (!k)
		fprintf(stderr, "bench: cannot compile %s%s%s:\n%s\n", op->def,
			target ? " for " : "", target ? target : "",
			ein_ctx_last_error(p->ctx));
	return k;
}

/* A kDLOpenCL view "t" of "mem" with the "nd" dimensions "shape". */
static void device_view(DLTensor *t, cl_mem mem, int nd, int64_t *shape)
{
	memset(t, 0, sizeof(*t));
	t->data = mem;
	t->device.device_type = kDLOpenCL;
	t->ndim = nd;
	t->shape = shape;
	t->dtype.code = kDLFloat;
	t->dtype.bits = 32;
	t->dtype.lanes = 1;
}

/* A call of "k" on the inputs "in" and the output "out" of "op". */
static void call_init(struct bench_call *c, ein_kernel *k, DLTensor **in,
	DLTensor *out, const struct op *op)
{
	int i, j;

	memset(c, 0, sizeof(*c));
	c->k = k;
	for (i = 0; i < op->n_in; ++i)
		c->args[i] = in[i];
	c->args[op->n_in] = out;
	c->n_arg = op->n_in + 1;
	c->n_size = ein_kernel_n_size(k);
	for (i = 0; i < c->n_size; ++i)
		for (j = 0; j < op->n_size; ++j)
			if (!strcmp(ein_kernel_get_size_name(k, i),
					op->size_name[j]))
				c->sizes[i] = op->size[j];
}

static cl_mem buffer(cl_context ctx, struct bench_tensor *t)
{
	cl_int err;
	cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE |
		CL_MEM_COPY_HOST_PTR, t->n * sizeof(float), t->f, &err);

	return err == CL_SUCCESS ? m : NULL;
}

static void case_free(struct op_case *g)
{
	int i;

	for (i = 0; i < MAX_IN; ++i) {
		if (g->min[i])
			clReleaseMemObject(g->min[i]);
		bench_tensor_free(&g->in[i]);
	}
	for (i = 0; i < N_VAR; ++i) {
		if (i < V_CPU && g->mout[i])
			clReleaseMemObject(g->mout[i]);
		ein_kernel_free(g->k[i]);
		bench_tensor_free(&g->out[i]);
	}
	free(g->ref);
}

/* The reference of conv3x3 (zero padding 1) in double. */
static void conv_ref(const struct op_case *g, double *o)
{
	const int64_t *s = g->op->size;
	const float *in = g->in[0].f, *wt = g->in[1].f;
	int64_t n, f, c, h, w, r, q;

	for (n = 0; n < s[0]; ++n)
	for (f = 0; f < s[4]; ++f)
	for (h = 0; h < s[2]; ++h)
	for (w = 0; w < s[3]; ++w) {
		double acc = 0;

		for (c = 0; c < s[1]; ++c)
		for (r = 0; r < 3; ++r)
		for (q = 0; q < 3; ++q) {
			int64_t y = h + r - 1, x = w + q - 1;

			if (y >= 0 && y < s[2] && x >= 0 && x < s[3])
				acc += (double) in[((n * s[1] + c) * s[2] + y) *
					s[3] + x] * wt[((f * s[1] + c) * 3 + r) *
					3 + q];
		}
		o[((n * s[4] + f) * s[2] + h) * s[3] + w] = acc;
	}
}

/* The reference of softmax (each row) in double. */
static void softmax_ref(const struct op_case *g, double *y)
{
	int64_t rows = g->op->size[0], n = g->op->size[1], i, j;

	for (i = 0; i < rows; ++i) {
		const float *x = g->in[0].f + i * n;
		double mx = -INFINITY, sum = 0;

		for (j = 0; j < n; ++j)
			mx = fmax(mx, x[j]);
		for (j = 0; j < n; ++j)
			sum += y[i * n + j] = exp(x[j] - mx);
		for (j = 0; j < n; ++j)
			y[i * n + j] /= sum;
	}
}

/* The reference of layernorm (each row, epsilon 1e-5) in double. */
static void layernorm_ref(const struct op_case *g, double *y)
{
	int64_t rows = g->op->size[0], n = g->op->size[1], i, j;
	const float *gamma = g->in[1].f, *beta = g->in[2].f;

	for (i = 0; i < rows; ++i) {
		const float *x = g->in[0].f + i * n;
		double mu = 0, var = 0;

		for (j = 0; j < n; ++j)
			mu += x[j];
		mu /= n;
		for (j = 0; j < n; ++j)
			var += (x[j] - mu) * (x[j] - mu);
		var /= n;
		for (j = 0; j < n; ++j)
			y[i * n + j] = (x[j] - mu) / sqrt(var + 1e-5) *
				gamma[j] + beta[j];
	}
}

/* The host data, the reference and the kernels of "op"; -1 after a
 * message. */
static int case_data(struct op_case *g, struct bench_program *p,
	const struct bench_opts *o, const struct op *op)
{
	char hand[1024], cpu[1024], tuned[1024];
	int i;

	snprintf(hand, sizeof(hand), "%s/schedules/opencl/%s.sched", o->dir,
		op->def);
	snprintf(cpu, sizeof(cpu), "%s/schedules/%s.sched", o->dir, op->def);
	for (i = 0; i < op->n_in; ++i) {
		if (bench_tensor_alloc(&g->in[i], op->in_nd[i],
				op->in_shape[i]))
			return -1;
		bench_tensor_fill(&g->in[i], 11 + i);
	}
	for (i = 0; i < N_VAR; ++i)
		if (bench_tensor_alloc(&g->out[i], op->out_nd, op->out_shape))
			return -1;
	g->ref = malloc(g->out[0].n * sizeof(*g->ref));
	if (!g->ref)
		return -1;
	if (op->conv)
		conv_ref(g, g->ref);
	else if (!strcmp(op->def, "softmax"))
		softmax_ref(g, g->ref);
	else
		layernorm_ref(g, g->ref);
	g->k[V_DFLT] = compile(p, op, "opencl", NULL);
	g->k[V_HAND] = compile(p, op, "opencl", hand);
	if (bench_opencl_tuned(tuned, sizeof(tuned), o, op->def, op->n_size,
	    op->size) && !(g->k[V_TUNED] = compile(p, op, "opencl", tuned)))
		return -1;
	g->k[V_CPU] = compile(p, op, NULL, cpu);
	return g->k[V_DFLT] && g->k[V_HAND] && g->k[V_CPU] ? 0 : -1;
}

/* The device buffers, views and calls of "g"; -1 after a message. */
static int case_device(struct op_case *g, const struct op *op)
{
	DLTensor *din[MAX_IN], *hin[MAX_IN];
	void *ctx = NULL, *queue = NULL;
	int i, ok = 1;

	if (ein_kernel_get_opencl(g->k[V_HAND], &ctx, &queue) != EIN_OK)
		return -1;
	for (i = 0; i < op->n_in; ++i) {
		ok = ok && (g->min[i] = buffer(ctx, &g->in[i])) != NULL;
		if (ok)
			device_view(&g->din[i], g->min[i], op->in_nd[i],
				g->in[i].shape);
		din[i] = &g->din[i];
		hin[i] = &g->in[i].dl;
	}
	for (i = 0; ok && i < V_CPU; ++i) {
		ok = (g->mout[i] = buffer(ctx, &g->out[i])) != NULL;
		if (ok)
			device_view(&g->dout[i], g->mout[i], op->out_nd,
				g->out[i].shape);
	}
	if (!ok) {
		fprintf(stderr, "bench: cannot make OpenCL buffers\n");
		return -1;
	}
	for (i = V_DFLT; i <= V_TUNED; ++i)
		if (g->k[i])
			call_init(&g->call[i], g->k[i], din, &g->dout[i], op);
	call_init(&g->call[V_CPU], g->k[V_CPU], hin, &g->out[V_CPU].dl, op);
	g->cg.op = op;
	g->cg.queue = queue;
	g->cg.im = g->min[0];
	g->cg.kernel = g->min[1];
	g->cg.result = g->mout[V_CLBLAST];
	return 0;
}

static const char *const var_name[N_VAR] = {
	"ein OpenCL default", "ein OpenCL hand", "ein OpenCL tuned",
	"CLBlast convgemm", "ein CPU"
};

/* The tolerance of "g"'s results: conv.c's for a convolution (16 sqrt(C
 * 9) eps |ref|max, absolute), memory.c's for a row operation (16
 * sqrt(row) eps relative, 1e-6 absolute). */
static void tolerance(const struct op_case *g, double *rtol, double *atol)
{
	double scale = 1;
	int64_t e;

	if (!g->op->conv) {
		*rtol = 16 * sqrt(g->op->size[1]) * FLT_EPSILON;
		*atol = 1e-6;
		return;
	}
	for (e = 0; e < g->out[0].n; ++e)
		scale = fmax(scale, fabs(g->ref[e]) + 1);
	*rtol = 0;
	*atol = 16 * sqrt(g->op->size[1] * 9) * FLT_EPSILON * scale;
}

/* Run each variant once and check it against the reference; the number
 * of failures (a failed variant is dropped from the timing). */
static int check(struct op_case *g, struct bench_program *p,
	struct bench_variant *v)
{
	int64_t n = g->out[0].n;
	double rtol, atol, d;
	int i, failed = 0;

	tolerance(g, &rtol, &atol);
	for (i = 0; i < N_VAR; ++i) {
		if (!v[i].run)
			continue;
		if (v[i].run(v[i].arg) != 0 || (i != V_CPU &&
		    clEnqueueReadBuffer(g->cg.queue, g->mout[i], CL_TRUE, 0,
		    n * sizeof(float), g->out[i].f, 0, NULL, NULL) !=
		    CL_SUCCESS)) {
			fprintf(stderr, "bench: %s failed: %s\n", var_name[i],
				ein_ctx_last_error(p->ctx));
		} else if (bench_compare(g->out[i].f, g->ref, n, rtol, atol,
		    &d)) {
			fprintf(stderr, "bench: %s (%s): max |error| %g against "
				"C loops in double (rtol %g, atol %g)\n",
				g->op->label, var_name[i], d, rtol, atol);
		} else {
			continue;
		}
		v[i].run = NULL;
		failed++;
	}
	return failed;
}

/* Check, then time (unless --small) one row; prints it. */
static int run_op(struct bench_program *p, const struct bench_opts *o,
	const struct op *op)
{
	struct op_case g;
	struct bench_variant v[N_VAR];
	char b[10][32];
	int i, failed;

	memset(&g, 0, sizeof(g));
	g.op = op;
	if (case_data(&g, p, o, op) != 0 || case_device(&g, op) != 0) {
		case_free(&g);
		return 1;
	}
	for (i = 0; i < N_VAR; ++i) {
		v[i].name = var_name[i];
		v[i].run = i == V_CLBLAST ? (op->conv ? &convgemm_run : NULL) :
			g.k[i] ? &bench_call_run : NULL;
		v[i].arg = i == V_CLBLAST ? (void *) &g.cg :
			(void *) &g.call[i];
		v[i].median = -1;
	}
	failed = check(&g, p, v);
	if (!o->small)
		failed += bench_measure(v, N_VAR, o);
	for (i = 0; i < N_VAR; ++i)
		if (o->small || !v[i].run)
			v[i].median = -1;
#define RATIO(x, y) (v[x].median > 0 && v[y].median > 0 ? \
	v[y].median / v[x].median : -1)
	printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		op->label, bench_cell(b[0], 32, v[V_DFLT].median * 1e3, 2),
		bench_cell(b[1], 32, v[V_HAND].median * 1e3, 2),
		bench_cell(b[2], 32, v[V_TUNED].median * 1e3, 2),
		bench_cell(b[3], 32, v[V_CLBLAST].median * 1e3, 2),
		bench_cell(b[4], 32, v[V_CPU].median * 1e3, 2),
		bench_cell(b[5], 32, op->flops > 0 && v[V_HAND].median > 0 ?
			1e-9 * op->flops / v[V_HAND].median : -1, 1),
		bench_cell(b[6], 32, RATIO(V_HAND, V_CLBLAST), 2),
		bench_cell(b[7], 32, RATIO(V_TUNED, V_CLBLAST), 2),
		bench_cell(b[8], 32, RATIO(V_CPU, V_HAND), 2),
		bench_cell(b[9], 32, RATIO(V_CPU, V_TUNED), 2));
#undef RATIO
	case_free(&g);
	return failed;
}

int bench_opencl_ops(struct bench_program *p, const struct bench_opts *o)
{
	const struct op *ops = o->small ? small_ops : full_ops;
	size_t i, n = o->small ? sizeof(small_ops) / sizeof(*ops) :
		sizeof(full_ops) / sizeof(*ops);
	int failed = 0;

	printf("\n## Convolution, softmax and layernorm on OpenCL\n\n"
		"bench/kernels.ein's conv3x3 (NCHW, batch 1, padding 1), "
		"softmax and layernorm compiled for the OpenCL device with "
		"the default GPU mapping (\"default\"), with "
		"bench/schedules/opencl/<def>.sched (\"hand\") and with the "
		"row's bench/schedules/opencl/tuned/<def>.<sizes>.sched from "
		"ein tune --target opencl (\"tuned\", bench/opencl_tune.sh; "
		"- without one), against "
		"CLBlast's convgemm (CLBlastSconvgemm) on the same device, "
		"queue and buffers (no copies timed), and ein's CPU code with "
		"bench/schedules/<def>.sched (\"CPU\", %d thread(s)).  "
		"hand/CLBlast is CLBlast's median time over ein's (above 1: "
		"ein is faster); hand/CPU is ein OpenCL's over ein CPU's "
		"(above 1: OpenCL is slower); tuned/ the same for the tuned "
		"schedule.\n\n"
		"| kernel | default ms | hand ms | tuned ms | CLBlast ms | "
		"CPU ms | hand GFLOP/s | hand/CLBlast | tuned/CLBlast | "
		"hand/CPU | tuned/CPU |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|\n",
		o->max_threads);
	for (i = 0; i < n; ++i)
		failed += run_op(p, o, &ops[i]);
	return failed;
}

#endif
