/*
 * tune.c: the autotuner's driver (tune.h).
 *
 * One run, in order:
 *
 *   read the program, parse the sizes, build the space      setup()
 *   open or resume the log, replaying its trials             open_log()
 *   where one call is too slow for the budget, choose smaller sizes
 *   of the same shape to rank candidates at     choose_rank_sizes()
 *   queue the default schedule and the analytic seeds (the automatic
 *   schedule, sched/auto.h, is measured right after the default)
 *   until the budget is spent:
 *     take or generate a candidate (strategy)                next_cand()
 *     compile it (illegal ones are recorded, never run)      try_cand()
 *     time it in a child; confirm a new best by timing it and
 *     the best again; check a new best in a child
 *     log the trial, refit the model, print progress
 *   re-measure the leaders and the automatic and analog seeds
 *   interleaved (at the full sizes), choose by median       remeasure()
 *   (where their rounds do not fit, the best against the
 *   automatic seed alone, or by the noise margin)         duel_rounds()
 *   log the completion, write the best verified schedule     finish()
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "diag.h"
#include "outfile.h"
#include "sched/file.h"
#include "cli/cli.h"
#include "autotune/analog.h"
#include "autotune/measure.h"
#include "autotune/model.h"
#include "autotune/prior.h"
#include "autotune/rank.h"
#include "autotune/reduce.h"
#include "autotune/space.h"
#include "autotune/tunelog.h"
#include "opencl/runtime.h"
#include "autotune/tune.h"
#include "codegen/target.h"
#include "driver/options.h"

/* Above this many operations the reference check runs at smaller sizes
 * (the interpreter is slow). */
#define CHECK_FLOPS 1e7
#define MAX_QUEUE 64
/* The analytic seeds measured first (the BLIS seeds: register tile
 * shapes times the output indices the rows may run along). */
#define MAX_SEEDS 24
/* The budget in seconds of the final compile with symbolic sizes: what a
 * compile gets by default (ein_options_set_compile_timeout), as lookup's
 * users will compile the file; a search's --compile-timeout is for
 * candidates, and a slow compile is not an illegal schedule. */
#define FINAL_COMPILE_BUDGET 300
#define POPULATION 8
#define BROOD 48
#define PICKS 3
/* Before the schedule is chosen, the LEADERS fastest trials and the
 * automatic and analog seeds (MAX_LEAD in all) are measured again in
 * ROUNDS interleaved rounds and chosen by their median (rank.h); fewer
 * rounds, down to MIN_ROUNDS, and none at all below, where the rounds
 * would take more than REMEASURE_SHARE of the time the search took
 * (REMEASURE_FLOOR seconds at least).  Then the best is still compared
 * with the automatic seed, the two alone in as many rounds as fit the
 * same budget (MIN_ROUNDS at least), or where even those do not fit, by
 * their single measurements and the noise margin (rank.h): whatever the
 * budget, the schedule written never lost to the automatic seed in an
 * interleaved comparison (duel_rounds). */
#define LEADERS 3
#define MAX_LEAD (LEADERS + 2)
#define ROUNDS 5
#define MIN_ROUNDS 3
#define REMEASURE_SHARE 0.15
#define REMEASURE_FLOOR 2.0
/* A search should measure RANK_TRIALS candidates at least: where one
 * call of the automatic schedule (timed once at the start) takes longer
 * than the budget over RANK_TRIALS * RANK_CALLS (a measurement is a
 * warm-up and 3 timed calls at least), candidates are ranked at reduced
 * sizes (reduce.h) with that many times fewer operations, the search
 * ends CONFIRM_SHARE of the budget early, and that time goes to
 * measuring the leaders at the full sizes.  A reduction is kept only
 * where it predicts the full size: the automatic schedule must run
 * there at a rate (GFLOP/s) within RANK_PREDICT times its rate at the
 * full sizes; else a smaller reduction is tried, then none. */
#define RANK_TRIALS 40
#define RANK_CALLS 4
/* The reduction aims at a call RANK_MARGIN times shorter than the
 * limit: the candidates that matter may be slower than the automatic
 * schedule, and each is also compiled (seconds for large kernels). */
#define RANK_MARGIN 4
#define CONFIRM_SHARE 0.3
#define RANK_PREDICT 2.0

/* Where the leaders' rounds did not fit the budget, the best and the
 * automatic seed were: DUEL_NONE not compared (the leaders were
 * re-measured, or the best is the seed, or there is no seed);
 * DUEL_MEASURED measured again, the two alone, in interleaved rounds;
 * DUEL_KEPT, DUEL_BEATEN compared by their single measurements (even
 * those rounds did not fit): the seed kept, within the noise margin of
 * the best, or the best faster by more than that. */
enum duel { DUEL_NONE, DUEL_MEASURED, DUEL_KEPT, DUEL_BEATEN };

/* A trial as the tuner keeps it. */
struct trial {
	struct ein_cand cand;
	struct ein_tunelog_trial rec;
};

/* The state of a run.
 * o: the options; ctx, prog, def: the program; k0: the definition
 *	compiled with the default schedule (signature and sizes);
 * sizes, n_size, size_text: the tuning sizes ("M=64,N=64");
 * check_sizes, check_red: where and with which reduction length new
 *	bests are checked;
 * space, model, rng: the search;
 * gpu, cl_target, device: tuning for the OpenCL device "cl_target"
 *	("opencl:P:D") described by "device" (asked in a child: the tuner's
 *	process never loads OpenCL, measure.h), its candidates compiled
 *	lazily with profiling and built and timed in the children;
 * cpu: the named CPU target candidates compile for (--target
 *	x86_64-avx2), NULL for the host or a device;
 * target, out_path, log_path, dir: names (target: the class the file is
 *	written for); log_fd: the open log;
 * n_trial, trial: every trial so far (resumed ones first);
 * n_measured, n_illegal, n_failed, n_wrong, n_slow: counts (a slow
 *	trial, stopped early, is measured, not failed);
 * best, baseline: indices of the best verified trial and of the default
 *	schedule's, -1 if none; best_k: the best compiled as measured
 *	(NULL until needed on a resumed run), for its confirmations;
 * start_time, elapsed0: the clock at start, the elapsed time of a
 *	resumed log;
 * queue, n_queue, queue_origin: candidates waiting to be tried;
 * finishing: the search is over (the final check compiles within
 *	FINAL_COMPILE_BUDGET, whatever --time left);
 * n_lead, lead, lead_median, lead_rounds: the leaders re-measured at the
 *	end (indices into trial: the fastest, then the seeds) and their
 *	medians over lead_rounds rounds (0: not re-measured, too costly;
 *	n_lead 0: fewer than two leaders);
 * duel, n_skipped: how the best was compared with the automatic seed
 *	where the n_skipped leaders' rounds did not fit (enum duel);
 * rank, rank_text, rank_flops, reduced: the sizes candidates are
 *	measured at, as text, and a call's operations there: the tuning
 *	sizes, or (reduced 1) smaller ones of the same shape when a call
 *	is too slow for the budget (choose_rank_sizes); the leaders are
 *	then re-measured at the tuning sizes;
 * probe_full, probe_rank: one call of the automatic schedule at the
 *	tuning and at the ranking sizes, in seconds (-1: not timed);
 * reserve: the seconds at the end of the budget kept for the leaders;
 * lead_agree: whether the leader fastest at the ranking sizes is the
 *	fastest at the tuning sizes (-1: not known). */
struct run {
	const struct ein_tune_opts *o;
	ein_ctx *ctx;
	ein_program *prog;
	const char *def;
	ein_kernel *k0;
	int64_t sizes[16], check_sizes[16];
	int n_size;
	long check_red;
	char size_text[256], size_tag[256];
	struct ein_space space;
	int gpu;
	char cl_target[64];
	struct ein_ocl_device_info device;
	struct ein_model *model;
	uint64_t rng;
	char *target, *cpu, out_path[1024], log_path[1024], dir[64];
	int log_fd;
	int n_trial;
	struct trial *trial;
	int n_measured, n_illegal, n_failed, n_wrong, n_slow;
	int best, baseline;
	ein_kernel *best_k;
	double start_time, elapsed0;
	struct ein_cand queue[MAX_QUEUE];
	const char *queue_origin[MAX_QUEUE];
	int n_queue;
	int finishing;
	int n_lead, lead[MAX_LEAD], lead_rounds;
	double lead_median[MAX_LEAD];
	int duel, n_skipped;
	int64_t rank[16];
	char rank_text[256];
	double rank_flops;
	int reduced;
	double probe_full, probe_rank, reserve;
	int lead_agree;
};

static double elapsed(const struct run *r)
{
	return r->elapsed0 + ein_cli_now() - r->start_time;
}

/* ---- setup ------------------------------------------------------------- */

/* "M=64,N=64" and the file-name tag "64" (all equal) or "64x32x16".  A
 * definition without sizes (a model's fused kernel, every shape fixed)
 * is named by its lookup sizes, else "fixed". */
static void size_texts(struct run *r)
{
	int i, same = 1;
	size_t at = 0, tag = 0;

	if (r->n_size == 0) {
		snprintf(r->size_text, sizeof(r->size_text), "%s",
			r->o->lookup_sizes && *r->o->lookup_sizes ?
			r->o->lookup_sizes : "fixed");
		snprintf(r->size_tag, sizeof(r->size_tag), "fixed");
		return;
	}
	for (i = 0; i < r->n_size; ++i) {
		at += snprintf(r->size_text + at, sizeof(r->size_text) - at,
			"%s%s=%lld", i ? "," : "",
			ein_kernel_get_size_name(r->k0, i),
			(long long) r->sizes[i]);
		same &= r->sizes[i] == r->sizes[0];
	}
	for (i = 0; i < (same ? 1 : r->n_size); ++i)
		tag += snprintf(r->size_tag + tag, sizeof(r->size_tag) - tag,
			"%s%lld", i ? "x" : "", (long long) r->sizes[i]);
}

/* The sizes the reference check runs at: the tuning sizes if cheap, else
 * the largest size halved until cheap. */
static void check_sizes(struct run *r)
{
	int i, big;

	memcpy(r->check_sizes, r->sizes, sizeof(r->sizes));
	while (ein_space_work(r->k0, r->check_sizes, r->n_size, NULL) >
			CHECK_FLOPS) {
		for (big = 0, i = 1; i < r->n_size; ++i)
			if (r->check_sizes[i] > r->check_sizes[big])
				big = i;
		if (r->check_sizes[big] <= 1)
			break;
		r->check_sizes[big] = (r->check_sizes[big] + 1) / 2;
	}
}

/* The longest reduction of any statement at the check sizes. */
static int check_reduction(struct run *r)
{
	struct ein_space *cs = malloc(sizeof(*cs));
	int s, v;

	if (!cs || ein_space_init(cs, r->prog, r->def, r->k0,
			r->check_sizes, r->target) < 0)
		return (free(cs), -1);
	r->check_red = 1;
	for (s = 0; s < cs->n_stmt; ++s) {
		long red = 1;

		for (v = 0; v < cs->stmt[s].n_loop; ++v)
			if (cs->stmt[s].is_reduction[v])
				red *= cs->stmt[s].extent[v];
		if (red > r->check_red)
			r->check_red = red;
	}
	free(cs);
	return 0;
}

