/*
 * conv.c: 2-d convolutions of ResNet-50, NCHW, batch 1: ein (default
 * schedule and schedules/<def>.sched) against oneDNN, whose source and
 * destination reorders (NCHW to its blocked layout and back) are timed
 * separately and included in its total.  oneDNN's weights are reordered
 * into its layout once, untimed.  ein also runs another form of some
 * layers: for the 3x3 layers conv3x3w, whose weights bench reorders
 * likewise once, untimed, into the [c][r][s][f] layout its schedule reads
 * (conv3x3 packs them at every call); for the 1x1 layer of stride 1
 * conv1x1g, the same product with the pixels of each channel as one
 * dimension (the same memory, passed with three dimensions).
 *
 * Check: every result (ein's and oneDNN's) is compared with a plain C
 * loop in double precision; the tolerance is that of gemm.c for a
 * reduction of C R S products.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "onednn.h"

/* A layer: its shape and the definition of kernels.ein computing it. */
struct layer {
	const char *def;
	struct bench_conv_shape s;
};

static const struct layer full_layers[] = {
	{ "conv3x3", { 1, 64, 56, 56, 64, 3, 3, 1, 1 } },
	{ "conv3x3", { 1, 128, 28, 28, 128, 3, 3, 1, 1 } },
	{ "conv3x3", { 1, 256, 14, 14, 256, 3, 3, 1, 1 } },
	{ "conv1x1", { 1, 64, 56, 56, 256, 1, 1, 1, 0 } },
	{ "conv1x1s2", { 1, 256, 56, 56, 512, 1, 1, 2, 0 } },
};

static const struct layer quick_layers[] = {
	{ "conv3x3", { 1, 64, 56, 56, 64, 3, 3, 1, 1 } },
	{ "conv1x1s2", { 1, 256, 56, 56, 512, 1, 1, 2, 0 } },
};

static const struct layer small_layers[] = {
	{ "conv3x3", { 1, 8, 9, 10, 8, 3, 3, 1, 1 } },
	{ "conv3x3", { 1, 3, 5, 4, 5, 3, 3, 1, 1 } },
	{ "conv1x1", { 1, 8, 7, 9, 16, 1, 1, 1, 0 } },
	{ "conv1x1s2", { 1, 16, 9, 8, 8, 1, 1, 2, 0 } },
};

static int out_h(const struct bench_conv_shape *s)
{
	return (s->h + 2 * s->pad - s->r) / s->stride + 1;
}

static int out_w(const struct bench_conv_shape *s)
{
	return (s->w + 2 * s->pad - s->s) / s->stride + 1;
}

/* One layer's data: input, weights, the reference output in double, and
 * the output of each implementation (0: ein default, 1: ein schedule,
 * 2: oneDNN, 3: ein's other form, which call[2] runs); and, if "alt",
 * the other form's arguments: views of in, wt and out[3] with other
 * shapes, or (if "alt_owns_wt") weights laid out anew. */
struct conv_case {
	const struct layer *l;
	struct bench_tensor in, wt, out[4];
	struct bench_tensor alt_in, alt_wt, alt_out;
	int alt, alt_owns_wt;
	double *ref;
	struct bench_call call[3];
	struct bench_onednn_conv *dnnl;
};

/* The value of size "name" of the layer (the sizes of kernels.ein's
 * convolutions are N, C, H, W and F). */
static int64_t size_value(const struct bench_conv_shape *s, const char *name)
{
	switch (name[0]) {
	case 'N': return s->n;
	case 'C': return s->c;
	case 'H': return s->h;
	case 'W': return s->w;
	case 'F': return s->f;
	case 'P': return (int64_t) s->h * s->w;
	}
	return -1;
}

