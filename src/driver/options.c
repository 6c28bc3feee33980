/*
 * options.c: ein_options, and which schedule a compile uses.
 *
 * An explicit file always wins.  Otherwise, with lookup on, the file is
 * searched as schedules/<target>/<def>.sched (and variants tuned for other
 * sizes) along EIN_SCHEDULE_PATH, then the installed data directory; the
 * target is the host's class (x86_64-avx2, ...).  Finding nothing is not
 * an error: the automatic schedule is used (sched/auto.h), or, with auto
 * off, the default schedule.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "ctx.h"
#include "codegen/target.h"
#include "sched/lookup.h"
#include "driver/budget.h"
#include "sched/auto.h"
#include "driver/options.h"
#include "opencl/runtime.h"

/* schedule: the file given (NULL: none); no_lookup: never look one up;
 * strict_fp: ein_options_set_strict_fp; n_size, size_name, size_value,
 *	size_fixed: the sizes set, their values and whether each is fixed;
 * compile_timeout: the budget of a compile in seconds (0: none);
 * no_auto: use the default schedule, not the automatic one, when no file
 *	is found;
 * cpu: the named CPU target to compile for (ein_options_set_target;
 *	NULL: the host);
 * opencl, cl_platform, cl_device: compile for an OpenCL device
 *	(ein_options_set_target), and which (-1: EIN_OPENCL_DEVICE, else
 *	the first GPU, else the first device).
 * cl_profile: time the OpenCL kernels by profiling events
 *	(ein_options_set_opencl_profiling);
 * cl_lazy: build the OpenCL program at the first call, in the calling
 *	process (ein_options_set_opencl_lazy);
 * no_cost_model: the automatic schedule takes its rules' first legal
 *	candidate, without asking the cost model;
 * progress, progress_user: ein_options_set_progress;
 * quantize, calibration: ein_options_set_quantize (NULL: float);
 * act_bits: ein_options_set_activation_bits (0: the default, 8). */
struct ein_options {
	char *schedule;
	char *cpu;
	int opencl;
	int cl_platform;
	int cl_device;
	int cl_profile;
	int cl_lazy;
	int no_lookup;
	int no_auto;
	int no_cost_model;
	int strict_fp;
	int n_size;
	char **size_name;
	long *size_value;
	char *size_fixed;
	double compile_timeout;
	ein_progress_fn progress;
	void *progress_user;
	char *quantize;
	ein_calibration calibration;
	int act_bits;
};

ein_options *ein_options_alloc(void)
{
	ein_options *opts = calloc(1, sizeof(ein_options));

	if (opts)
		opts->compile_timeout = EIN_DEFAULT_COMPILE_TIMEOUT;
	return opts;
}

void ein_options_free(ein_options *opts)
{
	int i;

	if (!opts)
		return;
	for (i = 0; i < opts->n_size; ++i)
		free(opts->size_name[i]);
	free(opts->size_name);
	free(opts->size_value);
	free(opts->size_fixed);
	free(opts->schedule);
	free(opts->cpu);
	free(opts->quantize);
	free(opts);
}

ein_status ein_options_set_schedule(ein_options *opts, const char *path)
{
	char *dup = path ? strdup(path) : NULL;

	if (!opts)
		return EIN_ERROR_INVALID;
	if (path && !dup)
		return EIN_ERROR_NOMEM;
	free(opts->schedule);
	opts->schedule = dup;
	return EIN_OK;
}

ein_status ein_options_set_quantize(ein_options *opts, const char *profile,
	ein_calibration calibration)
{
	char *dup = profile ? strdup(profile) : NULL;

	if (!opts || (calibration != EIN_CALIBRATION_MINMAX &&
	    calibration != EIN_CALIBRATION_PERCENTILE &&
	    calibration != EIN_CALIBRATION_KL))
		return (free(dup), EIN_ERROR_INVALID);
	if (profile && !dup)
		return EIN_ERROR_NOMEM;
	free(opts->quantize);
	opts->quantize = dup;
	opts->calibration = calibration;
	return EIN_OK;
}