/* mkdir -p of the directory part of "path". */
static int make_dirs(const char *path)
{
	char buf[1024];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; (p = strchr(p, '/')); ++p) {
		*p = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* The schedule and log paths (see struct ein_tune_opts). */
static void paths(struct run *r)
{
	const char *env = getenv("EIN_SCHEDULE_PATH");
	char dir[512];
	size_t n;

	if (r->o->output)
		snprintf(r->out_path, sizeof(r->out_path), "%s", r->o->output);
	else {
		n = env && *env ? strcspn(env, ":") : 0;
		snprintf(dir, sizeof(dir), "%.*s", (int) n, env ? env : "");
		snprintf(r->out_path, sizeof(r->out_path), "%s/%s/%s.%s.sched",
			n ? dir : "schedules", r->target, r->def, r->size_tag);
	}
	if (r->o->log)
		snprintf(r->log_path, sizeof(r->log_path), "%s", r->o->log);
	else {
		n = strlen(r->out_path);
		if (n > 6 && !strcmp(r->out_path + n - 6, ".sched"))
			n -= 6;
		snprintf(r->log_path, sizeof(r->log_path), "%.*s.log",
			(int) n, r->out_path);
	}
}

/* The budget of one compile: --compile-timeout (as a measurement's
 * --timeout, 10 s by default), and no more than what --time leaves (a
 * tenth of a second at least), so that a kernel that isl takes minutes to
 * compile costs a trial and never the run (driver/budget.h); once the
 * search is over, FINAL_COMPILE_BUDGET. */
static double compile_budget(const struct run *r)
{
	double t = r->o->compile_timeout, left;

	if (r->finishing)
		return FINAL_COMPILE_BUDGET;
	if (r->o->time <= 0)
		return t;
	left = r->o->time - (elapsed(r) - r->elapsed0);
	if (left < t || t == 0)
		t = left > 0.1 ? left : 0.1;
	return t;
}

/* For --target opencl[:P:D]: the device, asked in a child (measure.h),
 * and the target candidates compile for: that device by its indices.
 * Returns -2 after a message if there is none. */
static int setup_device(struct run *r)
{
	char msg[512];
	ein_options *opts = ein_options_alloc();
	int bad = !opts || ein_options_set_target(opts, r->o->target);

	ein_options_free(opts);
	if (bad) {
		fprintf(stderr, "ein tune: error: unknown target '%s' (a CPU's "
			"name, opencl or opencl:P:D)\n", r->o->target);
		return -2;
	}
	if (ein_measure_device(r->o->target, &r->device, msg,
			sizeof(msg)) < 0) {
		fprintf(stderr, "ein tune: error: %s\n", msg);
		return -2;
	}
	snprintf(r->cl_target, sizeof(r->cl_target), "opencl:%d:%d",
		r->device.platform, r->device.device);
	return 0;
}

/* For --target NAME, a CPU target this machine can run (x86_64,
 * x86_64-avx2, x86_64-avx512; "cpu" or "host": the host): candidates
 * compile for it (its vectors and instructions), the space plans for its
 * registers and the file is written for its class.  Returns -2 after a
 * message for another name (compiling says if this CPU cannot run it). */
static int setup_cpu(struct run *r)
{
	const char *t = r->o->target;

	if (!strcmp(t, "cpu") || !strcmp(t, "host"))
		return 0;
	if (!ein_target_named_class(t)) {
		fprintf(stderr, "ein tune: error: unknown target '%s' "
			"(targets: cpu, x86_64, x86_64-avx2, x86_64-avx512, "
			"opencl, opencl:P:D)\n", t);
		return -2;
	}
	r->cpu = strdup(t);
	return r->cpu ? 0 : -1;
}

static int setup(struct run *r)
{
	ein_options *opts;

	r->gpu = r->o->target && !strncmp(r->o->target, "opencl", 6);
	if (r->gpu && setup_device(r) < 0)
		return -2;
	if (!r->gpu && r->o->target && setup_cpu(r) < 0)
		return -2;
	/* From here on only the children touch the device (runtime.h,
	 * ein_ocl_forbid_load): the parent compiles candidates lazily for
	 * the device that setup_device's child named. */
	if (r->gpu)
		ein_ocl_forbid_load(1);
	opts = ein_options_alloc();

	r->ctx = ein_ctx_alloc();
	r->prog = r->ctx ? ein_program_read_file(r->ctx, r->o->file) : NULL;
	if (!r->prog || !opts)
		return ein_options_free(opts), -1;
	r->target = r->gpu ? strdup(r->device.class) : r->cpu ?
		strdup(ein_target_named_class(r->cpu)) :
		ein_target_host_name(r->ctx);
	if (!r->target || (r->cpu && ein_options_set_target(opts, r->cpu)))
		return ein_options_free(opts), -1;
	r->def = r->o->def ? r->o->def : ein_program_get_def_name(r->prog, 0);
	/* A misspelt size is an error before the first compile, which
	 * may take seconds (the same check again on the kernel below). */
	if (ein_cli_check_sizes(r->o->sizes, r->prog, r->def) < 0)
		return ein_options_free(opts), -2;
	ein_options_set_schedule_lookup(opts, 0);
	ein_options_set_compile_timeout(opts, compile_budget(r));
	r->k0 = ein_kernel_compile_with(r->prog, r->def, opts);
	ein_options_free(opts);
	if (!r->k0)
		return -1;
	r->n_size = ein_kernel_n_size(r->k0);
	if (r->n_size > 16 || ein_cli_parse_sizes(r->o->sizes, r->k0,
			r->sizes) < 0)
		return -2;
	size_texts(r);
	check_sizes(r);
	if (ein_space_init(&r->space, r->prog, r->def, r->k0, r->sizes,
			r->target) < 0 ||
	    check_reduction(r) < 0)
		return -1;
	memcpy(r->rank, r->sizes, sizeof(r->rank));
	snprintf(r->rank_text, sizeof(r->rank_text), "%s", r->size_text);
	r->rank_flops = r->space.flops;
	if (r->gpu) {
		struct ein_gpu_device d = { (long) r->device.max_group,
			(long) r->device.local_mem };

		ein_space_set_gpu(&r->space, &d);
	}
	paths(r);
	return 0;
}

/* The run's temporary directory and the directories of its outputs. */
static int make_work_dirs(struct run *r)
{
	snprintf(r->dir, sizeof(r->dir), "/tmp/ein-tune-XXXXXX");
	if (!mkdtemp(r->dir) || make_dirs(r->out_path) < 0 ||
	    make_dirs(r->log_path) < 0) {
		fprintf(stderr, "ein tune: error: cannot make directories: "
			"%s\n", strerror(errno));
		return -2;
	}
	return 0;
}

/* ---- trials ------------------------------------------------------------ */

/* Has a candidate with these directives been tried? */
static int seen(const struct run *r, const char *directives)
{
	int i;

	for (i = 0; i < r->n_trial; ++i)
		if (!strcmp(r->trial[i].rec.schedule, directives))
			return 1;
	return 0;
}

/* Append trial "t" (taken) to the run's list and its sample to the
 * model; update the counts and the best. */
static int add_trial(struct run *r, struct trial *t)
{
	struct trial *grown = realloc(r->trial,
		(r->n_trial + 1) * sizeof(*grown));
	int st = t->rec.status;

	if (!grown)
		return -1;
	r->trial = grown;
	grown[r->n_trial] = *t;
	r->n_measured += st != EIN_TRIAL_ILLEGAL &&
		st != EIN_TRIAL_COMPILE_ERROR;
	r->n_illegal += st == EIN_TRIAL_ILLEGAL;
	r->n_failed += st != EIN_TRIAL_OK && st != EIN_TRIAL_ILLEGAL &&
		st != EIN_TRIAL_SLOW;
	r->n_slow += st == EIN_TRIAL_SLOW;
	r->n_wrong += st == EIN_TRIAL_WRONG;
	/* The automatic and analog seeds' plans are not their own: keep
	 * them out of the model.  A slow one's single call says enough of
	 * its speed for the model to learn where not to look. */
	if ((st == EIN_TRIAL_OK || st == EIN_TRIAL_SLOW) &&
	    strcmp(t->rec.origin, "automatic") &&
	    strcmp(t->rec.origin, "analog")) {
		double f[EIN_MODEL_N_FEATURE];

		ein_model_features(&r->space, &t->cand, f);
		ein_model_add(r->model, f, t->rec.gflops);
		ein_model_fit(r->model);
	}
	/* Only a new best, confirmed (run_cand), is checked during the
	 * search: the last checked trial is the best, in a live run as in
	 * a replayed log. */
	if (st == EIN_TRIAL_OK && t->rec.checked)
		r->best = r->n_trial;
	if (!strcmp(t->rec.origin, "default") && st == EIN_TRIAL_OK)
		r->baseline = r->n_trial;
	r->n_trial++;
	return 0;
}

/* "sizes" as "M=64,N=64" into buf. */
static void print_sizes(const struct run *r, const int64_t *sizes,
	char *buf, size_t len)
{
	size_t at = 0;
	int i;

	for (i = 0; i < r->n_size && at < len; ++i)
		at += snprintf(buf + at, len - at, "%s%s=%lld", i ? "," : "",
			ein_kernel_get_size_name(r->k0, i),
			(long long) sizes[i]);
}

/* Write the schedule text "directives" to a file in the run's directory
 * and compile it within compile_budget, with the sizes "fixed" fixed (the
 * program that "ein compile --sizes" and "ein run --fix-sizes" deploy),
 * or with symbolic sizes and the tuning sizes as hints if "fixed" is
 * NULL; NULL with *status set if rejected (timeout if over the budget),
 * the first line of the message in msg. */
static ein_kernel *compile_cand(struct run *r, int trial,
	const char *directives, const int64_t *fixed, int *status, char *msg,
	int len)
{
	char path[1100];
	FILE *f;
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = NULL;
	const char *err;
	int i;

	snprintf(path, sizeof(path), "%s/candidate.sched", r->dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "ein-schedule 1\ndef %s\n%s", r->def, directives);
		fclose(f);
		ein_options_set_schedule(opts, path);
		ein_options_set_compile_timeout(opts, compile_budget(r));
		if (r->cpu)
			ein_options_set_target(opts, r->cpu);
		if (r->gpu) {
			/* Built and timed in the measuring child. */
			ein_options_set_target(opts, r->cl_target);
			ein_options_set_opencl_lazy(opts, 1);
			ein_options_set_opencl_profiling(opts, 1);
		}
		for (i = 0; i < r->n_size; ++i)
			(fixed ? ein_options_fix_size : ein_options_set_size)(
				opts, ein_kernel_get_size_name(r->k0, i),
				fixed ? fixed[i] : r->sizes[i]);
		k = ein_kernel_compile_with(r->prog, r->def, opts);
	}
	ein_options_free(opts);
	if (r->o->verbose) {
		char text[256];

		print_sizes(r, fixed ? fixed : r->sizes, text, sizeof(text));
		fprintf(stderr, "ein tune: %s %d: compiled with %s sizes %s%s: "
			"%s\n", trial ? "trial" : "probe", trial, fixed ?
			"fixed" : "symbolic", text, fixed == r->check_sizes ?
			" (the check's)" : "", k ? "ok" : "rejected");
	}
	if (k)
		return k;
	err = ein_ctx_last_error(r->ctx);
	*status = strstr(err, "is illegal") || strstr(err, "cannot ") ?
		EIN_TRIAL_ILLEGAL : EIN_TRIAL_COMPILE_ERROR;
	if (ein_ctx_last_status(r->ctx) == EIN_ERROR_BUDGET)
		*status = EIN_TRIAL_TIMEOUT;
	snprintf(msg, len, "%.*s", (int) strcspn(err, "\n"), err);
	return NULL;
}