/* The reference: the convolution in double precision, zero padded. */
static void reference(struct conv_case *cc)
{
	const struct bench_conv_shape *s = &cc->l->s;
	int oh = out_h(s), ow = out_w(s), f, y, x, c, r, q;

	for (f = 0; f < s->f; ++f)
	for (y = 0; y < oh; ++y)
	for (x = 0; x < ow; ++x) {
		double sum = 0;

		for (c = 0; c < s->c; ++c)
		for (r = 0; r < s->r; ++r)
		for (q = 0; q < s->s; ++q) {
			int iy = y * s->stride + r - s->pad;
			int ix = x * s->stride + q - s->pad;

			if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w)
				continue;
			sum += (double) cc->in.f[(c * s->h + iy) * s->w + ix] *
				cc->wt.f[((f * s->c + c) * s->r + r) * s->s + q];
		}
		cc->ref[(f * oh + y) * ow + x] = sum;
	}
}

/* A call of "k" on input "in", weights "wt" and output "out". */
static void set_call(struct bench_call *call, ein_kernel *k,
	struct conv_case *cc, struct bench_tensor *in, struct bench_tensor *wt,
	struct bench_tensor *out)
{
	int j;

	call->k = k;
	call->args[0] = &in->dl;
	call->args[1] = &wt->dl;
	call->args[2] = &out->dl;
	call->n_arg = 3;
	call->n_size = ein_kernel_n_size(k);
	for (j = 0; j < call->n_size && j < 8; ++j)
		call->sizes[j] = size_value(&cc->l->s,
			ein_kernel_get_size_name(k, j));
}

/* The weights laid out as conv3x3w reads them: alt_wt[c][r][s][f] =
 * wt[f][c][r][s]. */
static int lay_out(struct conv_case *cc)
{
	const struct bench_conv_shape *s = &cc->l->s;
	int64_t sl[4] = { s->c, s->r, s->s, s->f };
	int64_t f, k, n = s->c * s->r * s->s;

	if (bench_tensor_alloc(&cc->alt_wt, 4, sl))
		return -1;
	for (f = 0; f < s->f; ++f)
		for (k = 0; k < n; ++k)
			cc->alt_wt.f[k * s->f + f] = cc->wt.f[f * n + k];
	cc->alt_owns_wt = 1;
	return 0;
}

/* "dst" as a view of "src" (not owned) with the "ndim" extents "shape"
 * of the same number of elements. */
static void view(struct bench_tensor *dst, const struct bench_tensor *src,
	int ndim, const int64_t *shape)
{
	int d;

	*dst = *src;
	for (d = 0; d < ndim; ++d)
		dst->shape[d] = shape[d];
	dst->dl.ndim = ndim;
	dst->dl.shape = dst->shape;
}

/* The arguments of ka's kernel, the other form of the layer: conv3x3w
 * on laid-out weights, or conv1x1g on the pixels of each channel as one
 * dimension. */
static int alt_alloc(struct conv_case *cc, const struct bench_kernel *ka)
{
	const struct bench_conv_shape *s = &cc->l->s;
	int64_t p = (int64_t) out_h(s) * out_w(s);

	if (!strcmp(ka->def, "conv3x3w")) {
		view(&cc->alt_in, &cc->in, 4, cc->in.shape);
		view(&cc->alt_out, &cc->out[3], 4, cc->out[3].shape);
		if (lay_out(cc) < 0)
			return -1;
	} else {
		view(&cc->alt_in, &cc->in, 3,
			(int64_t[]) { s->n, s->c, (int64_t) s->h * s->w });
		view(&cc->alt_wt, &cc->wt, 2, (int64_t[]) { s->f, s->c });
		view(&cc->alt_out, &cc->out[3], 3,
			(int64_t[]) { s->n, s->f, p });
	}
	cc->alt = 1;
	set_call(&cc->call[2], ka->sched, cc, &cc->alt_in, &cc->alt_wt,
		&cc->alt_out);
	return 0;
}

/* The layer's data and the calls of k's kernels, and of ka's schedule
 * (NULL: none), its other form. */