const char *ein_options_get_quantize(const ein_options *opts,
	ein_calibration *calibration)
{
	*calibration = opts ? opts->calibration : EIN_CALIBRATION_MINMAX;
	return opts ? opts->quantize : NULL;
}

ein_status ein_options_set_activation_bits(ein_options *opts, int bits)
{
	if (!opts || (bits != 7 && bits != 8))
		return EIN_ERROR_INVALID;
	opts->act_bits = bits;
	return EIN_OK;
}

int ein_options_get_activation_bits(const ein_options *opts)
{
	return opts && opts->act_bits ? opts->act_bits : 8;
}

ein_status ein_options_set_schedule_lookup(ein_options *opts, int enable)
{
	if (!opts)
		return EIN_ERROR_INVALID;
	opts->no_lookup = !enable;
	return EIN_OK;
}

ein_status ein_options_set_auto(ein_options *opts, int enable)
{
	if (!opts)
		return EIN_ERROR_INVALID;
	opts->no_auto = !enable;
	return EIN_OK;
}

ein_status ein_options_set_cost_model(ein_options *opts, int enable)
{
	if (!opts)
		return EIN_ERROR_INVALID;
	opts->no_cost_model = !enable;
	return EIN_OK;
}

ein_status ein_options_set_progress(ein_options *opts, ein_progress_fn fn,
	void *user)
{
	if (!opts)
		return EIN_ERROR_INVALID;
	opts->progress = fn;
	opts->progress_user = user;
	return EIN_OK;
}

ein_progress_fn ein_options_get_progress(const ein_options *opts,
	void **user)
{
	if (user)
		*user = opts ? opts->progress_user : NULL;
	return opts ? opts->progress : NULL;
}

void ein_options_progress(const ein_options *opts, int done, int total,
	const char *what)
{
	if (opts && opts->progress)
		opts->progress(opts->progress_user, done, total, what);
}

ein_status ein_options_set_strict_fp(ein_options *opts, int strict)
{
	if (!opts)
		return EIN_ERROR_INVALID;
	opts->strict_fp = strict != 0;
	return EIN_OK;
}

ein_status ein_options_set_compile_timeout(ein_options *opts,
	double seconds)
{
	if (!opts || !(seconds >= 0))
		return EIN_ERROR_INVALID;
	opts->compile_timeout = seconds;
	return EIN_OK;
}

double ein_options_get_compile_timeout(const ein_options *opts)
{
	return opts ? opts->compile_timeout : EIN_DEFAULT_COMPILE_TIMEOUT;
}

/* Set size "name" to "value", fixed or not; a size set again takes the
 * latest value and stays fixed once it was. */
static ein_status set_size(ein_options *opts, const char *name,
	int64_t value, int fixed)
{
	char **names;
	long *values;
	char *flags;
	int i;

	if (!opts || !name || value < 1)
		return EIN_ERROR_INVALID;
	for (i = 0; i < opts->n_size; ++i)
		if (!strcmp(opts->size_name[i], name)) {
			opts->size_value[i] = value;
			opts->size_fixed[i] |= fixed;
			return EIN_OK;
		}
	names = realloc(opts->size_name, (opts->n_size + 1) * sizeof(*names));
	if (names)
		opts->size_name = names;
	values = realloc(opts->size_value,
		(opts->n_size + 1) * sizeof(*values));
	if (values)
		opts->size_value = values;
	flags = realloc(opts->size_fixed, opts->n_size + 1);
	if (flags)
		opts->size_fixed = flags;
	if (!names || !values || !flags)
		return EIN_ERROR_NOMEM;
	names[opts->n_size] = strdup(name);
	if (!names[opts->n_size])
		return EIN_ERROR_NOMEM;
	flags[opts->n_size] = fixed;
	values[opts->n_size++] = value;
	return EIN_OK;
}

ein_status ein_options_set_size(ein_options *opts, const char *name,
	int64_t value)
{
	return set_size(opts, name, value, 0);
}

ein_status ein_options_fix_size(ein_options *opts, const char *name,
	int64_t value)
{
	return set_size(opts, name, value, 1);
}

