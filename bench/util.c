/*
 * util.c: tensors, kernels, interleaved timing and result checks shared by
 * the sections of the benchmark (see bench.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cblas.h>
#include "bench.h"
#include "onednn.h"
#include "rng.h"

int bench_tensor_alloc(struct bench_tensor *t, int ndim,
	const int64_t *shape)
{
	void *p;
	int d;

	memset(t, 0, sizeof(*t));
	t->n = 1;
	for (d = 0; d < ndim; ++d) {
		t->shape[d] = shape[d];
		t->n *= shape[d];
	}
	if (posix_memalign(&p, 64, t->n * sizeof(float)) != 0)
		return -1;
	t->f = p;
	memset(t->f, 0, t->n * sizeof(float));
	t->dl.data = t->f;
	t->dl.ndim = ndim;
	t->dl.shape = t->shape;
	t->dl.device.device_type = kDLCPU;
	t->dl.dtype.code = kDLFloat;
	t->dl.dtype.bits = 32;
	t->dl.dtype.lanes = 1;
	return 0;
}

void bench_tensor_free(struct bench_tensor *t)
{
	free(t->f);
	t->f = NULL;
}

/* Fill with values uniform in [-1, 1) from splitmix64, so that every run
 * sees the same data. */
void bench_tensor_fill(struct bench_tensor *t, uint64_t seed)
{
	int64_t i;

	for (i = 0; i < t->n; ++i)
		t->f[i] = ein_rng_signed_unit(&seed);
}

int bench_program_read(struct bench_program *p, const struct bench_opts *o)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/kernels.ein", o->dir);
	p->ctx = ein_ctx_alloc();
	p->prog = p->ctx ? ein_program_read_file(p->ctx, path) : NULL;
	if (!p->prog) {
		fprintf(stderr, "bench: %s\n",
			p->ctx ? ein_ctx_last_error(p->ctx) : "out of memory");
		return -1;
	}
	return 0;
}

void bench_program_free(struct bench_program *p)
{
	ein_program_free(p->prog);
	ein_ctx_free(p->ctx);
}

/* Compile "def" with the schedule file "path" (NULL: the default schedule,
 * never one found by lookup). */
static ein_kernel *compile(struct bench_program *p, const char *def,
	const char *path)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = NULL;

	if (opts && ein_options_set_schedule_lookup(opts, 0) == EIN_OK &&
	    (!path || ein_options_set_schedule(opts, path) == EIN_OK))
		k = ein_kernel_compile_with(p->prog, def, opts);
	ein_options_free(opts);
	if (!k)
		fprintf(stderr, "bench: cannot compile %s%s%s:\n%s\n", def,
			path ? " with " : "", path ? path : "",
			ein_ctx_last_error(p->ctx));
	return k;
}

/* Compile "def" with the default schedule, and with the host target's
 * schedules/<target>/<def>.sched, or else schedules/<def>.sched, if one
 * of them exists (register tiles differ between vector widths). */
int bench_kernel_compile(struct bench_kernel *k, struct bench_program *p,
	const char *def, const struct bench_opts *o)
{
	char *target = ein_target_host_name(p->ctx);

	memset(k, 0, sizeof(*k));
	k->def = def;
	snprintf(k->sched_path, sizeof(k->sched_path),
		"%s/schedules/%s/%s.sched", o->dir, target ? target : "?", def);
	free(target);
	if (access(k->sched_path, R_OK) != 0)
		snprintf(k->sched_path, sizeof(k->sched_path),
			"%s/schedules/%s.sched", o->dir, def);
	k->dflt = compile(p, def, NULL);
	if (!k->dflt)
		return -1;
	if (access(k->sched_path, R_OK) != 0)
		return 0;
	k->sched = compile(p, def, k->sched_path);
	return k->sched ? 0 : -1;
}

int bench_kernel_fix(struct bench_kernel *k, struct bench_program *p,
	const int64_t *sizes)
{
	ein_options *opts;
	ein_kernel *fixed = NULL;
	int i, ok;

	if (!k->sched)
		return 0;
	opts = ein_options_alloc();
	ok = opts && ein_options_set_schedule_lookup(opts, 0) == EIN_OK &&
		ein_options_set_schedule(opts, k->sched_path) == EIN_OK;
	for (i = 0; ok && i < ein_kernel_n_size(k->dflt); ++i)
		ok = ein_options_fix_size(opts, ein_kernel_get_size_name(
			k->dflt, i), sizes[i]) == EIN_OK;
	if (ok)
		fixed = ein_kernel_compile_with(p->prog, k->def, opts);
	ein_options_free(opts);
	if (!fixed) {
		fprintf(stderr, "bench: cannot compile %s with %s for fixed "
			"sizes:\n%s\n", k->def, k->sched_path,
			ein_ctx_last_error(p->ctx));
		return -1;
	}
	ein_kernel_free(k->sched);
	k->sched = fixed;
	return 0;
}

/* Compile "def" with the schedule ein's own lookup finds for these sizes
 * in DIR/schedules/<target>/, or else in the installed schedules of the
 * source tree, DIR/../schedules/<target>/ (the nearest sizes among
 * <def>.*.sched, as for a user's kernel; docs/schedules.md), specialised to them if "fix";
 * NULL, with *path NULL, when it finds none, NULL with *path set when the
 * compile fails.  *path: the file's name, owned by the caller. */
