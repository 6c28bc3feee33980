/*
 * budget.c: the time a compile may take, enforced by a watchdog on isl.
 *
 * isl offers two ways to stop its work: an operation count
 * (isl_ctx_set_max_operations) and isl_ctx_abort.  A count does not give
 * seconds: ein's usual compiles do millions of operations a second, the
 * guard with six '%' terms about 50,000 (each pivot works on numbers of
 * hundreds of digits), so no rate turns --compile-timeout into a count
 * that neither fails ordinary kernels nor lets that one run for minutes.
 * So the budget is a deadline: a thread sleeps until it and then aborts
 * the isl context, and every pass checks the clock when it ends.  The
 * thread is started only for a limited budget and ended with the compile.
 */
#include <errno.h>
#include <isl/ctx.h>
#include "diag.h"
#include "ctx.h"
#include "driver/budget.h"

static struct timespec after(double seconds)
{
	struct timespec ts;
	long ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (seconds > 1e9)
		seconds = 1e9;
	ts.tv_sec += (time_t) seconds;
	ns = ts.tv_nsec + (long) ((seconds - (time_t) seconds) * 1e9);
	ts.tv_sec += ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	return ts;
}

static int passed(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
		(now.tv_sec == deadline->tv_sec &&
		 now.tv_nsec >= deadline->tv_nsec);
}

/* The watchdog: sleep until the deadline, unless the compile ends
 * first, and then abort isl's work. */
static void *watch(void *user)
{
	struct ein_budget *budget = user;
	int r = 0;

	pthread_mutex_lock(&budget->lock);
	while (!budget->done && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&budget->wake, &budget->lock,
			&budget->deadline);
	if (!budget->done)
		isl_ctx_abort(budget->isl);
	pthread_mutex_unlock(&budget->lock);
	return NULL;
}

/* Start the watchdog of a limited budget. */
static int start_watchdog(ein_ctx *ctx, struct ein_budget *budget)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&budget->wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&budget->lock, NULL);
	if (pthread_create(&budget->watchdog, NULL, &watch, budget) == 0) {
		budget->watching = 1;
		return 0;
	}
	pthread_cond_destroy(&budget->wake);
	pthread_mutex_destroy(&budget->lock);
	ein_internal(ctx, "cannot start the compile's watchdog thread");
	return -1;
}

int ein_budget_start(ein_ctx *ctx, struct ein_budget *budget,
	double seconds)
{
	budget->seconds = seconds > 0 ? seconds : 0;
	budget->start = after(0);
	budget->deadline = after(budget->seconds);
	budget->watching = 0;
	budget->done = 0;
	budget->isl = ein_ctx_get_isl(ctx);
	isl_ctx_reset_error(budget->isl);
	if (budget->seconds == 0)
		return 0;
	return start_watchdog(ctx, budget);
}

static void report(ein_ctx *ctx, const struct ein_budget *budget)
{
	ein_ctx_clear_error(ctx);
	ein_error(ctx, EIN_ERROR_BUDGET, "compilation exceeded its budget "
		"of %.3g s", budget->seconds);
	ein_hint(ctx, "simplify the kernel or its schedule, or raise the "
		"budget (--compile-timeout DURATION, 0 for no limit; "
		"ein_options_set_compile_timeout)");
}

double ein_budget_elapsed(const struct ein_budget *budget)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) (now.tv_sec - budget->start.tv_sec) +
		(now.tv_nsec - budget->start.tv_nsec) * 1e-9;
}

int ein_budget_check(ein_ctx *ctx, const struct ein_budget *budget)
{
	if (budget->seconds > 0 && passed(&budget->deadline)) {
		report(ctx, budget);
		return -1;
	}
	return 0;
}

/* Stop the watchdog (it may have fired already). */
static void stop_watchdog(struct ein_budget *budget)
{
	pthread_mutex_lock(&budget->lock);
	budget->done = 1;
	pthread_cond_signal(&budget->wake);
	pthread_mutex_unlock(&budget->lock);
	pthread_join(budget->watchdog, NULL);
	pthread_cond_destroy(&budget->wake);
	pthread_mutex_destroy(&budget->lock);
	budget->watching = 0;
}

int ein_budget_end(ein_ctx *ctx, struct ein_budget *budget, int ok)
{
	isl_ctx *ictx = budget->isl;

	if (budget->watching)
		stop_watchdog(budget);
	if (!isl_ctx_aborted(ictx))
		return ok;
	if (ok < 0)
		report(ctx, budget);
	isl_ctx_resume(ictx);
	isl_ctx_reset_error(ictx);
	return ok;
}