/* Parse a non-negative index of "target" at *s, up to ':' or the end. */
static int parse_index(const char **s, int *v)
{
	char *end;
	long l;

	if (**s < '0' || **s > '9')
		return -1;
	l = strtol(*s, &end, 10);
	if (l > 1000000 || (*end && *end != ':'))
		return -1;
	*v = (int) l;
	*s = *end ? end + 1 : end;
	return 0;
}

/* Compile for the CPU target named "name" (NULL: the host). */
static ein_status set_cpu(ein_options *opts, const char *name)
{
	char *dup = name ? strdup(name) : NULL;

	if (name && !dup)
		return EIN_ERROR_NOMEM;
	free(opts->cpu);
	opts->cpu = dup;
	opts->opencl = 0;
	return EIN_OK;
}

ein_status ein_options_set_target(ein_options *opts, const char *target)
{
	int p = -1, d = -1;
	const char *s;

	if (!opts || !target)
		return EIN_ERROR_INVALID;
	if (!strcmp(target, "cpu") || !strcmp(target, "host"))
		return set_cpu(opts, NULL);
	if (ein_target_named_class(target))
		return set_cpu(opts, target);
	if (strncmp(target, "opencl", 6) || (target[6] && target[6] != ':'))
		return EIN_ERROR_INVALID;
	s = target + 6;
	if (*s == ':') {
		++s;
		if (parse_index(&s, &p) < 0 || parse_index(&s, &d) < 0 || *s)
			return EIN_ERROR_INVALID;
	}
	if (set_cpu(opts, NULL) != EIN_OK)
		return EIN_ERROR_NOMEM;
	opts->opencl = 1;
	opts->cl_platform = p;
	opts->cl_device = d;
	return EIN_OK;
}

ein_status ein_options_set_opencl_profiling(ein_options *opts, int enable)
{
	if (!opts)
		return EIN_ERROR_INVALID;
	opts->cl_profile = enable != 0;
	return EIN_OK;
}

void ein_options_set_opencl_lazy(ein_options *opts, int enable)
{
	opts->cl_lazy = enable != 0;
}

unsigned ein_options_get_opencl_flags(const ein_options *opts)
{
	if (!opts)
		return 0;
	return (opts->cl_lazy ? EIN_OCL_LAZY : 0) |
		(opts->cl_profile ? EIN_OCL_PROFILE : 0);
}

int ein_options_get_opencl(const ein_options *opts, int *platform,
	int *device)
{
	if (!opts || !opts->opencl)
		return 0;
	if (platform)
		*platform = opts->cl_platform;
	if (device)
		*device = opts->cl_device;
	return 1;
}

int ein_options_get_strict_fp(const ein_options *opts)
{
	return opts ? opts->strict_fp : 0;
}

int ein_options_n_size(const ein_options *opts)
{
	return opts ? opts->n_size : 0;
}

const char *ein_options_get_size_name(const ein_options *opts, int pos)
{
	if (!opts || pos < 0 || pos >= opts->n_size)
		return NULL;
	return opts->size_name[pos];
}

long ein_options_get_size_value(const ein_options *opts, int pos)
{
	if (!opts || pos < 0 || pos >= opts->n_size)
		return -1;
	return opts->size_value[pos];
}

int ein_options_size_is_fixed(const ein_options *opts, int pos)
{
	if (!opts || pos < 0 || pos >= opts->n_size)
		return 0;
	return opts->size_fixed[pos];
}

long ein_options_fixed_value(const ein_options *opts, const char *name)
{
	int i;

	for (i = 0; opts && i < opts->n_size; ++i)
		if (opts->size_fixed[i] && !strcmp(opts->size_name[i], name))
			return opts->size_value[i];
	return 0;
}

void ein_sched_choice_clear(struct ein_sched_choice *choice)
{
	ein_sched_file_free(choice->file);
	free(choice->path);
	free(choice->why);
	memset(choice, 0, sizeof(*choice));
}