static void measure_opts(const struct run *r, struct ein_measure_opts *mo)
{
	/* On a device the child also builds the program (lazily, at the
	 * warm-up call): a compile, with a compile's budget. */
	mo->timeout = r->o->timeout + (r->gpu ? r->o->compile_timeout : 0);
	mo->min_time = r->o->min_time;
	/* A GPU's driver reserves address space for the device's memory
	 * when it starts (NVIDIA's OpenCL on an H200 failed in every
	 * child under the 4 GiB limit): the limit applies to the host's
	 * memory, so to the CPU and to OpenCL devices that use it (PoCL);
	 * a GPU's own allocations fail with an OpenCL error instead. */
	mo->mem_limit = r->gpu && !r->device.host_memory ? 0 :
		r->o->mem_limit;
	mo->best = mo->slow_factor = 0;
	mo->ctx = r->ctx;
}

/* Report a wrong answer of trial "t" loudly. */
static void report_wrong(struct trial *t, const char *msg)
{
	t->rec.message = strdup(msg);
	fprintf(stderr, "\nein tune: error: trial %d gives WRONG RESULTS: "
		"%s\nschedule:\n%sThis is a bug in ein: please report it.  "
		"The schedule is never written.\n", t->rec.trial, msg,
		t->rec.schedule);
}

/* Check "k" at the check sizes for trial "t"; 0 if it agrees. */
static int check_kernel(struct run *r, ein_kernel *k, struct trial *t,
	const struct ein_measure_opts *mo, enum ein_fault fault)
{
	char msg[512];

	t->rec.status = ein_measure_check(k, r->check_sizes, r->check_red,
		mo, fault, msg, sizeof(msg));
	if (t->rec.status == EIN_TRIAL_WRONG)
		report_wrong(t, msg);
	return t->rec.status == EIN_TRIAL_OK ? 0 : -1;
}

/* Compile new best "t" again ("fixed" as compile_cand takes it) and check
 * that kernel; 0 if it compiles and agrees. */
static int check_compiled(struct run *r, const int64_t *fixed,
	struct trial *t, const struct ein_measure_opts *mo,
	enum ein_fault fault)
{
	char msg[512];
	ein_kernel *k = compile_cand(r, t->rec.trial, t->rec.schedule, fixed,
		&t->rec.status, msg, sizeof(msg));
	int res;

	if (!k) {
		t->rec.message = strdup(msg);
		return -1;
	}
	res = check_kernel(r, k, t, mo, fault);
	ein_kernel_free(k);
	return res;
}

/* Check new best "t" (compiled as "k", with the sizes "fixed" fixed)
 * against the reference, at the check sizes.  With fixed sizes, what is
 * checked is the kernel compiled with the check sizes fixed ("k" itself
 * when they are "fixed"); the schedule compiled with symbolic sizes is
 * checked once, at the end, for the schedule written
 * (verify_symbolic). */
static void check_cand(struct run *r, ein_kernel *k, const int64_t *fixed,
	struct trial *t, const struct ein_measure_opts *mo,
	enum ein_fault fault)
{
	int same = fixed && !memcmp(r->check_sizes, fixed,
		sizeof(r->sizes));

	t->rec.checked = 1;
	if (r->o->symbolic || same)
		check_kernel(r, k, t, mo, fault);
	else
		check_compiled(r, r->check_sizes, t, mo, fault);
}

/* The best trial compiled as it was measured (kept from its trial, or
 * compiled again on a resumed run), NULL if it does not compile. */
static ein_kernel *best_kernel(struct run *r)
{
	const struct ein_tunelog_trial *b = &r->trial[r->best].rec;
	char msg[512];
	int st;

	if (!r->best_k)
		r->best_k = compile_cand(r, b->trial, b->schedule,
			r->o->symbolic ? NULL : r->rank, &st, msg,
			sizeof(msg));
	return r->best_k;
}

/* Time the best again, then "k" (a trial whose injected fault is
 * "asked"): the pair of ein_rank_confirms.  *again and *best_again are
 * -1 where a measurement failed; returns the status of k's. */
static enum ein_trial_status time_pair(struct run *r, ein_kernel *k,
	enum ein_fault asked, double *again, double *best_again)
{
	struct ein_measure_opts mo;
	ein_kernel *bk = best_kernel(r);
	enum ein_fault bf = ein_fault_for_trial(r->trial[r->best].rec.trial);
	enum ein_trial_status st;

	measure_opts(r, &mo);
	*best_again = -1;
	if (bk && ein_measure_time(bk, r->rank, &mo, ein_fault_at(bf,
			EIN_MEASURE_CONFIRM), best_again) != EIN_TRIAL_OK)
		*best_again = -1;
	st = ein_measure_time(k, r->rank, &mo, ein_fault_at(asked,
		EIN_MEASURE_CONFIRM), again);
	if (st != EIN_TRIAL_OK)
		*again = -1;
	return st;
}

/* Trial "t" (compiled as "k") beat the best by its first measurement:
 * one measurement may be a fluke (its child ran while the shared machine
 * happened to be idle), so the best and then "t" are measured again, and
 * "t" is confirmed as the new best only if it is faster in that pair too
 * (ein_rank_confirms).  Either way it is ranked from then on by the
 * slower of its two measurements, so that a fluke leads neither the
 * search's population nor the leaders.  Returns whether it is
 * confirmed; a failure of its second measurement is its status. */
static int confirm(struct run *r, ein_kernel *k, struct trial *t,
	enum ein_fault asked)
{
	double first = t->rec.seconds, again, best_again;
	enum ein_trial_status st;
	int ok;

	st = time_pair(r, k, asked, &again, &best_again);
	if (st != EIN_TRIAL_OK) {
		t->rec.status = st;
		t->rec.seconds = t->rec.gflops = -1;
		return 0;
	}
	t->rec.seconds = ein_rank_confirmed_time(first, again);
	t->rec.gflops = r->rank_flops / t->rec.seconds / 1e9;
	ok = ein_rank_confirms(again, best_again);
	if (r->o->verbose)
		fprintf(stderr, "ein tune: trial %d: first measured %.4g ms, "
			"again %.4g ms right after the best (trial %d) %.4g "
			"ms: %s\n", t->rec.trial, first * 1e3, again * 1e3,
			r->trial[r->best].rec.trial, best_again * 1e3, ok ?
			"confirmed, the new best" : "not confirmed");
	return ok;
}

/* Time compiled candidate "k" as trial "t"; if it beats the best, and
 * confirms it (confirm), check it against the reference first. */
static void run_cand(struct run *r, ein_kernel *k, struct trial *t)
{
	struct ein_measure_opts mo;
	enum ein_fault asked = ein_fault_for_trial(t->rec.trial);
	enum ein_fault fault = ein_fault_at(asked, EIN_MEASURE_FIRST);

	measure_opts(r, &mo);
	if (r->best >= 0)
		mo.best = r->trial[r->best].rec.seconds;
	/* Ranked at reduced sizes, the automatic schedule was timed there
	 * before the first trial: the default schedule (often many times
	 * slower on such kernels) is stopped early against it. */
	else if (r->reduced)
		mo.best = r->probe_rank;
	mo.slow_factor = r->o->slow_factor;
	t->rec.status = ein_measure_time(k, r->rank, &mo, fault,
		&t->rec.seconds);
	/* A call that failed in the child says why (an OpenCL driver
	 * that cannot start there, say): logged, and shown at the end if
	 * no trial succeeds. */
	if (t->rec.status == EIN_TRIAL_CRASH &&
	    *ein_measure_last_message())
		t->rec.message = strdup(ein_measure_last_message());
	if (r->o->verbose && t->rec.status == EIN_TRIAL_SLOW)
		fprintf(stderr, "ein tune: trial %d: measured at %s: slow, "
			"stopped after one call of %.4g ms (over %g x the "
			"best's %.4g ms)\n", t->rec.trial, r->rank_text,
			t->rec.seconds * 1e3, r->o->slow_factor,
			mo.best * 1e3);
	else if (r->o->verbose)
		fprintf(stderr, "ein tune: trial %d: measured at %s: %s%s%s\n",
			t->rec.trial, r->rank_text,
			ein_trial_status_name(t->rec.status),
			t->rec.message ? ": " : "",
			t->rec.message ? t->rec.message : "");
	if (t->rec.status != EIN_TRIAL_OK && t->rec.status != EIN_TRIAL_SLOW)
		return;
	t->rec.gflops = r->rank_flops / t->rec.seconds / 1e9;
	if (t->rec.status == EIN_TRIAL_SLOW)
		return;
	if (r->best >= 0 && t->rec.gflops <= r->trial[r->best].rec.gflops)
		return;
	if (r->best >= 0 && !confirm(r, k, t, asked))
		return;
	check_cand(r, k, r->rank, t, &mo, fault);
}

/* Keep "k", the kernel of the trial just added, if it is the new best
 * (for its confirmations, time_pair); returns what the caller frees. */
static ein_kernel *keep_if_best(struct run *r, ein_kernel *k)
{
	ein_kernel *old = r->best_k;

	if (r->best != r->n_trial - 1)
		return k;
	r->best_k = k;
	return old;
}

/* Try candidate "c" as the next trial: compile, measure, log. */
static int try_cand(struct run *r, const struct ein_cand *c,
	const char *origin, const char *directives)
{
	struct trial t;
	char msg[512] = "";
	ein_kernel *k;
	double f[EIN_MODEL_N_FEATURE];

	memset(&t, 0, sizeof(t));
	t.cand = *c;
	t.rec.trial = r->n_trial + 1;
	t.rec.origin = strdup(origin);
	t.rec.schedule = strdup(directives);
	t.rec.n_plan = ein_cand_encode(&r->space, c, t.rec.plan,
		EIN_TUNELOG_MAX_PLAN);
	t.rec.seconds = t.rec.gflops = -1;
	ein_model_features(&r->space, c, f);
	t.rec.predicted = ein_model_predict(r->model, f);
	t.rec.rng = r->rng;
	k = compile_cand(r, t.rec.trial, directives, r->o->symbolic ? NULL :
		r->rank, &t.rec.status, msg, sizeof(msg));
	if (k)
		run_cand(r, k, &t);
	else
		t.rec.message = strdup(msg);
	t.rec.elapsed = elapsed(r);
	if (ein_tunelog_write_trial(r->log_fd, &t.rec) < 0) {
		fprintf(stderr, "ein tune: error: cannot write %s: %s\n",
			r->log_path, strerror(errno));
		ein_tunelog_trial_clear(&t.rec);
		ein_kernel_free(k);
		return -1;
	}
	if (r->o->output_mode == EIN_TUNE_JSON)
		ein_tunelog_write_trial(STDOUT_FILENO, &t.rec);
	if (add_trial(r, &t) < 0) {
		ein_kernel_free(k);
		return -1;
	}
	ein_kernel_free(keep_if_best(r, k));
	return 0;
}

