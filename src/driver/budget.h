/*
 * budget.h: the time a compile may take (ein_options_set_compile_timeout).
 *
 * A compile gets a budget of seconds.  isl's work, where the pathological
 * cases are (AST generation over a guard with many '%' terms), is stopped
 * where it is once the budget has run out: a watchdog thread calls
 * isl_ctx_abort, which isl checks at each of its operations (each
 * allocation and each pivot of a tableau), and the compile fails with
 * EIN_ERROR_BUDGET instead of the message of whichever pass noticed.  The
 * other passes (ours, LLVM's) cannot be interrupted: the clock is checked
 * between passes, and the schedule's unroll and vector factors are capped
 * so that LLVM's input stays small (sched/apply.c).
 */
#ifndef EIN_DRIVER_BUDGET_H
#define EIN_DRIVER_BUDGET_H

#include <pthread.h>
#include <time.h>
#include <isl/ctx.h>
#include "ein.h"

/* The default of ein_options_set_compile_timeout, in seconds: a bound on
 * the pathological, far above the legitimate (the slowest shipped
 * schedule, schedules/x86_64-avx512/matmul.large.sched, compiles in 54 s
 * on a 2-core machine loaded ten deep). */
#define EIN_DEFAULT_COMPILE_TIMEOUT 300.0

/* One compile's budget.
 * seconds: the limit (0: none); start, deadline: when it started and
 *	when it runs out, on the monotonic clock;
 * watching: whether "watchdog" runs (it waits on "wake", under "lock",
 *	until the deadline or until "done", and aborts isl's work at the
 *	deadline);
 * isl: the isl context the compile works in. */
struct ein_budget {
	double seconds;
	struct timespec start;
	struct timespec deadline;
	int watching;
	pthread_t watchdog;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int done;
	isl_ctx *isl;
};

/* Start a budget of "seconds" (0: unlimited) for a compile under "ctx".
 * Returns -1 after an error if the watchdog cannot be started. */
int ein_budget_start(ein_ctx *ctx, struct ein_budget *budget,
	double seconds);
/* The seconds since "budget" started. */
double ein_budget_elapsed(const struct ein_budget *budget);
/* Has the budget run out?  Returns -1 after reporting EIN_ERROR_BUDGET
 * if so. */
int ein_budget_check(ein_ctx *ctx, const struct ein_budget *budget);
/* End the budget of a compile whose result was "ok" (0 or -1) and return
 * "ok".  A compile that isl's abort made fail has its messages replaced
 * by the EIN_ERROR_BUDGET error; a compile that ran out of budget after
 * its last check still succeeds. */
int ein_budget_end(ein_ctx *ctx, struct ein_budget *budget, int ok);

#endif