/* Look up a schedule of "func" for the host's target class. */
/* Look up the schedule file of "func" for "target" into choice. */
static int lookup_target(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, const char *target,
	struct ein_sched_choice *choice)
{
	return ein_sched_lookup(ctx, NULL, target, func->def->name,
		opts ? opts->n_size : 0,
		opts ? (const char *const *) opts->size_name : NULL,
		opts ? opts->size_value : NULL, &choice->path, &choice->why);
}

/* The name of the CPU target whose schedules apply: "cpu" if given (the
 * target of an object compiled ahead of time), else the host's. */
static char *cpu_target_name(ein_ctx *ctx, const char *cpu)
{
	char *name;

	if (!cpu)
		return ein_target_host_name(ctx);
	name = strdup(cpu);
	if (!name)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	return name;
}

static int lookup(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, const char *cpu,
	struct ein_sched_choice *choice)
{
	char *target = cpu_target_name(ctx, cpu);
	int r;

	if (!target)
		return -1;
	r = lookup_target(ctx, opts, func, target, choice);
	free(target);
	return r;
}

/* The schedule of "func" on an OpenCL device: a file of the device's
 * target class (opencl-nvidia, ..., opencl-pocl), else of opencl-generic,
 * found as the CPU's are; else the default GPU mapping (gpu_map.h), as
 * the CPU's files and automatic schedule map nothing to a device. */
static int lookup_gpu(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice)
{
	int p = -1, d = -1;
	const char *class;
	char *why;

	/* Without lookup, the device is not asked for its class: ein
	 * tune compiles its default trial so in a parent process that
	 * must not load OpenCL (runtime.h, ein_ocl_forbid_load). */
	if (opts && opts->no_lookup)
		return (choice->why = strdup("default GPU mapping "
			"(docs/opencl.md)")) ? 0 : -1;
	ein_options_get_opencl(opts, &p, &d);
	class = ein_ocl_device_class(p, d);
	if (lookup_target(ctx, opts, func, class, choice) < 0)
		return -1;
	if (!choice->path && strcmp(class, "opencl-generic")) {
		free(choice->why);
		choice->why = NULL;
		if (lookup_target(ctx, opts, func, "opencl-generic",
				choice) < 0)
			return -1;
	}
	if (choice->path)
		return 0;
	why = choice->why;
	if (asprintf(&choice->why, "default GPU mapping (docs/opencl.md)%s%s",
			why ? ": " : "", why ? why : "") < 0)
		choice->why = NULL;
	free(why);
	return choice->why ? 0 : -1;
}

/* Run the automatic scheduler for "func" under the compile's budget: it
 * checks candidates with isl, which the watchdog stops at the deadline
 * as it stops a compile.  Returns -1 after EIN_ERROR_BUDGET if the
 * budget ran out; the time it took is in choice->spent. */
static int auto_in_budget(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, const char *target,
	const int64_t *sizes, struct ein_sched_choice *choice, char **rules)
{
	struct ein_budget budget;
	int ok;

	if (ein_budget_start(ctx, &budget,
			ein_options_get_compile_timeout(opts)) < 0)
		return -1;
	choice->file = ein_sched_auto(ctx, func, target,
		ein_options_get_strict_fp(opts), !(opts && opts->no_cost_model),
		sizes, rules);
	ok = ein_budget_end(ctx, &budget, ein_budget_check(ctx, &budget));
	choice->spent = ein_budget_elapsed(&budget);
	if (ok < 0) {
		ein_sched_file_free(choice->file);
		choice->file = NULL;
	}
	return ok;
}

double ein_sched_choice_budget_left(const ein_options *opts,
	const struct ein_sched_choice *choice)
{
	double seconds = ein_options_get_compile_timeout(opts);

	if (seconds <= 0)
		return 0;
	/* Never 0, which would mean no limit. */
	return seconds - choice->spent > 1e-3 ? seconds - choice->spent :
		1e-3;
}

/* No file was found for "func": use the automatic schedule, and say so
 * after the rules it used and where lookup looked ("lookup_why", taken).
 * Where no rule applies the default schedule stays, without a reason. */