/* ---- the search -------------------------------------------------------- */

static void enqueue(struct run *r, const struct ein_cand *c,
	const char *origin)
{
	if (r->n_queue >= MAX_QUEUE)
		return;
	r->queue[r->n_queue] = *c;
	r->queue_origin[r->n_queue++] = origin;
}

/* The index of a good measured trial: the best of two drawn from the
 * POPULATION best (a tournament). */
static int pick_parent(struct run *r, const int *pop, int n)
{
	int a = pop[ein_rng_below(&r->rng, n)];
	int b = pop[ein_rng_below(&r->rng, n)];

	return r->trial[a].rec.gflops >= r->trial[b].rec.gflops ? a : b;
}

/* The indices of the best measured trials into pop; returns how many. */
static int population(const struct run *r, int *pop)
{
	int n = 0, i, j;

	for (i = 0; i < r->n_trial; ++i) {
		if (r->trial[i].rec.status != EIN_TRIAL_OK)
			continue;
		for (j = n; j > 0 && r->trial[pop[j - 1]].rec.gflops <
				r->trial[i].rec.gflops; --j)
			if (j < POPULATION)
				pop[j] = pop[j - 1];
		if (j < POPULATION)
			pop[j] = i;
		if (n < POPULATION)
			n++;
	}
	return n;
}

/* A child of the population: mutations (one to three) of a parent, or
 * a crossover of two. */
static const char *breed(struct run *r, const int *pop, int n,
	struct ein_cand *c)
{
	int m;

	if (n > 1 && ein_rng_below(&r->rng, 4) == 0) {
		ein_cand_crossover(&r->space,
			&r->trial[pick_parent(r, pop, n)].cand,
			&r->trial[pick_parent(r, pop, n)].cand, c, &r->rng);
		return "crossover";
	}
	*c = r->trial[pick_parent(r, pop, n)].cand;
	for (m = 1 + ein_rng_below(&r->rng, 3); m > 0; --m)
		ein_cand_mutate(&r->space, c, &r->rng);
	return "mutation";
}

/* Queue the next candidates of the evolutionary search: BROOD children,
 * the PICKS the model ranks best and one at random. */
static void generate(struct run *r)
{
	struct ein_cand brood[BROOD];
	double score[BROOD];
	const char *origin[BROOD];
	int pop[POPULATION], n = population(r, pop), i, b, kept = 0;

	if (n < 4 || r->o->strategy == EIN_TUNE_RANDOM) {
		ein_cand_random(&r->space, &brood[0], &r->rng);
		enqueue(r, &brood[0], "random");
		return;
	}
	for (i = 0; i < BROOD; ++i) {
		double f[EIN_MODEL_N_FEATURE];
		char *text;

		origin[kept] = breed(r, pop, n, &brood[kept]);
		text = ein_cand_to_directives(&r->space, &brood[kept]);
		if (!text || seen(r, text)) {
			free(text);
			continue;
		}
		ein_model_features(&r->space, &brood[kept], f);
		/* The shipped model knows CPUs only. */
		score[kept] = ein_model_predict(r->model, f);
		if (!r->gpu)
			score[kept] = ein_prior_rank(r->prog, r->def, r->k0,
				r->sizes, r->target, r->model->n, score[kept],
				text);
		kept++;
		free(text);
	}
	for (b = 0; b < PICKS && kept > 0; ++b) {
		int best = 0;

		for (i = 1; i < kept; ++i)
			if (score[i] > score[best])
				best = i;
		enqueue(r, &brood[best], origin[best]);
		brood[best] = brood[--kept];
		score[best] = score[kept];
		origin[best] = origin[kept];
	}
	if (kept > 0) {
		i = ein_rng_below(&r->rng, kept);
		enqueue(r, &brood[i], origin[i]);
	}
	if (r->n_queue == 0) {
		ein_cand_random(&r->space, &brood[0], &r->rng);
		enqueue(r, &brood[0], "random");
	}
}

/* Take the next untried candidate from the queue, generating more when
 * empty.  Returns its directives (to free), NULL after many duplicates. */
static char *next_cand(struct run *r, struct ein_cand *c, const char **origin)
{
	int tries;

	for (tries = 0; tries < 200; ++tries) {
		char *text;

		if (r->n_queue == 0)
			generate(r);
		*c = r->queue[0];
		*origin = r->queue_origin[0];
		memmove(r->queue, r->queue + 1,
			--r->n_queue * sizeof(r->queue[0]));
		memmove(r->queue_origin, r->queue_origin + 1,
			r->n_queue * sizeof(r->queue_origin[0]));
		text = ein_cand_to_directives(&r->space, c);
		if (!text || !seen(r, text))
			return text;
		free(text);
	}
	return NULL;
}

/* ---- output ------------------------------------------------------------ */

static double best_seconds(const struct run *r);

/* The name of the rate the tuner prints: GFLOP/s, or GOP/s for a kernel
 * of integer operations (ein_space_work). */
static const char *unit(const struct run *r)
{
	return r->space.unit ? r->space.unit : "GFLOP/s";
}

static double speedup(const struct run *r)
{
	if (r->best < 0 || r->baseline < 0)
		return 0;
	return r->trial[r->best].rec.gflops /
		r->trial[r->baseline].rec.gflops;
}

static void progress(const struct run *r)
{
	double t = elapsed(r) - r->elapsed0, eta = -1;
	int tty = isatty(STDERR_FILENO);

	if (r->o->output_mode != EIN_TUNE_NORMAL)
		return;
	if (r->o->time > 0)
		eta = r->o->time - t;
	if (r->o->trials > 0 && r->n_measured > 0) {
		double by_trials = t / r->n_measured *
			(r->o->trials - r->n_measured);

		eta = eta < 0 || by_trials < eta ? by_trials : eta;
	}
	fprintf(stderr, "%strial %d (%d measured, %d slow, %d illegal, %d "
		"failed)  %.1fs  best %.2f %s  %.2fx default  ETA %.0fs%s",
		tty ? "\r" : "", r->n_trial, r->n_measured, r->n_slow,
		r->n_illegal,
		r->n_failed - r->n_wrong, elapsed(r), r->best >= 0 ?
		r->trial[r->best].rec.gflops : 0, unit(r), speedup(r),
		eta > 0 ? eta : 0, tty ? "\033[K" : "\n");
}

/* Is "t" a seed that the search started from, the automatic schedule or
 * the analog's (which are not the space's points)? */
static int is_start_seed(const struct trial *t)
{
	return !strcmp(t->rec.origin, "automatic") ||
		!strcmp(t->rec.origin, "analog");
}

/* " (automatic)" or " (analog)" after a seed's trial number, else "". */
static const char *seed_tag(const struct trial *t)
{
	if (!is_start_seed(t))
		return "";
	return !strcmp(t->rec.origin, "automatic") ? " (automatic)" :
		" (analog)";
}

/* Who the duel (duel_rounds) re-measured, r->lead[0 .. n_lead-1], as
 * "the best and the automatic seed", or "the best, the automatic seed
 * and the default schedule", with their trials where "numbers", into
 * buf; returns buf. */
static const char *duel_members(const struct run *r, int numbers,
	char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->n_lead && at < len; ++i) {
		const struct trial *t = &r->trial[r->lead[i]];
		const char *who = i == 0 ? "the best" :
			r->lead[i] == r->baseline ? "the default schedule" :
			"the automatic seed";
		const char *sep = i == 0 ? "" : i < r->n_lead - 1 ? ", " :
			" and ";

		if (numbers)
			at += snprintf(buf + at, len - at, "%s%s (trial %d)",
				sep, who, t->rec.trial);
		else
			at += snprintf(buf + at, len - at, "%s%s", sep, who);
	}
	return buf;
}

/* How the best was chosen, after "prefix": by the median of the
 * leaders' re-measurements, or by its single measurement. */
static void print_choice(const struct run *r, FILE *f, const char *prefix)
{
	char names[256];
	int i;

	if (r->duel == DUEL_KEPT || r->duel == DUEL_BEATEN) {
		const struct trial *a = &r->trial[r->lead[1]];

		fprintf(f, "%schosen by single measurements: re-measuring "
			"the %d leaders, or even the best and the automatic "
			"seed, would have taken over %.0f%% of the search's "
			"time; trial %d %.4g ms, trial %d (automatic) %.4g ms: "
			"%s\n", prefix, r->n_skipped, REMEASURE_SHARE * 100,
			r->trial[r->lead[0]].rec.trial,
			r->trial[r->lead[0]].rec.seconds * 1e3, a->rec.trial,
			a->rec.seconds * 1e3, r->duel == DUEL_KEPT ?
			"the automatic seed is kept, the best not faster by "
			"more than the noise margin" : "the best is faster than "
			"the automatic seed by more than the noise margin");
		return;
	}
	if (r->n_lead == 0)
		return;
	if (r->lead_rounds == 0) {
		fprintf(f, "%schosen by its first measurement: re-measuring "
			"the %d leaders would have taken over %.0f%% of the "
			"search's time\n", prefix, r->n_lead,
			REMEASURE_SHARE * 100);
		return;
	}
	if (r->duel == DUEL_MEASURED)
		fprintf(f, "%schosen by the median of %d interleaved "
			"re-measurements of %s (re-measuring the %d leaders "
			"would have taken over %.0f%% of the search's time; "
			"ms, first measurement in parentheses):", prefix,
			r->lead_rounds, duel_members(r, 0, names,
			sizeof(names)), r->n_skipped, REMEASURE_SHARE * 100);
	else if (r->reduced)
		fprintf(f, "%schosen by the median of %d interleaved "
			"measurements at the full sizes of the %d leaders "
			"ranked at %s (ms, the time at the ranking sizes in "
			"parentheses):", prefix, r->lead_rounds, r->n_lead,
			r->rank_text);
	else
		fprintf(f, "%schosen by the median of %d interleaved "
			"re-measurements of the %d leaders (ms, first "
			"measurement in parentheses):", prefix, r->lead_rounds,
			r->n_lead);
	for (i = 0; i < r->n_lead; ++i) {
		const struct trial *tr = &r->trial[r->lead[i]];
		const struct ein_tunelog_trial *t = &tr->rec;

		if (r->lead_median[i] < 0)
			fprintf(f, "%s trial %d%s failed (%.4g)", i ? "," : "",
				t->trial, seed_tag(tr), t->seconds * 1e3);
		else
			fprintf(f, "%s trial %d%s %.4g (%.4g)", i ? "," : "",
				t->trial, seed_tag(tr), r->lead_median[i] * 1e3,
				t->seconds * 1e3);
	}
	if (r->best >= 0 && is_start_seed(&r->trial[r->best]))
		fprintf(f, "; no candidate of the search beat the %s seed it "
			"started from", r->trial[r->best].rec.origin);
	if (r->lead_agree >= 0)
		fprintf(f, "; the fastest at the ranking sizes is%s the "
			"fastest at the full sizes", r->lead_agree ? "" :
			" not");
	fprintf(f, "\n");
}

/* Where candidates were ranked at reduced sizes, what and why. */
static void print_ranking(const struct run *r, FILE *f, const char *prefix)
{
	if (!r->reduced)
		return;
	fprintf(f, "%sranked at %s, %.3g times fewer operations (one call "
		"of the automatic schedule took %.4g ms at the full sizes, "
		"%.4g ms there), the leaders measured at the full sizes; the "
		"trials' times are at the ranking sizes\n", prefix,
		r->rank_text, r->space.flops / r->rank_flops,
		r->probe_full * 1e3, r->probe_rank * 1e3);
}

