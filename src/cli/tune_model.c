/*
 * tune_model.c: "ein tune model.onnx --time T": tune a model's fused
 * kernels (docs/onnx.md, "Tuning a model").
 *
 *   load the model through the graph level and time each kernel     profile()
 *   split T among the kernels by their share of the run time; a kernel
 *   whose share is below MIN_SECONDS is left as it is                  plan()
 *   tune each kernel, the largest share first, with the autotuner on
 *   the kernels' source, the time a kernel leaves unused going to the
 *   next; each schedule is written as DIR/<target>/<kernel>.<tag>.sched
 *   with the model's sizes as its "sizes" header                 tune_one()
 *   run the model again: lookup finds the schedules (per kernel name,
 *   nearest sizes), the outputs are checked against the reference
 *
 * A kernel's name, MODEL_kK_OP, is what lookup looks for; the model's
 * sizes (N=2) are in the file's sizes header, so that tunings at other
 * batch sizes live side by side and each run takes the nearest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "autotune/tune.h"
#include "codegen/target.h"

/* Below this many seconds of budget a kernel is not worth a tuning run
 * (the tuner's own setup and final checks take about as long). */
#define MIN_SECONDS 1.0

/* A kernel of the model as the tuner sees it.
 * k: its index in the model; seconds: its time per run in the profile;
 * tuned: its best time after tuning (-1: not tuned). */
struct share {
	int k;
	double seconds;
	double tuned;
};

/* The state of a run.
 * o: the caller's options; dir: the schedule directory; opts: the
 * compile options (the model's sizes fixed); m: the model;
 * n, share: the kernels, by decreasing time; n_tune: how many of the
 * first are tuned; total: the profile's time of a run (a median);
 * kernels: the sum of the kernels' times (means, so a noisy run can make
 * it exceed total: the shares are of it, and never above 100%);
 * work: the temporary directory, source: the kernels' source in it;
 * target: the target name; tag: the file-name tag of the sizes. */
struct tune_model {
	const struct ein_tune_opts *o;
	char dir[512];
	ein_options *opts;
	ein_ctx *ctx;
	ein_model *m;
	int n, n_tune;
	struct share *share;
	double total, kernels;
	char work[64], source[128];
	char *target;
	char tag[256];
};