static int automatic(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, const char *cpu,
	struct ein_sched_choice *choice, char *lookup_why)
{
	char *target = cpu_target_name(ctx, cpu);
	char *rules = NULL;
	int64_t *sizes = calloc(func->n_size + 1, sizeof(*sizes));
	int i, k;

	if (!target || !sizes)
		return free(target), free(sizes), free(lookup_why), -1;
	for (i = 0; opts && i < func->n_size; ++i)
		for (k = 0; k < opts->n_size; ++k)
			if (!strcmp(opts->size_name[k], func->size[i]))
				sizes[i] = opts->size_value[k];
	if (auto_in_budget(ctx, opts, func, target, sizes, choice,
			&rules) < 0) {
		free(target);
		free(sizes);
		free(rules);
		free(lookup_why);
		return -1;
	}
	free(sizes);
	free(target);
	if (choice->file && rules && asprintf(&choice->why, "automatic "
			"(%s): %s", lookup_why ? lookup_why :
			"no schedule file", rules) < 0)
		choice->why = NULL;
	/* Too many statements for the rules (sched/auto.c, MAX_MANY_STMTS):
	 * the default schedule, and the reason why. */
	if (!choice->file && rules && strstr(rules, " statements, more than") &&
	    asprintf(&choice->why, "default (%s; the automatic schedule: %s)",
			lookup_why ? lookup_why : "no schedule file", rules) < 0)
		choice->why = NULL;
	free(rules);
	if (!choice->file && !choice->why)
		choice->why = lookup_why;
	else
		free(lookup_why);
	if (choice->file && !choice->why) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return -1;
	}
	choice->automatic = choice->file != NULL;
	return 0;
}

/* Choose the schedule of "func" for an OpenCL device if "gpu", else for
 * the CPU target "cpu" (NULL: the host); the automatic one only if
 * "may_auto". */
static int choose(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice, int gpu,
	const char *cpu, int may_auto)
{
	memset(choice, 0, sizeof(*choice));
	if (opts && opts->schedule) {
		choice->path = strdup(opts->schedule);
		choice->why = malloc(strlen(opts->schedule) + 32);
		if (!choice->path || !choice->why)
			return -1;
		sprintf(choice->why, "%s: given explicitly", opts->schedule);
	} else if (gpu) {
		if (lookup_gpu(ctx, opts, func, choice) < 0)
			return -1;
	} else if (!(opts && opts->no_lookup)) {
		if (lookup(ctx, opts, func, cpu, choice) < 0)
			return -1;
		if (!choice->path && may_auto && !(opts && opts->no_auto)) {
			char *why = choice->why;

			choice->why = NULL;
			return automatic(ctx, opts, func, cpu, choice, why);
		}
	}
	if (!choice->path)
		return 0;
	choice->file = ein_sched_file_read(ctx, choice->path);
	return choice->file ? 0 : -1;
}

/* The class of the CPU target "opts" name (NULL: the host). */
static const char *cpu_class(const ein_options *opts)
{
	return opts && opts->cpu ? ein_target_named_class(opts->cpu) : NULL;
}

const char *ein_options_get_cpu(const ein_options *opts)
{
	return opts ? opts->cpu : NULL;
}

int ein_options_choose_schedule(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice)
{
	return choose(ctx, opts, func, choice,
		ein_options_get_opencl(opts, NULL, NULL), cpu_class(opts), 1);
}

int ein_options_choose_cpu_schedule(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, const char *cpu,
	struct ein_sched_choice *choice)
{
	return choose(ctx, opts, func, choice, 0, cpu, 1);
}

int ein_options_find_schedule_file(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice)
{
	return choose(ctx, opts, func, choice,
		ein_options_get_opencl(opts, NULL, NULL), cpu_class(opts), 0);
}

int ein_options_choose_gpu_schedule(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice)
{
	return choose(ctx, opts, func, choice, 1, NULL, 1);
}

char *ein_opencl_devices(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int n;

	if (!out)
		return NULL;
	n = ein_ocl_list_devices(out);
	if ((fclose(out) != 0) | (n < 0)) {
		free(text);
		return NULL;
	}
	return text;
}