/* The five best measured trials, the failures, the files. */
static void summary(const struct run *r, int wrote)
{
	int pop[POPULATION], n = population(r, pop), i, s;

	if (r->o->output_mode != EIN_TUNE_NORMAL)
		return;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\n");
	printf("ein tune: %s %s on %s: %d trials in %.1f s (%d measured, "
		"%d illegal, %d failed)\n", r->def, r->size_text, r->target,
		r->n_trial, elapsed(r), r->n_measured, r->n_illegal,
		r->n_failed);
	print_ranking(r, stdout, "");
	printf("%5s %6s %10s %10s %8s  %s\n", "rank", "trial", unit(r),
		"ms", "speedup", "origin");
	for (i = 0; i < n && i < 5; ++i) {
		const struct ein_tunelog_trial *t = &r->trial[pop[i]].rec;

		printf("%5d %6d %10.2f %10.3f %7.2fx  %s%s\n", i + 1,
			t->trial, t->gflops, t->seconds * 1e3, r->baseline >= 0
			? t->gflops / r->trial[r->baseline].rec.gflops : 0,
			t->origin, t->checked ? "" : " (unchecked)");
	}
	for (s = EIN_TRIAL_COMPILE_ERROR; s < EIN_TRIAL_N_STATUS; ++s) {
		int count = 0;

		for (i = 0; i < r->n_trial; ++i)
			count += r->trial[i].rec.status == s;
		if (count)
			printf("%s: %d\n", ein_trial_status_name(s), count);
	}
	print_choice(r, stdout, "");
	if (wrote)
		printf("schedule: %s\n", r->out_path);
	printf("log: %s\n", r->log_path);
}

/* ---- the schedule file ------------------------------------------------- */


/* The comment that opens a written schedule: what it was tuned for (the
 * sizes, fixed or symbolic, the target, the threads), when, and the times
 * of the best and of the default schedule.  Comments are provenance for
 * people; the headers below it are the parsed ones. */