ein_kernel *bench_compile_lookup(struct bench_program *p, const char *def,
	const struct bench_opts *o, int n, const char *const *names,
	const int64_t *values, int fix, char **path)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = NULL;
	char dir[4096];
	int i, ok = opts != NULL;

	*path = NULL;
	snprintf(dir, sizeof(dir), "%s/schedules:%s/../schedules", o->dir,
		o->dir);
	if (setenv("EIN_SCHEDULE_PATH", dir, 1) != 0)
		ok = 0;
	for (i = 0; ok && i < n; ++i)
		ok = (fix ? ein_options_fix_size : ein_options_set_size)(opts,
			names[i], values[i]) == EIN_OK;
	if (ok)
		k = ein_kernel_compile_with(p->prog, def, opts);
	ein_options_free(opts);
	if (!k) {
		fprintf(stderr, "bench: cannot compile %s:\n%s\n", def,
			ein_ctx_last_error(p->ctx));
		*path = strdup("?");
		return NULL;
	}
	if (!ein_kernel_get_schedule(k)) {
		ein_kernel_free(k);
		return NULL;
	}
	*path = strdup(ein_kernel_get_schedule(k));
	return k;
}

void bench_kernel_free(struct bench_kernel *k)
{
	ein_kernel_free(k->dflt);
	ein_kernel_free(k->sched);
	k->dflt = k->sched = NULL;
}

int bench_call_run(void *arg)
{
	struct bench_call *c = arg;
	ein_status st;

	if (c->reference)
		st = ein_kernel_call_reference(c->k, c->args, c->n_arg,
			c->sizes, c->n_size);
	else
		st = ein_kernel_call(c->k, c->args, c->n_arg, c->sizes,
			c->n_size);
	return st == EIN_OK ? 0 : -1;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), &by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The seconds per call of "reps" consecutive calls of "v"; -1 on error. */
static double sample(struct bench_variant *v, int reps)
{
	double t = bench_now();
	int r;

	for (r = 0; r < reps; ++r)
		if (v->run(v->arg) != 0)
			return -1;
	return (bench_now() - t) / reps;
}

/* Time the variants interleaved: one warm-up call each, which also sets
 * how many calls make up one sample (so that a sample lasts at least
 * o->sample_s), then o->rounds rounds in which each variant takes one
 * sample in turn; each variant's median sample goes to its "median".
 * Interleaving spreads a disturbance (another process, a frequency
 * change) over all variants instead of one.  A variant without "run" is
 * left out (its median is -1). */
int bench_measure(struct bench_variant *v, int n, const struct bench_opts *o)
{
	int reps[n], i, r, failed = 0;
	double t[n][o->rounds];

	for (i = 0; i < n; ++i) {
		double w = v[i].run ? sample(&v[i], 1) : -1;

		reps[i] = w <= 0 ? 1 : (int) fmin(1000, ceil(o->sample_s / w));
		v[i].median = w < 0 ? -1 : 0;
		if (v[i].run && w < 0) {
			fprintf(stderr, "bench: %s failed\n", v[i].name);
			failed++;
		}
	}
	for (r = 0; r < o->rounds; ++r)
		for (i = 0; i < n; ++i)
			if (v[i].median >= 0 &&
			    (t[i][r] = sample(&v[i], reps[i])) < 0) {
				fprintf(stderr, "bench: %s failed\n",
					v[i].name);
				v[i].median = -1;
				failed++;
			}
	for (i = 0; i < n; ++i)
		if (v[i].median >= 0)
			v[i].median = bench_median(t[i], o->rounds);
	return failed;
}

int64_t bench_compare(const float *got, const double *want, int64_t n,
	double rtol, double atol, double *max_err)
{
	int64_t i, bad = 0;

	*max_err = 0;
	for (i = 0; i < n; ++i) {
		double d = fabs(got[i] - want[i]);

		if (!(d <= rtol * fabs(want[i]) + atol))
			bad++;
		if (!(d <= *max_err))
			*max_err = d;
	}
	return bad;
}

int64_t bench_compare_f(const float *got, const float *want, int64_t n,
	double rtol, double atol, double *max_err)
{
	int64_t i, bad = 0;

	*max_err = 0;
	for (i = 0; i < n; ++i) {
		double d = fabs((double) got[i] - want[i]);

		if (!(d <= rtol * fabs(want[i]) + atol))
			bad++;
		if (!(d <= *max_err))
			*max_err = d;
	}
	return bad;
}

void bench_set_threads(int n)
{
	ein_set_num_threads(n);
	openblas_set_num_threads(n);
	bench_onednn_set_threads(n);
}

const char *bench_cell(char *buf, size_t len, double x, int prec)
{
	if (x < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, x);
	return buf;
}

/* Print the schedule files of "n" kernels ("none" if no file exists). */
void bench_print_schedules(const struct bench_kernel *k, int n)
{
	int i, any = 0;

	printf("Schedules:");
	for (i = 0; i < n; ++i)
		if (k[i].sched) {
			const char *base = strstr(k[i].sched_path,
				"/schedules/");

			printf("%s bench%s", any++ ? "," : "",
				base ? base : k[i].sched_path);
		}
	printf("%s.", any ? "" : " none");
}