static int by_time(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

/* "2" (all sizes equal) or "2x3" from "N=2,C=3"; "" without sizes. */
static void size_tag(const char *spec, char *tag, size_t len)
{
	const char *s = spec;
	size_t at = 0;

	tag[0] = '\0';
	while (s && (s = strchr(s, '=')) && at < len) {
		size_t n = strcspn(++s, ",");

		at += snprintf(tag + at, len - at, "%s%.*s", at ? "x" : "",
			(int) n, s);
	}
}

/* The schedule directory: --schedule-dir, else the first of
 * $EIN_SCHEDULE_PATH, else "schedules" (as ein tune FILE.ein). */
static void schedule_dir(struct tune_model *t, const char *dir)
{
	const char *env = getenv("EIN_SCHEDULE_PATH");
	size_t n = env && *env ? strcspn(env, ":") : 0;

	if (dir)
		snprintf(t->dir, sizeof(t->dir), "%s", dir);
	else if (n)
		snprintf(t->dir, sizeof(t->dir), "%.*s", (int) n, env);
	else
		snprintf(t->dir, sizeof(t->dir), "schedules");
}

/* Load the model and time each of its kernels. */
static int profile(struct tune_model *t)
{
	struct ein_cli_model_run r = { .file = t->o->file, .repeat = 10 };
	double t0 = ein_cli_now(), *sec;
	int k, res;

	t->m = ein_model_load(t->ctx, t->o->file, t->opts);
	if (!t->m)
		return fputs(ein_ctx_last_error(t->ctx), stderr), -1;
	t->n = ein_model_n_kernel(t->m);
	t->share = calloc(t->n + 1, sizeof(*t->share));
	sec = calloc(t->n + 1, sizeof(*sec));
	res = t->share && sec ? ein_cli_profile_model(&r, t->m, sec,
		&t->total) : -1;
	for (k = 0; res == 0 && k < t->n; ++k) {
		t->share[k] = (struct share) { k, sec[k], -1 };
		t->kernels += sec[k];
	}
	free(sec);
	if (res < 0)
		return -1;
	printf("ein tune: model %s: %d fused kernels, compiled and timed in "
		"%.1f s, %.4f ms per run\n", t->o->file, t->n,
		ein_cli_now() - t0, t->total * 1e3);
	qsort(t->share, t->n, sizeof(*t->share), &by_time);
	return 0;
}

/* The kernels to tune: the most the budget gives MIN_SECONDS each, by
 * share; a kernel never called (its results unused) is not tuned. */
static void plan(struct tune_model *t)
{
	double sum = 0;
	int i;

	for (i = 0; i < t->n; ++i)
		if (ein_model_get_kernel(t->m, t->share[i].k))
			sum += t->share[i].seconds;
	t->n_tune = t->n;
	while (t->n_tune > 0) {
		const struct share *s = &t->share[t->n_tune - 1];

		if (ein_model_get_kernel(t->m, s->k) && sum > 0 &&
		    t->o->time * s->seconds / sum >= MIN_SECONDS)
			break;
		if (ein_model_get_kernel(t->m, s->k))
			sum -= s->seconds;
		t->n_tune--;
	}
}

/* The time of a run with the tuned kernels' best times in place of
 * their profiled ones (an estimate: each is measured alone). */
static double estimate(const struct tune_model *t)
{
	double sum = 0;
	int i;

	for (i = 0; i < t->n; ++i)
		sum += t->share[i].tuned >= 0 && t->share[i].tuned <
			t->share[i].seconds ? t->share[i].tuned :
			t->share[i].seconds;
	return sum;
}

/* Tune kernel share[i] for "budget" seconds.  Returns the tuner's exit
 * status. */
static int tune_one(struct tune_model *t, int i, double budget)
{
	struct share *s = &t->share[i];
	const char *name = ein_model_get_kernel_name(t->m, s->k);
	struct ein_tune_opts ko = *t->o;
	struct ein_tune_result res;
	char out[1024];
	int rc;

	snprintf(out, sizeof(out), "%s/%s/%s%s%s.sched", t->dir, t->target,
		name, *t->tag ? "." : "", t->tag);
	printf("ein tune: kernel %d of %d: %s (%s): %.1f%% of the run time "
		"(%.4f ms), %.1f s\n", i + 1, t->n_tune, name,
		ein_model_get_kernel_nodes(t->m, s->k), t->kernels > 0 ?
		100 * s->seconds / t->kernels : 0, s->seconds * 1e3, budget);
	fflush(stdout);
	ko.file = t->source;
	ko.def = name;
	ko.sizes = "";
	ko.time = budget;
	ko.output = out;
	ko.log = NULL;
	ko.lookup_sizes = t->o->sizes ? t->o->sizes : "";
	ko.result = &res;
	rc = ein_tune_run(&ko);
	if (res.wrote)
		s->tuned = res.best_seconds;
	printf("ein tune: kernel %d of %d: %s: %s %.4f ms (profile %.4f ms); "
		"the model's run: %.4f ms estimated, %.4f ms before\n", i + 1,
		t->n_tune, name, res.wrote ? "best" : "no schedule written, "
		"stays at", res.wrote ? res.best_seconds * 1e3 :
		s->seconds * 1e3, s->seconds * 1e3, estimate(t) * 1e3,
		t->total * 1e3);
	fflush(stdout);
	return rc;
}

/* Write the kernels' source where the tuner reads it. */
static int write_source(struct tune_model *t)
{
	const char *text = ein_model_get_source(t->m);
	FILE *f;

	snprintf(t->work, sizeof(t->work), "/tmp/ein-tune-model-XXXXXX");
	if (!mkdtemp(t->work)) {
		t->work[0] = '\0';
		perror("ein tune: error: cannot make a temporary directory");
		return -1;
	}
	snprintf(t->source, sizeof(t->source), "%s/kernels.ein", t->work);
	f = fopen(t->source, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror("ein tune: error: cannot write the kernels' source");
		return -1;
	}
	return 0;
}

/* Tune the planned kernels, largest share first; the time one leaves
 * unused (or overruns) goes to (or comes from) the next.  A kernel left
 * without a schedule (nothing verified within its share) is said so and
 * keeps the one it had; returns 3 if a candidate gave a wrong answer (as
 * ein tune does), else 0. */
static int tune_all(struct tune_model *t)
{
	double start = ein_cli_now(), sum = 0, left;
	int i, rc, worst = 0;

	for (i = 0; i < t->n_tune; ++i)
		sum += t->share[i].seconds;
	printf("ein tune: tuning %d of the %d kernels in %.1f s", t->n_tune,
		t->n, t->o->time);
	if (t->n_tune < t->n)
		printf(" (the others' shares of it are under %.1f s each)",
			MIN_SECONDS);
	printf("\n");
	for (i = 0; i < t->n_tune; ++i) {
		left = t->o->time - (ein_cli_now() - start);
		if (!ein_model_get_kernel(t->m, t->share[i].k))
			continue;
		rc = tune_one(t, i, left * t->share[i].seconds / sum >
			MIN_SECONDS / 10 ? left * t->share[i].seconds / sum :
			MIN_SECONDS / 10);
		sum -= t->share[i].seconds;
		if (rc == 3)
			worst = rc;
	}
	return worst;
}

/* With the schedule directory first in $EIN_SCHEDULE_PATH, run the model
 * again: lookup finds the new schedules; check the outputs. */
static int verify(struct tune_model *t)
{
	const char *env = getenv("EIN_SCHEDULE_PATH");
	size_t len = strlen(t->dir) + (env ? strlen(env) : 0) + 2;
	char path[len];
	double after = -1;
	struct ein_cli_model_run r = { .file = t->o->file, .opts = t->opts,
		.repeat = 10, .check = 1, .profile = 1, .seconds = &after };

	snprintf(path, len, "%s%s%s", t->dir, env && *env ? ":" : "",
		env ? env : "");
	setenv("EIN_SCHEDULE_PATH", path, 1);
	if (ein_cli_run_model(&r) < 0)
		return -1;
	printf("ein tune: model %s: %.4f ms per run before, %.4f ms after "
		"(%.2fx)\n", t->o->file, t->total * 1e3, after * 1e3,
		after > 0 ? t->total / after : 0);
	return 0;
}

static void clear(struct tune_model *t)
{
	if (t->source[0])
		unlink(t->source);
	if (t->work[0])
		rmdir(t->work);
	ein_model_free(t->m);
	ein_options_free(t->opts);
	ein_ctx_free(t->ctx);
	free(t->share);
	free(t->target);
}

/* The class the model's schedules are written for: that of the named CPU
 * target "name" (x86_64-avx2: its kernels are profiled and tuned for it),
 * "name" itself for another (opencl...), the host's without one. */
static char *model_target(struct tune_model *t, const char *name)
{
	const char *class = ein_target_named_class(name);

	if (!name)
		return ein_target_host_name(t->ctx);
	return strdup(class ? class : name);
}

int ein_cli_tune_model(const struct ein_tune_opts *o, const char *dir)
{
	struct tune_model t = { .o = o };
	int rc = 1;

	schedule_dir(&t, dir);
	size_tag(o->sizes, t.tag, sizeof(t.tag));
	t.ctx = ein_ctx_alloc();
	t.opts = ein_options_alloc();
	if (!t.ctx || !t.opts)
		fprintf(stderr, "ein tune: error: out of memory\n");
	else if (ein_cli_progress_default(t.opts),
		 ein_cli_size_hints("ein tune", t.opts, o->sizes, 1) < 0)
		rc = 2;
	else if (o->target && ein_target_named_class(o->target) &&
		 ein_options_set_target(t.opts, o->target) != EIN_OK)
		fprintf(stderr, "ein tune: error: out of memory\n");
	else if (profile(&t) == 0 && write_source(&t) == 0 &&
		 (t.target = model_target(&t, o->target))) {
		plan(&t);
		rc = tune_all(&t);
		ein_model_free(t.m);
		t.m = NULL;
		if (verify(&t) < 0 && rc == 0)
			rc = 1;
	}
	clear(&t);
	return rc;
}