static char *provenance(const struct run *r)
{
	const struct ein_tunelog_trial *t = &r->trial[r->best].rec;
	char date[32], *text = NULL;
	size_t len = 0;
	time_t now = time(NULL);
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(f, "# tuned for: %s at %s, sizes %s\n", r->def,
		r->size_text, r->o->symbolic ? "symbolic (measured with the "
		"sizes as hints only)" : "fixed (measured as ein compile "
		"--sizes and ein run --fix-sizes deploy it)");
	if (r->gpu)
		fprintf(f, "# target: %s, device %s (%s), kernel times from "
			"its profiling events; tuned on %s\n", r->target,
			r->device.name, r->cl_target, date);
	else
		fprintf(f, "# target: %s, %d thread%s; tuned on %s\n",
			r->target, ein_get_num_threads(),
			ein_get_num_threads() > 1 ? "s" : "", date);
	if (r->reduced && best_seconds(r) < 0)
		fprintf(f, "# best: not measured at the full sizes (%.4g ms at "
			"the ranking sizes; trial %d, %s)", t->seconds * 1e3,
			t->trial, t->origin);
	else
		fprintf(f, "# best: %.4g ms (trial %d, %s)", (r->reduced ?
			best_seconds(r) : t->seconds) * 1e3, t->trial,
			t->origin);
	if (r->baseline >= 0 && !r->reduced)
		fprintf(f, "; default schedule: %.4g ms (%.2fx)",
			r->trial[r->baseline].rec.seconds * 1e3, speedup(r));
	fprintf(f, "; %d trials in %.0f s.\n", r->n_trial, elapsed(r));
	print_ranking(r, f, "# ");
	print_choice(r, f, "# ");
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The "sizes" header: the lookup sizes if given, else the definition's;
 * none without sizes. */
static void print_sizes_header(const struct run *r, FILE *f)
{
	const char *s = r->o->lookup_sizes;
	int i;

	if (s && *s) {
		fputs("sizes ", f);
		for (; *s; ++s)
			fputc(*s == ',' ? ' ' : *s, f);
		fputc('\n', f);
		return;
	}
	if (s || r->n_size == 0)
		return;
	fputs("sizes", f);
	for (i = 0; i < r->n_size; ++i)
		fprintf(f, " %s=%lld", ein_kernel_get_size_name(r->k0, i),
			(long long) r->sizes[i]);
	fputc('\n', f);
}

/* The headers and directives of the best verified trial's schedule. */
static char *schedule_text(struct run *r)
{
	const struct ein_tunelog_trial *t = &r->trial[r->best].rec;
	char date[32], *text = NULL;
	size_t len = 0;
	time_t now = time(NULL);
	FILE *f = open_memstream(&text, &len);
	double full = r->reduced ? best_seconds(r) : -1;
	double gflops = full > 0 ? r->space.flops / full / 1e9 : t->gflops;

	if (!f)
		return NULL;
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	fprintf(f, "ein-schedule 1\ntarget %s\ndef %s\n", r->target,
		r->def);
	print_sizes_header(r, f);
	if (r->gpu)
		fprintf(f, "measured %.2f %s on %s", gflops, unit(r),
			r->device.name);
	else
		fprintf(f, "measured %.2f %s, %d thread%s%s%s", gflops, unit(r),
			ein_get_num_threads(), ein_get_num_threads() > 1 ?
			"s" : "", r->reduced && full <= 0 ? " at " : "",
			r->reduced && full <= 0 ? r->rank_text : "");
	/* Ranked at reduced sizes, the default was not timed at these. */
	if (r->baseline >= 0 && !r->reduced)
		fprintf(f, " (default schedule %.2f, %.2fx)",
			r->trial[r->baseline].rec.gflops, speedup(r));
	fprintf(f, "\ndate %s\nein %s\ntuned-by %s\n\n%s", date,
		ein_version(), r->o->command, t->schedule);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* Write the best verified trial's schedule atomically: the provenance
 * comment, then the file as the canonical printer gives it (the parse
 * checks what is written). */
static int write_schedule(struct run *r)
{
	char *text = schedule_text(r), *head = provenance(r), *body = NULL;
	struct ein_sched_file *f = NULL;
	struct ein_out_piece piece[2];
	int res = -1;

	if (text && head)
		f = ein_sched_file_parse(r->ctx, ein_src_alloc(r->out_path,
			text));
	body = f ? ein_sched_file_to_string(f) : NULL;
	if (body) {
		piece[0] = (struct ein_out_piece) { head, strlen(head), -1, 0 };
		piece[1] = (struct ein_out_piece) { body, strlen(body), -1, 0 };
		res = ein_outfile_write(r->ctx, r->out_path, piece, 2,
			EIN_OUTFILE_DURABLE);
	}
	if (res < 0)
		fprintf(stderr, "ein tune: error: %s", f && !body ?
			"out of memory\n" : ein_ctx_last_error(r->ctx));
	free(body);
	ein_sched_file_free(f);
	free(text);
	free(head);
	return res;
}

/* ---- the sizes candidates are ranked at -------------------------------- */

static char *auto_directives(struct run *r);

/* The longest a call at the tuning sizes may take (struct
 * ein_tune_opts rank_limit), 0 for no limit. */
static double rank_limit(const struct run *r)
{
	if (r->o->rank_limit >= 0)
		return r->o->rank_limit;
	return r->o->time > 0 ? r->o->time / (RANK_TRIALS * RANK_CALLS) : 0;
}

/* One call of the automatic schedule at "sizes" after a warm-up, in a
 * child: its seconds (the time limit where it ran past it), -1 if it
 * failed.  The schedule's directives "text" are compiled with those
 * sizes fixed, as its trial will be (the definition's own automatic
 * schedule with symbolic sizes, r->k0, can be many times slower: over
 * 10 s against 1.6 for abcde-efbad-cf); r->k0 where there are none.
 * The measurement stops after its first timed call (ein_rank_too_slow
 * against a best of a nanosecond), and runs at most "timeout" seconds
 * (0: --timeout). */
static double probe(struct run *r, const char *text, const int64_t *sizes,
	double timeout)
{
	struct ein_measure_opts mo;
	double t = -1;
	enum ein_trial_status st;
	char msg[512];
	ein_kernel *k = r->k0;
	int status;

	if (text && *text)
		k = compile_cand(r, 0, text, sizes, &status, msg,
			sizeof(msg));
	if (!k)
		return -1;
	measure_opts(r, &mo);
	mo.best = 1e-9;
	mo.slow_factor = 1;
	if (timeout > 0 && timeout < mo.timeout)
		mo.timeout = timeout;
	st = ein_measure_time(k, sizes, &mo, EIN_FAULT_NONE, &t);
	if (k != r->k0)
		ein_kernel_free(k);
	if (st == EIN_TRIAL_TIMEOUT)
		return mo.timeout;
	return st == EIN_TRIAL_OK || st == EIN_TRIAL_SLOW ? t : -1;
}

/* Rank at "sizes" (reduced from the tuning sizes; one call of the
 * automatic schedule took "t" seconds there). */
static void use_rank_sizes(struct run *r, const int64_t *sizes, double t)
{
	memcpy(r->rank, sizes, sizeof(r->rank));
	print_sizes(r, sizes, r->rank_text, sizeof(r->rank_text));
	r->rank_flops = ein_space_work(r->k0, sizes, r->n_size, NULL);
	r->reduced = 1;
	r->probe_rank = t;
	r->reserve = CONFIRM_SHARE * r->o->time;
}

/* Whether the automatic schedule's rate at "sizes" (one call "t"
 * seconds) is within RANK_PREDICT of its rate at the tuning sizes (at
 * least that, where the call there ran past its time limit). */
static int predicts(const struct run *r, const int64_t *sizes, double t)
{
	double full = r->space.flops / r->probe_full,
		here = ein_space_work(r->k0, sizes, r->n_size, NULL) / t;

	if (t <= 0)
		return 0;
	if (r->probe_full >= r->o->timeout)
		return here * RANK_PREDICT >= full;
	return here <= full * RANK_PREDICT && here * RANK_PREDICT >= full;
}

/* choose_rank_sizes with the automatic schedule's directives "text"
 * (NULL: none) and the limit. */
static int reduce_for(struct run *r, const char *text, double limit)
{
	double factor, ratio, t;
	int64_t red[16];
	int tries;

	/* The definition's own kernel first, compiled already: its
	 * symbolic automatic schedule is rarely faster than the fixed
	 * one, so within the limit there, no compile is spent. */
	r->probe_full = probe(r, NULL, r->sizes, 2 + 4 * limit);
	if (r->probe_full < 0 || r->probe_full > limit)
		r->probe_full = probe(r, text, r->sizes, 0);
	if (r->o->verbose)
		fprintf(stderr, "ein tune: one call of the automatic schedule "
			"at %s: %.4g ms (the limit for ranking there: %.4g "
			"ms)\n", r->size_text, r->probe_full * 1e3,
			limit * 1e3);
	if (r->probe_full <= limit)
		return 0;
	factor = r->probe_full * RANK_MARGIN / limit;
	for (tries = 0; tries < 3 && factor >= 2; ++tries) {
		ratio = ein_reduce_sizes(r->prog, r->def, r->k0, r->sizes,
			r->n_size, factor, red);
		/* No smaller space (an error there): measure at the
		 * sizes, as without a limit. */
		if (ratio < 2)
			break;
		t = probe(r, text, red, 0);
		if (predicts(r, red, t)) {
			use_rank_sizes(r, red, t);
			if (r->o->verbose)
				fprintf(stderr, "ein tune: candidates ranked "
					"at %s (%.3g times fewer operations; "
					"one call %.4g ms), the leaders "
					"measured at %s\n", r->rank_text,
					ratio, t * 1e3, r->size_text);
			return 0;
		}
		if (r->o->verbose)
			fprintf(stderr, "ein tune: a reduction by %.3g does not "
				"predict the full sizes (one call %.4g ms)\n",
				ratio, t * 1e3);
		factor = sqrt(ratio);
	}
	if (r->o->verbose)
		fprintf(stderr, "ein tune: no smaller problem of the same "
			"shape; candidates measured at %s\n", r->size_text);
	return 0;
}

/* Rank at the sizes "text" (--rank-sizes, or a resumed log's), each at
 * most its tuning size; the automatic schedule is timed at both for the
 * leaders' estimate.  -1 after a message if they do not parse. */
static int given_rank_sizes(struct run *r, const char *text)
{
	int64_t red[16];
	char *auto_text;
	int i;

	if (ein_cli_parse_sizes(text, r->k0, red) < 0)
		return -2;
	for (i = 0; i < r->n_size; ++i)
		if (red[i] < 1 || red[i] > r->sizes[i]) {
			fprintf(stderr, "ein tune: error: ranking size %s=%lld "
				"is not between 1 and its size %lld\n",
				ein_kernel_get_size_name(r->k0, i),
				(long long) red[i], (long long) r->sizes[i]);
			return -2;
		}
	auto_text = auto_directives(r);
	r->probe_full = probe(r, auto_text, r->sizes, 0);
	use_rank_sizes(r, red, probe(r, auto_text, red, 0));
	free(auto_text);
	if (r->o->verbose)
		fprintf(stderr, "ein tune: candidates ranked at %s as asked, "
			"the leaders measured at %s\n", r->rank_text,
			r->size_text);
	return 0;
}

/* Where one call at the tuning sizes is too slow for the budget
 * (rank_limit), rank candidates at reduced sizes of the same shape
 * (reduce.h) with that many times fewer operations, if the automatic
 * schedule's rate there predicts its rate at the full sizes (a
 * reduction that changes what bounds the kernel, from memory to cache,
 * would rank candidates on another problem); else try the square root
 * of that reduction, then none.  Returns -2 after a message if
 * --rank-sizes is bad (a failure to reduce only leaves the sizes). */
static int choose_rank_sizes(struct run *r)
{
	double limit = rank_limit(r);
	char *text;
	int res;

	r->probe_full = r->probe_rank = -1;
	if (r->o->rank_sizes)
		return given_rank_sizes(r, r->o->rank_sizes);
	if (limit <= 0 || r->gpu || r->n_size == 0)
		return 0;
	text = auto_directives(r);
	res = reduce_for(r, text, limit);
	free(text);
	return res;
}

/* ---- the log ----------------------------------------------------------- */

/* Replay the trials of a loaded log into the run. */
static int replay(struct run *r, struct ein_tunelog *log)
{
	int i;

	for (i = 0; i < log->n_trial; ++i) {
		struct trial t;

		memset(&t, 0, sizeof(t));
		if (ein_cand_decode(&r->space, log->trial[i].plan,
				log->trial[i].n_plan, &t.cand) < 0) {
			fprintf(stderr, "ein tune: %s:%d: error: trial %d "
				"does not fit this kernel\n", r->log_path,
				log->trial[i].line, log->trial[i].trial);
			return -1;
		}
		t.rec = log->trial[i];
		memset(&log->trial[i], 0, sizeof(log->trial[i]));
		if (add_trial(r, &t) < 0)
			return -1;
		r->rng = t.rec.rng;
		r->elapsed0 = t.rec.elapsed;
	}
	return 0;
}

/* Does the log's start record describe this run? */
static int same_run(const struct run *r, const struct ein_tunelog *log)
{
	if (strcmp(log->start.def, r->def) ||
	    strcmp(log->start.sizes, r->size_text) ||
	    strcmp(log->start.target, r->target)) {
		fprintf(stderr, "ein tune: error: %s is the log of %s %s on "
			"%s, not of %s %s on %s\n", r->log_path,
			log->start.def, log->start.sizes, log->start.target,
			r->def, r->size_text, r->target);
		return 0;
	}
	return 1;
}

static int io_error(const struct run *r)
{
	fprintf(stderr, "ein tune: error: cannot write %s: %s\n",
		r->log_path, strerror(errno));
	return -1;
}

/* Resume from the log, or start a new one. */
static int open_log(struct run *r)
{
	struct ein_tunelog log;
	char err[1024];
	struct ein_tunelog_start s = { (char *) r->o->file, (char *) r->def,
		r->target, r->size_text, r->o->strategy == EIN_TUNE_RANDOM ?
		"random" : "evolve", (char *) ein_version(), r->o->seed,
		NULL };

	r->rng = r->o->seed;
	/* Locked before it is read or cut: another run may be writing it. */
	r->log_fd = ein_tunelog_open(r->log_path);
	if (r->log_fd < 0 && errno == EBUSY) {
		fprintf(stderr, "ein tune: error: %s is in use by another ein "
			"tune; one run at a time per log (and schedule)\n",
			r->log_path);
		return -1;
	}
	if (r->log_fd < 0)
		goto fail_io;
	if (!r->o->resume) {
		int res = choose_rank_sizes(r);

		if (res == -1)
			fprintf(stderr, "%s", ein_ctx_last_error(r->ctx));
		if (res < 0)
			return -1;
		s.rank_sizes = r->reduced ? r->rank_text : NULL;
		if (ein_tunelog_truncate(r->log_fd, 0) < 0 ||
		    ein_tunelog_write_start(r->log_fd, &s) < 0)
			goto fail_io;
		return 0;
	}
	if (ein_tunelog_load(r->log_path, &log, err, sizeof(err)) < 0) {
		fprintf(stderr, "ein tune: %s\n", err);
		return -1;
	}
	if (!same_run(r, &log) ||
	    (log.start.rank_sizes &&
	     given_rank_sizes(r, log.start.rank_sizes) < 0) ||
	    replay(r, &log) < 0)
		return ein_tunelog_clear(&log), -1;
	if (ein_tunelog_truncate(r->log_fd, log.good_bytes) < 0)
		return ein_tunelog_clear(&log), io_error(r);
	ein_tunelog_clear(&log);
	return 0;
fail_io:
	return io_error(r);
}

/* ---- the run ----------------------------------------------------------- */

static int budget_left(const struct run *r)
{
	if (r->o->trials > 0 && r->n_measured >= r->o->trials)
		return 0;
	if (r->o->time > 0 && elapsed(r) - r->elapsed0 >= r->o->time -
			r->reserve)
		return 0;
	return r->o->trials > 0 || r->o->time > 0;
}

static void queue_seeds(struct run *r)
{
	struct ein_cand c[MAX_SEEDS];
	int n = ein_cand_seeds(&r->space, c, MAX_SEEDS), i;

	ein_cand_default(&r->space, &r->queue[0]);
	r->queue_origin[0] = "default";
	r->n_queue = 1;
	for (i = 0; i < n; ++i)
		enqueue(r, &c[i], "seed");
}

/* The directives of the automatic schedule of the run's definition
 * (the lines of "ein show --stage=schedule" that name a statement), NULL
 * if a schedule file applies or no rule does (sched/auto.h). */
static char *auto_directives(struct run *r)
{
	ein_options *opts = ein_options_alloc();
	char *text = NULL, *out = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	for (i = 0; opts && i < r->n_size; ++i)
		ein_options_set_size(opts, ein_kernel_get_size_name(r->k0, i),
			r->sizes[i]);
	if (opts && r->cpu)
		ein_options_set_target(opts, r->cpu);
	if (opts)
		text = ein_program_show_with(r->prog, r->def,
			EIN_STAGE_SCHEDULE, opts);
	ein_options_free(opts);
	f = text && !strncmp(text, "# automatic", 11) ?
		open_memstream(&out, &len) : NULL;
	for (line = f ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#' && strchr(line, ':'))
			fprintf(f, "%s\n", line);
	free(text);
	if (f && fclose(f) != 0)
		return free(out), NULL;
	return out;
}

/* Measure the automatic schedule as a seed (with the default candidate's
 * plan: it has none of its own in the search space). */
static int try_auto(struct run *r)
{
	char *text = auto_directives(r);
	struct ein_cand c;
	int res = 0;

	if (text && *text && !seen(r, text)) {
		ein_cand_default(&r->space, &c);
		res = try_cand(r, &c, "automatic", text);
	}
	free(text);
	return res;
}

/* Measure the schedule of the GEMM of the same structure (analog.h)
 * as a seed, with the default candidate's plan (it has none of its own
 * in the search space). */
static int try_analog(struct run *r)
{
	char *why, *text = ein_analog_directives(r->ctx, &r->space,
		r->target, &why);
	struct ein_cand c;
	int res = 0;

	if (text && !seen(r, text)) {
		if (r->o->verbose)
			fprintf(stderr, "ein tune: analog seed from %s\n",
				why);
		ein_cand_default(&r->space, &c);
		res = try_cand(r, &c, "analog", text);
	}
	free(text);
	free(why);
	return res;
}

/* The seeds measured right after the default schedule, budget
 * permitting: the automatic schedule, then the analog's. */
static int try_after_default(struct run *r)
{
	int res = budget_left(r) ? try_auto(r) : 0;

	if (res == 0 && budget_left(r))
		res = try_analog(r);
	return res;
}

static int search(struct run *r)
{
	int attempts = 0, tried_auto = 0;

	queue_seeds(r);
	while (budget_left(r) && attempts++ < 20 * (r->o->trials + 100)) {
		struct ein_cand c;
		const char *origin;
		char *text = next_cand(r, &c, &origin);
		int res;

		if (!text)
			break;
		res = try_cand(r, &c, origin, text);
		free(text);
		/* The automatic and analog seeds are the CPU's. */
		if (res == 0 && !r->gpu && !tried_auto++)
			res = try_after_default(r);
		if (res < 0)
			return -1;
		progress(r);
	}
	return 0;
}

/* Print the analog seed (analog.h) of the run, if it has one. */
static void list_analog(const struct run *r)
{
	char *why, *text = ein_analog_directives(r->ctx, &r->space,
		r->target, &why);

	if (text)
		printf("analog seed from %s:\n%s", why, text);
	free(text);
	free(why);
}

/* Print the smallest sizes candidates would be ranked at where a call
 * at the tuning sizes is too slow (reduce.h), if any. */
static void list_rank_sizes(const struct run *r)
{
	int64_t red[16];
	char text[256];

	if (r->gpu || r->n_size == 0 || ein_reduce_sizes(r->prog, r->def,
			r->k0, r->sizes, r->n_size, 1e30, red) < 2)
		return;
	print_sizes(r, red, text, sizeof(text));
	printf("smallest sizes to rank at where a call is too slow: %s\n",
		text);
}

/* Print the space of the run (--list-space): the machine, each
 * statement's loops with their extents and tile sizes, and the
 * directives of the analog seed (analog.h) and of the analytic seeds,
 * without measuring anything. */
static int list_space(const struct run *r)
{
	const struct ein_space *sp = &r->space;
	const struct ein_machine *m = &sp->machine;
	struct ein_cand seed[MAX_QUEUE];
	int n = ein_cand_seeds(sp, seed, MAX_SEEDS), s, v, i;

	if (r->gpu)
		printf("space of %s at %s, sizes %s, on %s: %s (%s), "
			"work-groups of at most %ld items, %ld bytes of local "
			"memory\n", r->def, r->size_text, r->o->symbolic ?
			"symbolic" : "fixed", r->target, r->device.name,
			r->cl_target, sp->device.max_group,
			sp->device.local_mem);
	else
		printf("space of %s at %s, sizes %s, on %s: %d float32 lanes, "
			"%d vector registers, caches %ld/%ld/%ld bytes, %d "
			"thread%s\n", r->def, r->size_text, r->o->symbolic ?
			"symbolic" : "fixed", r->target, m->vector_lanes,
			m->n_vreg, m->cache[0], m->cache[1], m->cache[2],
			m->n_threads, m->n_threads > 1 ? "s" : "");
	for (s = 0; s < sp->n_stmt; ++s) {
		const struct ein_space_stmt *ss = &sp->stmt[s];

		printf("statement %s:\n", ss->name);
		for (v = 0; v < ss->n_loop; ++v) {
			printf("  loop %s: %ld%s, tiles", ss->loop[v],
				ss->extent[v], ss->is_reduction[v] ?
				" (reduction)" : "");
			for (i = 0; i < ss->n_choice[v]; ++i)
				printf(" %d", ss->choice[v][i]);
			printf("\n");
		}
	}
	list_rank_sizes(r);
	list_analog(r);
	for (i = 0; i < n; ++i) {
		char *text = ein_cand_to_directives(sp, &seed[i]);

		if (!text)
			return 1;
		printf("seed %d:\n%s", i + 1, text);
		free(text);
	}
	return 0;
}

/* The estimated seconds of measuring trial "t" again: the warm-up call,
 * the timed calls (at least 3 and --min-time), a child's start: on a
 * device also the build of its program, from the driver's cache at best
 * (PoCL's took about a second on a loaded machine). */
static double measure_cost(const struct run *r, const struct trial *t)
{
	double s = t->rec.seconds, timed = 3 * s;

	if (timed < r->o->min_time)
		timed = r->o->min_time;
	return s + timed + (r->gpu ? 1.0 : 0.01);
}

/* The rounds the re-measurement of the "n" leaders "lead" can have
 * within its budget, 0 if fewer than MIN_ROUNDS. */
static int remeasure_rounds(const struct run *r, const int *lead, int n)
{
	double round = 0, budget = REMEASURE_SHARE *
		(elapsed(r) - r->elapsed0);
	int i, rounds, inject = ein_inject_remeasure_budget();

	for (i = 0; i < n; ++i)
		round += measure_cost(r, &r->trial[lead[i]]);
	if (budget < REMEASURE_FLOOR)
		budget = REMEASURE_FLOOR;
	/* The test hook counts measurements, not seconds. */
	if (inject >= 0) {
		round = n;
		budget = inject;
	}
	for (rounds = ROUNDS; rounds >= MIN_ROUNDS; --rounds)
		if (rounds * round <= budget)
			return rounds;
	return 0;
}

/* How many times longer a call at the full sizes takes than at the
 * ranking sizes: as the automatic schedule's did, or (where one of its
 * calls failed) as the operations grow. */
static double full_scale(const struct run *r)
{
	if (r->probe_full > 0 && r->probe_rank > 0)
		return r->probe_full / r->probe_rank;
	return r->space.flops / r->rank_flops;
}

/* Ranked at reduced sizes, the leaders are measured at the full sizes
 * in the time the search left (its reserve, CONFIRM_SHARE of the
 * budget): the estimated seconds of one at the full sizes is its time
 * at the ranking sizes scaled as the automatic schedule's time scaled.
 * Leaders are dropped from the last (never the fastest or the automatic
 * seed) until one round fits; then as many rounds as fit, one at
 * least, ROUNDS at most (without --time: all of them, ROUNDS).  Returns
 * the rounds; *n is cut. */
static int full_size_rounds(struct run *r, int *n)
{
	double scale = full_scale(r), round, left;
	int i, rounds;

	/* Without --time, no budget to keep to: all leaders, ROUNDS. */
	if (r->o->time <= 0)
		return ROUNDS;
	left = r->o->time - (elapsed(r) - r->elapsed0);
	for (;;) {
		for (round = 0, i = 0; i < *n; ++i)
			round += measure_cost(r, &r->trial[r->lead[i]]) * scale;
		for (i = *n - 1; i > 0 && !strcmp(r->trial[r->lead[i]].rec.origin,
				"automatic"); --i)
			;
		if (round <= left || i == 0)
			break;
		memmove(r->lead + i, r->lead + i + 1,
			(*n - i - 1) * sizeof(*r->lead));
		--*n;
	}
	rounds = round > 0 ? (int) (left / round) : ROUNDS;
	return rounds < 1 ? 1 : rounds > ROUNDS ? ROUNDS : rounds;
}

/* Whether the leader fastest at the ranking sizes (by the time it was
 * ranked by) is the one chosen at the full sizes, "win". */
static int ranking_agrees(const struct run *r, int win)
{
	int i, first = 0;

	for (i = 1; i < r->n_lead; ++i)
		if (r->trial[r->lead[i]].rec.seconds <
		    r->trial[r->lead[first]].rec.seconds)
			first = i;
	return first == win;
}

/* Time the compiled leaders "k" (NULL: not compiled) in "rounds"
 * interleaved rounds, one child each, into t[round * n + i], -1 where a
 * measurement failed: interleaved, a stretch of load on the shared
 * machine slows every leader alike instead of one. */
static void time_rounds(struct run *r, ein_kernel **k, int n, int rounds,
	double *t)
{
	struct ein_measure_opts mo;
	enum ein_fault f[MAX_LEAD];
	int i, j;

	measure_opts(r, &mo);
	for (i = 0; i < n; ++i)
		f[i] = ein_fault_at(ein_fault_for_trial(
			r->trial[r->lead[i]].rec.trial), EIN_MEASURE_FINAL);
	for (j = 0; j < rounds; ++j)
		for (i = 0; i < n; ++i) {
			/* Ranked at reduced sizes, a leader's time limit
			 * grows with its estimate at the full sizes (which
			 * also make its inputs in the child). */
			if (r->reduced)
				mo.timeout = r->o->timeout + 4 * measure_cost(r,
					&r->trial[r->lead[i]]) * full_scale(r);
			if (!k[i] || ein_measure_time(k[i], r->sizes, &mo,
					f[i], &t[j * n + i]) != EIN_TRIAL_OK)
				t[j * n + i] = -1;
		}
}

/* Choose among the timed leaders "k" (t as time_rounds fills it) by
 * median; a winner never checked against the reference (a leader that
 * was not a new best when first measured) is checked now, and one that
 * fails is dropped for the next.  Returns the index in "k", -1 if
 * none. */
static int choose_leader(struct run *r, ein_kernel **k, int n, int rounds,
	double *t)
{
	struct ein_measure_opts mo;
	int win, j;

	measure_opts(r, &mo);
	while ((win = ein_rank_choose(t, n, rounds)) >= 0) {
		struct trial *w = &r->trial[r->lead[win]];

		if (!w->rec.checked)
			check_cand(r, k[win], r->o->symbolic ? NULL :
				r->sizes, w, &mo, EIN_FAULT_NONE);
		if (w->rec.status == EIN_TRIAL_OK)
			break;
		fprintf(stderr, "ein tune: trial %d fails its check (%s); "
			"not chosen\n", w->rec.trial, w->rec.message ?
			w->rec.message : ein_trial_status_name(w->rec.status));
		r->n_failed++;
		r->n_wrong += w->rec.status == EIN_TRIAL_WRONG;
		for (j = 0; j < rounds; ++j)
			t[j * n + win] = -1;
	}
	return win;
}

/* The trials re-measured at the end, into lead (room for MAX_LEAD): the
 * LEADERS fastest, then the automatic and analog seeds where they were
 * measured, if not among them.  With the automatic schedule among them,
 * the schedule written is never slower, by the median of the same
 * rounds, than the one the definition gets without a file.  Returns
 * how many. */
static int leaders(const struct run *r, int *lead)
{
	int pop[POPULATION], n = population(r, pop), i, j;

	n = n < LEADERS ? n : LEADERS;
	memcpy(lead, pop, n * sizeof(*pop));
	for (i = 0; i < r->n_trial && n < MAX_LEAD; ++i) {
		if (!is_start_seed(&r->trial[i]) ||
		    r->trial[i].rec.status != EIN_TRIAL_OK)
			continue;
		for (j = 0; j < n && lead[j] != i; ++j)
			;
		if (j == n)
			lead[n++] = i;
	}
	return n;
}

/* The automatic seed's trial, -1 if it was not measured. */
static int auto_seed(const struct run *r)
{
	int i;

	for (i = 0; i < r->n_trial; ++i)
		if (!strcmp(r->trial[i].rec.origin, "automatic") &&
		    r->trial[i].rec.status == EIN_TRIAL_OK)
			return i;
	return -1;
}

/* The default schedule's trial where it may face the best in the duel
 * (measured, neither the best nor the automatic seed "a"), else -1. */
static int duel_default(const struct run *r, int a)
{
	int d = r->baseline;

	return d >= 0 && d != r->best && d != a &&
		r->trial[d].rec.status == EIN_TRIAL_OK ? d : -1;
}

/* Where not even the rounds of the best and the automatic seed "a" fit:
 * the seed replaces a best not faster than its single measurement by
 * more than the noise margin (ein_rank_keeps_seed), checked against the
 * reference first if it never was.  Sets r->duel. */
static void duel_by_margin(struct run *r, int a)
{
	struct trial *w = &r->trial[a];

	r->duel = ein_rank_keeps_seed(r->trial[r->best].rec.seconds,
		w->rec.seconds) ? DUEL_KEPT : DUEL_BEATEN;
	if (r->duel == DUEL_KEPT && !w->rec.checked) {
		struct ein_measure_opts mo;
		char msg[512];
		int st;
		ein_kernel *k = compile_cand(r, w->rec.trial,
			w->rec.schedule, r->o->symbolic ? NULL : r->sizes,
			&st, msg, sizeof(msg));

		measure_opts(r, &mo);
		if (k)
			check_cand(r, k, r->o->symbolic ? NULL : r->sizes, w,
				&mo, EIN_FAULT_NONE);
		ein_kernel_free(k);
		if (!k || w->rec.status != EIN_TRIAL_OK)
			r->duel = DUEL_BEATEN;
	}
	if (r->duel == DUEL_KEPT)
		r->best = a;
	if (r->o->verbose)
		fprintf(stderr, "ein tune: not even the best (trial %d, %.4g "
			"ms) and the automatic seed (trial %d, %.4g ms) can be "
			"re-measured within %.0f%% of the search's time; %s\n",
			r->trial[r->lead[0]].rec.trial,
			r->trial[r->lead[0]].rec.seconds * 1e3, w->rec.trial,
			w->rec.seconds * 1e3, REMEASURE_SHARE * 100,
			r->duel == DUEL_KEPT ? "the automatic seed is kept, "
			"the best not faster by more than the noise margin" :
			"the best is faster by more than the noise margin");
}

/* Where the "n" leaders' rounds do not fit the budget, a single lucky
 * measurement (of the best, or an unlucky one of the seed) must still
 * not beat the automatic seed, nor the default schedule: the best, the
 * automatic seed and the default, into r->lead, are measured in as many
 * interleaved rounds as fit the same budget (returned), the default
 * left out where the three do not fit (a best that is the automatic
 * seed faces the default alone: before, it faced nothing, and a lucky
 * seed was written over a default that beat it); where not even
 * MIN_ROUNDS of the best and the seed fit (0 returned), the two are
 * compared by their single measurements (duel_by_margin).  Sets
 * r->duel. */
static int duel_rounds(struct run *r, int n)
{
	int a = auto_seed(r), d, rounds;

	if (a == r->best)
		a = -1;
	d = duel_default(r, a);
	if (r->best < 0 || (a < 0 && d < 0))
		return 0;
	r->n_skipped = n;
	r->n_lead = 0;
	r->lead[r->n_lead++] = r->best;
	if (a >= 0)
		r->lead[r->n_lead++] = a;
	if (d >= 0)
		r->lead[r->n_lead++] = d;
	rounds = remeasure_rounds(r, r->lead, r->n_lead);
	if (rounds == 0 && r->n_lead == 3)
		rounds = remeasure_rounds(r, r->lead, --r->n_lead);
	if (rounds > 0) {
		r->duel = DUEL_MEASURED;
		return rounds;
	}
	if (a < 0) {
		r->n_lead = n;
		return 0;
	}
	duel_by_margin(r, a);
	return 0;
}

/* Print the re-measurement of the leaders (--verbose). */
static void print_leaders(const struct run *r, int win)
{
	int i;

	for (i = 0; i < r->n_lead; ++i) {
		const struct trial *tr = &r->trial[r->lead[i]];

		fprintf(stderr, "ein tune: leader trial %d%s: first measured "
			"%.4g ms%s%s, median of %d re-measurements%s%s %.4g "
			"ms%s\n", tr->rec.trial, seed_tag(tr),
			tr->rec.seconds * 1e3, r->reduced ? " at " : "",
			r->reduced ? r->rank_text : "", r->lead_rounds,
			r->reduced ? " at " : "", r->reduced ? r->size_text :
			"", r->lead_median[i] * 1e3, i == win ? " (chosen)" :
			"");
	}
	if (r->lead_agree >= 0)
		fprintf(stderr, "ein tune: the fastest leader at the ranking "
			"sizes is%s the fastest at the full sizes\n",
			r->lead_agree ? "" : " not");
	if (win >= 0 && is_start_seed(&r->trial[r->lead[win]]))
		fprintf(stderr, "ein tune: no candidate of the search beat "
			"the %s seed it started from; that seed is written\n",
			r->trial[r->lead[win]].rec.origin);
}

/* A single measurement on a shared machine may be lucky: the leaders of
 * the search (by their first measurement) and the seeds it started from
 * are measured again in rounds, interleaved, and the one with the least
 * median becomes the best (rank.h), checked against the reference first
 * if it never was. */
static void remeasure(struct run *r)
{
	int n, win = -1, i, j;
	ein_kernel *k[MAX_LEAD] = { NULL };
	double t[ROUNDS * MAX_LEAD], col[ROUNDS];
	char names[256];

	n = leaders(r, r->lead);
	if (n < (r->reduced ? 1 : 2))
		return;
	r->lead_rounds = r->reduced ? full_size_rounds(r, &n) :
		remeasure_rounds(r, r->lead, n);
	r->n_lead = n;
	if (r->lead_rounds == 0) {
		if (r->o->verbose)
			fprintf(stderr, "ein tune: the leaders are not "
				"re-measured: it would take more than %.0f%% "
				"of the search's time\n",
				REMEASURE_SHARE * 100);
		r->lead_rounds = duel_rounds(r, n);
		if (r->lead_rounds == 0)
			return;
		n = r->n_lead;
		if (r->o->verbose)
			fprintf(stderr, "ein tune: %s are re-measured in %d "
				"interleaved rounds instead\n",
				duel_members(r, 1, names, sizeof(names)),
				r->lead_rounds);
	}
	for (i = 0; i < n; ++i) {
		struct ein_tunelog_trial *rec = &r->trial[r->lead[i]].rec;
		char msg[512];
		int st;

		k[i] = compile_cand(r, rec->trial, rec->schedule, r->o->symbolic
			? NULL : r->sizes, &st, msg, sizeof(msg));
	}
	time_rounds(r, k, n, r->lead_rounds, t);
	for (i = 0; i < n; ++i) {
		for (j = 0; j < r->lead_rounds; ++j)
			col[j] = t[j * n + i];
		r->lead_median[i] = ein_rank_median(col, r->lead_rounds);
	}
	win = choose_leader(r, k, n, r->lead_rounds, t);
	r->lead_agree = win >= 0 && r->reduced ? ranking_agrees(r, win) : -1;
	if (r->o->verbose)
		print_leaders(r, win);
	if (win >= 0)
		r->best = r->lead[win];
	for (i = 0; i < n; ++i)
		ein_kernel_free(k[i]);
}

/* The best verified trial, -1 if none. */
static int best_verified(const struct run *r)
{
	int i, best = -1;

	for (i = 0; i < r->n_trial; ++i)
		if (r->trial[i].rec.status == EIN_TRIAL_OK &&
		    r->trial[i].rec.checked && (best < 0 ||
		    r->trial[i].rec.gflops > r->trial[best].rec.gflops))
			best = i;
	return best;
}

/* Lookup serves a written schedule at other sizes too: with fixed sizes,
 * the best must also be legal, and right, compiled with symbolic sizes.
 * One that is not is dropped for the next best verified trial. */
static void verify_symbolic(struct run *r)
{
	struct ein_measure_opts mo;

	measure_opts(r, &mo);
	while (!r->o->symbolic && r->best >= 0) {
		struct trial *t = &r->trial[r->best];

		if (check_compiled(r, NULL, t, &mo, EIN_FAULT_NONE) == 0)
			return;
		fprintf(stderr, "ein tune: trial %d fails with symbolic sizes "
			"(%s); not written\n", t->rec.trial, t->rec.message ?
			t->rec.message : ein_trial_status_name(t->rec.status));
		r->n_failed++;
		r->n_wrong += t->rec.status == EIN_TRIAL_WRONG;
		r->best = best_verified(r);
	}
}

/* The median time of the best trial: of its re-measurements if it was
 * re-measured, else its one measurement; -1 if none (ranked at reduced
 * sizes: if it was not measured at the full sizes). */
static double best_seconds(const struct run *r)
{
	int i;

	if (r->best < 0)
		return -1;
	for (i = 0; i < r->n_lead && r->lead_rounds > 0; ++i)
		if (r->lead[i] == r->best && r->lead_median[i] > 0)
			return r->lead_median[i];
	return r->reduced ? -1 : r->trial[r->best].rec.seconds;
}

/* Fill the caller's result, if any. */
static void give_result(const struct run *r, int wrote)
{
	struct ein_tune_result *res = r->o->result;

	if (!res)
		return;
	res->best_seconds = best_seconds(r);
	res->default_seconds = r->baseline >= 0 && !r->reduced ?
		r->trial[r->baseline].rec.seconds : -1;
	res->wrote = wrote;
	snprintf(res->path, sizeof(res->path), "%s", r->out_path);
}

/* No trial was measured and verified: say so, with the last message a
 * failed measurement gave (every trial of a tune whose device could
 * not start in the measuring children failed alike). */
static void no_candidate(const struct run *r)
{
	int i;

	fprintf(stderr, "ein tune: error: no candidate was measured and "
		"verified; no schedule written\n");
	for (i = r->n_trial - 1; i >= 0; --i)
		if (r->trial[i].rec.status == EIN_TRIAL_CRASH &&
		    r->trial[i].rec.message) {
			fprintf(stderr, "ein tune: note: trial %d failed in "
				"its child: %s\n", r->trial[i].rec.trial,
				r->trial[i].rec.message);
			return;
		}
}

/* Log the completion, write the schedule, print the summary. */
static int finish(struct run *r)
{
	int wrote = 0, best_trial;
	double best;

	r->finishing = 1;
	remeasure(r);
	verify_symbolic(r);
	best = r->best >= 0 ? r->trial[r->best].rec.gflops : 0;
	best_trial = r->best >= 0 ? r->trial[r->best].rec.trial : 0;

	if (ein_tunelog_write_done(r->log_fd, r->n_trial, best_trial, best,
			elapsed(r)) < 0)
		fprintf(stderr, "ein tune: error: cannot write %s: %s\n",
			r->log_path, strerror(errno));
	if (r->o->output_mode == EIN_TUNE_JSON)
		ein_tunelog_write_done(STDOUT_FILENO, r->n_trial, best_trial,
			best, elapsed(r));
	if (r->best >= 0 && write_schedule(r) == 0)
		wrote = 1;
	summary(r, wrote);
	give_result(r, wrote);
	if (r->best < 0)
		no_candidate(r);
	return r->best < 0 || !wrote ? 1 : r->n_wrong ? 3 : 0;
}

static void run_clear(struct run *r)
{
	int i;
	char path[1100];

	for (i = 0; i < r->n_trial; ++i)
		ein_tunelog_trial_clear(&r->trial[i].rec);
	free(r->trial);
	if (r->log_fd >= 0)
		close(r->log_fd);
	if (r->dir[0]) {
		snprintf(path, sizeof(path), "%s/candidate.sched", r->dir);
		unlink(path);
		rmdir(r->dir);
	}
	free(r->target);
	free(r->cpu);
	free(r->model);
	ein_kernel_free(r->best_k);
	ein_kernel_free(r->k0);
	ein_program_free(r->prog);
	ein_ctx_free(r->ctx);
}

int ein_tune_run(const struct ein_tune_opts *o)
{
	struct run *r = calloc(1, sizeof(*r));
	int res;

	if (!r)
		return 1;
	r->o = o;
	r->log_fd = -1;
	r->best = r->baseline = -1;
	r->lead_agree = -1;
	r->probe_full = r->probe_rank = -1;
	r->model = malloc(sizeof(*r->model));
	if (r->model)
		ein_model_init(r->model);
	r->start_time = ein_cli_now();
	if (o->result)
		*o->result = (struct ein_tune_result) { -1, -1, 0, "" };
	res = r->model ? setup(r) : -1;
	if (res == -1)
		fprintf(stderr, "%s", r->ctx ? ein_ctx_last_error(r->ctx) :
			"ein tune: error: out of memory\n");
	if (res == 0 && o->list_space)
		res = list_space(r);
	else if (res == 0 && make_work_dirs(r) == 0 && open_log(r) == 0 &&
		 search(r) == 0)
		res = finish(r);
	else
		res = 1;
	run_clear(r);
	free(r);
	ein_ocl_forbid_load(0);
	return res;
}