static int case_alloc(struct conv_case *cc, const struct layer *l,
	const struct bench_kernel *k, const struct bench_kernel *ka)
{
	const struct bench_conv_shape *s = &l->s;
	int64_t si[4] = { s->n, s->c, s->h, s->w };
	int64_t sw[4] = { s->f, s->c, s->r, s->s };
	int64_t so[4] = { s->n, s->f, out_h(s), out_w(s) };
	int i;

	cc->l = l;
	if (bench_tensor_alloc(&cc->in, 4, si) ||
	    bench_tensor_alloc(&cc->wt, 4, sw))
		return -1;
	for (i = 0; i < 4; ++i)
		if (bench_tensor_alloc(&cc->out[i], 4, so))
			return -1;
	cc->ref = malloc(cc->out[0].n * sizeof(double));
	if (!cc->ref)
		return -1;
	bench_tensor_fill(&cc->in, 3);
	bench_tensor_fill(&cc->wt, 4);
	reference(cc);
	set_call(&cc->call[0], k->dflt, cc, &cc->in, &cc->wt, &cc->out[0]);
	if (k->sched)
		set_call(&cc->call[1], k->sched, cc, &cc->in, &cc->wt,
			&cc->out[1]);
	return ka && ka->sched ? alt_alloc(cc, ka) : 0;
}

/* Compile k's schedule for the layer's sizes, as oneDNN makes its
 * primitives for them. */
static int fix_sizes(struct bench_kernel *k, struct bench_program *p,
	const struct bench_conv_shape *s)
{
	int j, n = ein_kernel_n_size(k->dflt);
	int64_t sizes[n + 1];

	for (j = 0; j < n; ++j)
		sizes[j] = size_value(s, ein_kernel_get_size_name(k->dflt, j));
	return bench_kernel_fix(k, p, sizes);
}

/* oneDNN's primitives for "threads" threads.  Its JIT convolutions fix
 * their split of the work over threads when the primitive is created
 * (from omp_get_max_threads()), so a primitive made before
 * omp_set_num_threads(1) runs on every thread: they are made again for
 * each row, after bench_set_threads. */
static void onednn_for_threads(struct conv_case *cc)
{
	bench_onednn_conv_free(cc->dnnl);
	cc->dnnl = bench_onednn_conv_alloc(&cc->l->s, cc->in.f, cc->wt.f,
		cc->out[2].f);
}

static void case_free(struct conv_case *cc)
{
	int i;

	bench_onednn_conv_free(cc->dnnl);
	bench_tensor_free(&cc->in);
	bench_tensor_free(&cc->wt);
	if (cc->alt_owns_wt)
		bench_tensor_free(&cc->alt_wt);
	for (i = 0; i < 4; ++i)
		bench_tensor_free(&cc->out[i]);
	free(cc->ref);
}

/* Run implementation "i" once and compare its output with the
 * reference; 0 if it matches.  *err gets the largest error. */
static int check_one(struct conv_case *cc, int i, int (*run)(void *),
	void *arg, double *err)
{
	const struct bench_conv_shape *s = &cc->l->s;
	static const char *const names[4] = {
		"ein default", "ein schedule", "oneDNN",
		"ein other form"
	};
	double scale = 1, tol, d;
	int64_t e, n = cc->out[i].n;

	for (e = 0; e < n; ++e)
		scale = fmax(scale, fabs(cc->ref[e]) + 1);
	tol = 16 * sqrt(s->c * s->r * s->s) * FLT_EPSILON * scale;
	memset(cc->out[i].f, 0xff, n * sizeof(float));
	if (run(arg) != 0) {
		fprintf(stderr, "bench: %s %s failed\n", cc->l->def, names[i]);
		return 1;
	}
	if (bench_compare(cc->out[i].f, cc->ref, n, 0, tol, &d)) {
		fprintf(stderr, "bench: %s C=%d H=%d F=%d (%s): max |error| "
			"%g > %g\n", cc->l->def, s->c, s->h, s->f, names[i],
			d, tol);
		return 1;
	}
	*err = fmax(*err, d);
	return 0;
}

