/*
 * options.h: the internal side of ein_options, and the choice of a
 * definition's schedule file.
 */
#ifndef EIN_DRIVER_OPTIONS_H
#define EIN_DRIVER_OPTIONS_H

#include "ein.h"
#include "frontend/sema.h"
#include "sched/file.h"

/* The schedule chosen for one compile.
 * file: the parsed schedule (NULL: the default schedule);
 * path: where it was read from (NULL for the automatic schedule);
 * why: how it was chosen (NULL for the default schedule);
 * automatic: file is the automatic schedule (sched/auto.h);
 * spent: the seconds the automatic scheduler took, part of the compile's
 *	budget (ein_options_set_compile_timeout). */
struct ein_sched_choice {
	struct ein_sched_file *file;
	char *path;
	char *why;
	int automatic;
	double spent;
};

/* Choose and read the schedule of "func" as "opts" (NULL: the defaults)
 * say.  Returns -1 after reporting an error (an unreadable or malformed
 * file). */
int ein_options_choose_schedule(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice);
/* The same for the CPU target named "cpu" (x86_64-avx2, aarch64, ...:
 * an object compiled ahead of time for a target other than the host):
 * lookup looks in its directories and the automatic scheduler plans for
 * its vectors, whatever the host is. */
int ein_options_choose_cpu_schedule(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, const char *cpu,
	struct ein_sched_choice *choice);
/* The schedule file "func" would get (given explicitly or found by
 * lookup), without running the automatic scheduler: choice->path is NULL
 * where ein_options_choose_schedule would give the automatic or the
 * default schedule.  Cheap next to the automatic scheduler. */
int ein_options_find_schedule_file(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice);
/* The same for an OpenCL device whatever the target of "opts" (for
 * objects compiled ahead of time for OpenCL): an explicit file, else
 * one found under the device's target class, else the default GPU
 * mapping. */
int ein_options_choose_gpu_schedule(ein_ctx *ctx, const ein_options *opts,
	const struct ein_func *func, struct ein_sched_choice *choice);
void ein_sched_choice_clear(struct ein_sched_choice *choice);
/* The budget left to the compile after "choice" was made: the compile
 * timeout of "opts" less what the automatic scheduler spent (0: none). */
double ein_sched_choice_budget_left(const ein_options *opts,
	const struct ein_sched_choice *choice);

int ein_options_get_strict_fp(const ein_options *opts);
/* The named CPU target "opts" compile for in this process (x86_64-avx2,
 * ...: ein_options_set_target), NULL for the host. */
const char *ein_options_get_cpu(const ein_options *opts);
/* Does "opts" compile for an OpenCL device?  If so, *platform and
 * *device (either may be NULL) are the indices asked for, -1 if none. */
int ein_options_get_opencl(const ein_options *opts, int *platform,
	int *device);
/* Build the OpenCL program of kernels compiled with "opts" at their first
 * call, in the process that calls, instead of at compile time (the tuner
 * compiles in its process and runs in forked children: an OpenCL runtime
 * does not survive fork).  With a device given explicitly (opencl:P:D),
 * such a compile does not load OpenCL at all. */
void ein_options_set_opencl_lazy(ein_options *opts, int enable);
/* The flags of ein_ocl_code_build (opencl/runtime.h) that "opts" ask
 * for: EIN_OCL_LAZY, EIN_OCL_PROFILE. */
unsigned ein_options_get_opencl_flags(const ein_options *opts);
/* The budget of a compile in seconds (0: none; the default for NULL
 * options). */
double ein_options_get_compile_timeout(const ein_options *opts);
/* The sizes set by ein_options_set_size, in the order they were first
 * set (0 for NULL options). */
int ein_options_n_size(const ein_options *opts);
const char *ein_options_get_size_name(const ein_options *opts, int pos);
long ein_options_get_size_value(const ein_options *opts, int pos);
/* Was size "pos" set by ein_options_fix_size? */
int ein_options_size_is_fixed(const ein_options *opts, int pos);
/* The value ein_options_fix_size gave size "name", 0 if it is not fixed. */
long ein_options_fixed_value(const ein_options *opts, const char *name);
/* The profile ein_options_set_quantize gave "opts" (NULL: none, also for
 * NULL options), its calibration in *calibration. */
const char *ein_options_get_quantize(const ein_options *opts,
	ein_calibration *calibration);
/* The bits of quantised activations (ein_options_set_activation_bits:
 * 7 or 8; 8 for NULL options). */
int ein_options_get_activation_bits(const ein_options *opts);
/* Tell the progress function of "opts", if any (ein_options_set_progress),
 * that "done" of "total" steps are behind and "what" is next. */
void ein_options_progress(const ein_options *opts, int done, int total,
	const char *what);

#endif
