/*
 * measure.h: safe measurement of compiled candidates.
 *
 * Each measurement and each check against the reference interpreter runs
 * in a child process (fork) with an address-space limit (RLIMIT_AS, on
 * top of what the tuner already maps), a time limit (the parent kills the
 * child when it passes; the child also has an alarm and dies with the
 * parent), so that a candidate that crashes, hangs or exhausts memory
 * costs one trial and never the tuning run.
 *
 * Testing hook: EIN_TUNE_INJECT=KIND:TRIAL[,KIND:TRIAL...] makes the
 * child of trial TRIAL misbehave: "crash" aborts, "hang" sleeps forever,
 * "oom" maps memory until refused, "wrong" corrupts the output checked
 * against the reference.  Two kinds fake a noisy measurement of a slow
 * candidate (its children report a hundredth of its time where it is
 * lucky, a hundred times it elsewhere): "fluke" is lucky in its first
 * measurement only (the confirmation of a new best catches it),
 * "lucky" in every measurement of the search (only the leaders'
 * re-measurement at the end catches it).  "budget:N" is no fault: the
 * re-measurement at the end may take N measurements (children) instead
 * of its share of the search's time, so that a test can make the
 * leaders' rounds not fit, deterministically.  Meant for the tuner's
 * tests only.
 */
#ifndef EIN_AUTOTUNE_MEASURE_H
#define EIN_AUTOTUNE_MEASURE_H

#include <stdint.h>
#include "ein.h"

/* The outcome of a trial.  The numbers are stable (they name the
 * statuses in tuning logs through ein_trial_status_name). */
enum ein_trial_status {
	EIN_TRIAL_OK = 0,
	EIN_TRIAL_ILLEGAL = 1,		/* rejected by the legality check */
	EIN_TRIAL_COMPILE_ERROR = 2,	/* any other compile failure */
	EIN_TRIAL_CRASH = 3,		/* killed by a signal */
	EIN_TRIAL_TIMEOUT = 4,		/* ran past the time limit */
	EIN_TRIAL_WRONG = 5,		/* differs from the reference */
	EIN_TRIAL_OOM = 6,		/* ran out of memory */
	EIN_TRIAL_SLOW = 7		/* stopped early, clearly slower than
					 * the best (rank.h) */
};
#define EIN_TRIAL_N_STATUS 8

/* "ok", "illegal", "compile-error", "crash", "timeout", "wrong-answer",
 * "out-of-memory", "slow". */
const char *ein_trial_status_name(enum ein_trial_status status);
/* The status named "name", -1 if none. */
int ein_trial_status_from_name(const char *name);

/* A fault injected into a child (EIN_TUNE_INJECT).  FLUKE and LUCKY
 * are what is asked for a trial; the children apply them as FAST
 * (report a hundredth of the time) or SLOWED (a hundred times it),
 * ein_fault_at.  ERROR: the timing child's calls fail with the
 * library's error (they pass one tensor too few). */
enum ein_fault {
	EIN_FAULT_NONE = 0,
	EIN_FAULT_CRASH,
	EIN_FAULT_HANG,
	EIN_FAULT_OOM,
	EIN_FAULT_WRONG,
	EIN_FAULT_FLUKE,
	EIN_FAULT_LUCKY,
	EIN_FAULT_ERROR,
	EIN_FAULT_FAST,
	EIN_FAULT_SLOWED
};

/* The fault EIN_TUNE_INJECT asks for at trial "trial" (1-based). */
enum ein_fault ein_fault_for_trial(int trial);

/* The measurements the re-measurement at the end may take as
 * EIN_TUNE_INJECT's "budget:N" asks, -1 if it does not. */
int ein_inject_remeasure_budget(void);

/* Which measurement of a trial: its first, the confirmation of a new
 * best, the re-measurement of the leaders at the end. */
enum ein_measure_phase {
	EIN_MEASURE_FIRST,
	EIN_MEASURE_CONFIRM,
	EIN_MEASURE_FINAL
};

/* The fault a child of "phase" applies for the fault "asked" of its
 * trial: crash, hang, oom and wrong in the first measurement only;
 * fluke FAST in the first and SLOWED after; lucky FAST in the search
 * (first and confirmation) and SLOWED at the end. */
enum ein_fault ein_fault_at(enum ein_fault asked,
	enum ein_measure_phase phase);

/* How to measure.
 * timeout: seconds a child may run; min_time: the least total time of
 * the timed calls; mem_limit: bytes a child may map beyond the tuner's
 * own mappings; best: the best median so far in seconds, 0 if none, and
 * slow_factor (0: none): a measurement stops early against them,
 * ein_rank_too_slow; ctx: the context of the kernels measured (NULL:
 * none), whose last error a child that fails sends back
 * (ein_measure_last_message). */
struct ein_measure_opts {
	double timeout;
	double min_time;
	long mem_limit;
	double best, slow_factor;
	const ein_ctx *ctx;
};

/* Why the last measurement that failed in its child failed: the
 * library's message for a call that returned an error (the child's
 * last error in ein_measure_opts.ctx, "error: " and the newline
 * removed), "" when it gave none (a signal, a limit).  Valid until the
 * next measurement; the tuner measures one candidate at a time. */
const char *ein_measure_last_message(void);

/* Time "k" at "sizes" in a child: one warm-up call, then calls until
 * min_time has passed (at least 3, at most 2000); *seconds is the
 * median.  Inputs are random, made in the child.  If the first timed
 * call is too slow against o->best (ein_rank_too_slow with
 * o->slow_factor), it stops there: EIN_TRIAL_SLOW, *seconds that call's
 * time. */
enum ein_trial_status ein_measure_time(ein_kernel *k, const int64_t *sizes,
	const struct ein_measure_opts *o, enum ein_fault fault,
	double *seconds);

/* Check "k" at "sizes" against the reference interpreter on random
 * inputs, in a child.  A float result may differ by the rounding of a
 * reordered reduction of length "red" (at most 4 red^2 epsilon of the
 * largest reference magnitude plus 1); integers must be equal.  On a
 * difference, "msg" says where. */
enum ein_trial_status ein_measure_check(ein_kernel *k, const int64_t *sizes,
	long red, const struct ein_measure_opts *o, enum ein_fault fault,
	char *msg, int len);

struct ein_ocl_device_info;

/* The information of the OpenCL device that target "target" ("opencl" or
 * "opencl:P:D") names, into *info, asked in a child: OpenCL is then never
 * loaded in the tuner's process, whose children could not run kernels
 * after it (an OpenCL runtime does not survive fork: PoCL's worker
 * threads stay in the parent).  Returns -1 with the reason in "msg" (one
 * line). */
int ein_measure_device(const char *target, struct ein_ocl_device_info *info,
	char *msg, int len);

#endif