static int check(struct conv_case *cc, int n_ein, double *err)
{
	int i, failed = 0;

	*err = 0;
	for (i = 0; i < n_ein; ++i)
		failed += check_one(cc, i, &bench_call_run, &cc->call[i], err);
	if (cc->alt)
		failed += check_one(cc, 3, &bench_call_run, &cc->call[2], err);
	if (cc->dnnl)
		failed += check_one(cc, 2, &bench_onednn_conv_all, cc->dnnl,
			err);
	return failed;
}

/* The least of the times "ms" (in ms, negative if not measured), -1 if
 * none was. */
static double least(int n, const double *ms)
{
	double best = -1;
	int i;

	for (i = 0; i < n; ++i)
		if (ms[i] > 0 && (best < 0 || ms[i] < best))
			best = ms[i];
	return best;
}

/* Check, time and print one row of the table.  The variants: the FMA
 * loop, ein's kernels, then (with oneDNN) its reorder + convolution +
 * reorder and each of those three alone.  ein's kernels run before
 * oneDNN's in each round: OpenMP's threads spin a while after oneDNN's
 * calls, and an ein kernel right after those ran on two threads as on
 * one (measured: the laid-out 3x3 kernel at 14^2, 2.11 ms on two
 * threads against 1.06 with `ein run`). */
static int row(struct conv_case *cc, int threads, int n_ein,
	const struct bench_opts *o)
{
	const struct bench_conv_shape *s = &cc->l->s;
	struct bench_peak pk;
	struct bench_variant v[8] = {
		{ "FMA peak", &bench_peak_run, &pk, -1 },
		{ "ein conv (default)", &bench_call_run, &cc->call[0], -1 },
		{ "ein conv (schedule)", &bench_call_run, &cc->call[1], -1 },
		{ "ein conv (other form)", &bench_call_run, &cc->call[2],
			-1 },
		{ "oneDNN total", &bench_onednn_conv_all, cc->dnnl, -1 },
		{ "oneDNN conv", &bench_onednn_conv_compute, cc->dnnl, -1 },
		{ "oneDNN src reorder", &bench_onednn_conv_src_reorder,
			cc->dnnl, -1 },
		{ "oneDNN dst reorder", &bench_onednn_conv_dst_reorder,
			cc->dnnl, -1 },
	};
	double gflop = 2e-9 * s->f * out_h(s) * out_w(s) * s->c * s->r * s->s;
	double err, ein, peak, ms[8];
	int i, failed;
	char b[11][32];

	bench_set_threads(threads);
	onednn_for_threads(cc);
	for (i = 4; i < 8; ++i)
		v[i].arg = cc->dnnl;
	bench_peak_init(&pk, threads, o->sample_s / 4);
	failed = check(cc, n_ein, &err);
	if (n_ein == 1)
		v[2].run = NULL;
	for (i = 4; !cc->dnnl && i < 8; ++i)
		v[i].run = NULL;
	if (!cc->alt)
		v[3].run = NULL;
	if (!o->small && !failed)
		failed += bench_measure(v, 8, o);
	for (i = 0; i < 8; ++i)
		ms[i] = v[i].median > 0 ? 1e3 * v[i].median : -1;
	peak = bench_peak_gflops(&pk, v[0].median);
	ein = least(3, ms + 1);
	printf("| %d→%d %dx%d at %d² /%d | %d | %s | %s | %s | %s | %s | %s | "
		"%s | %s | %s | %s | %s | %s | %.1e |\n", s->c, s->f, s->r,
		s->s, s->h, s->stride, threads, bench_cell(b[0], 32, ms[1], 2),
		bench_cell(b[1], 32, ms[2], 2), bench_cell(b[10], 32, ms[3], 2),
		bench_cell(b[2], 32, ms[5], 2),
		bench_cell(b[3], 32, ms[6] >= 0 && ms[7] >= 0 ?
			ms[6] + ms[7] : -1, 2),
		bench_cell(b[4], 32, ms[4], 2),
		bench_cell(b[5], 32, ein > 0 ? gflop / ein * 1e3 : -1, 1),
		bench_cell(b[6], 32, ms[4] > 0 ? gflop / ms[4] * 1e3 : -1, 1),
		bench_cell(b[7], 32, ein > 0 && ms[4] > 0 ? ms[4] / ein : -1,
			2),
		bench_cell(b[8], 32, peak, 1),
		bench_cell(b[9], 32, ein > 0 && peak > 0 ?
			100 * gflop / ein * 1e3 / peak : -1, 0),
		cc->dnnl ? bench_onednn_conv_impl(cc->dnnl) : "-", err);
	fflush(stdout);
	return failed;
}

int bench_conv(struct bench_program *p, const struct bench_opts *o)
{
	static const char *const defs[5] = { "conv3x3", "conv1x1", "conv1x1s2",
		"conv3x3w", "conv1x1g" };
	const struct layer *layers = o->small ? small_layers :
		o->quick ? quick_layers : full_layers;
	int n_layer = o->small ? 4 : o->quick ? 2 : 5;
	struct bench_kernel k[5];
	const char *version = bench_onednn_version();
	int i, d, t, failed = 0;

	for (d = 0; d < 5; ++d)
		if (bench_kernel_compile(&k[d], p, defs[d], o) != 0)
			failed++;
	printf("\n### conv2d, NCHW, batch 1 (ResNet-50 layers)\n\n");
	printf("ein: `conv3x3`, `conv1x1`, `conv1x1s2` of bench/kernels.ein, "
		"and another form of some layers: for the 3x3 layers "
		"`conv3x3w`, whose weights are laid out [c][r][s][f] once, "
		"untimed (as oneDNN's are in its layout), where the schedules "
		"of `conv3x3` pack them at every call; for the 1x1 layer of "
		"stride 1 `conv1x1g`, the product of the weights and the "
		"input's pixels as one dimension (the same memory, viewed with "
		"three dimensions).  ");
	bench_print_schedules(k, failed ? 0 : 5);
	printf("  With a schedule, each layer's kernel is compiled for its "
		"sizes (ein_options_fix_size); the default, for any sizes.  ");
	if (version)
		printf("%s chooses its layouts; its total is source reorder + "
			"convolution + destination reorder (the weights are "
			"reordered once, untimed).  ein/oneDNN is oneDNN's "
			"total time over ein's best (of its schedule and its "
			"other form).\n\n", version);
	else
		printf("oneDNN: not found by configure (install libdnnl-dev "
			"and run configure again): its columns are empty.\n\n");
	printf("| layer | threads | ein default ms | ein schedule ms | "
		"ein other form ms | "
		"oneDNN conv ms | oneDNN reorders ms | oneDNN total ms | "
		"ein best GFLOP/s | oneDNN GFLOP/s | ein/oneDNN | "
		"FMA peak GFLOP/s | ein best %% of peak | "
		"oneDNN implementation | max abs error |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		"---|\n");
	for (i = 0; !failed && i < n_layer; ++i) {
		struct conv_case cc = { 0 };
		struct bench_kernel *kl = &k[0], *ka = NULL;

		for (d = 0; d < 3; ++d)
			if (!strcmp(layers[i].def, defs[d]))
				kl = &k[d];
		if (kl == &k[0])
			ka = &k[3];
		else if (kl == &k[1])
			ka = &k[4];
		if (fix_sizes(kl, p, &layers[i].s) != 0 ||
		    (ka && fix_sizes(ka, p, &layers[i].s) != 0)) {
			failed++;
		} else if (case_alloc(&cc, &layers[i], kl, ka) != 0) {
			fprintf(stderr, "bench: out of memory\n");
			failed++;
		} else {
			for (t = 1; t <= o->max_threads; ++t)
				failed += row(&cc, t, kl->sched ? 2 : 1, o);
		}
		case_free(&cc);
	}
	for (d = 0; d < 5; ++d)
		bench_kernel_free(&k[d]);
	return failed;
}
