/*
 * tune.h: "ein tune": the autotuner's driver.
 *
 * A run builds the search space of one definition at given sizes
 * (space.h), measures the default schedule and analytic seeds, then
 * searches (evolutionary search guided by the cost model of model.h, or
 * plain random search), compiling each candidate in the tuner, measuring
 * it in a child (measure.h), logging every trial (tunelog.h), and checking
 * every new best against the reference interpreter.  At the end it writes
 * the best verified schedule atomically.
 */
#ifndef EIN_AUTOTUNE_TUNE_H
#define EIN_AUTOTUNE_TUNE_H

#include <stdint.h>

enum ein_tune_strategy {
	EIN_TUNE_EVOLVE = 0,	/* model-guided evolutionary search */
	EIN_TUNE_RANDOM = 1	/* random points (the benchmark's baseline) */
};

enum ein_tune_output {
	EIN_TUNE_NORMAL = 0,	/* progress line and summary table */
	EIN_TUNE_QUIET = 1,	/* errors only */
	EIN_TUNE_JSON = 2	/* JSON lines on stdout */
};

/* The outcome of a run, for a caller that tunes several kernels.
 * best_seconds, default_seconds: the median time of a call of the best
 *	verified schedule and of the default schedule (-1: none);
 * wrote: whether the schedule file was written;
 * path: the schedule file's path. */
struct ein_tune_result {
	double best_seconds;
	double default_seconds;
	int wrote;
	char path[1024];
};

/* The options of a run.
 * file, def: the .ein file and definition (NULL: the first);
 * sizes: "M=512,N=512,..."; target: the target name written in the
 *	schedule (NULL: the host's);
 * output: the schedule file (NULL: <dir>/<target>/<def>.<sizes>.sched,
 *	dir the first of $EIN_SCHEDULE_PATH or "schedules");
 * log: the tuning log (NULL: the output with ".log" for ".sched");
 * trials: measured candidates to reach (0: no limit), including those
 *	of a resumed log; time: seconds for this invocation (0: no limit);
 * seed: of the random generator; resume: continue the log;
 * strategy, output_mode: see the enums;
 * timeout, min_time, mem_limit: for each measurement (measure.h);
 * compile_timeout: the budget of each compile in seconds (0: none; both
 *	cut to what "time" leaves);
 * command: the command line, recorded in the schedule's tuned-by;
 * symbolic: compile candidates with symbolic sizes (the sizes only as
 *	hints, as a kernel that lookup serves at any size), instead of with
 *	the sizes fixed as "ein compile --sizes" and "ein run --fix-sizes"
 *	deploy them (0, the default: what is measured is what will run);
 * verbose: print how each candidate was compiled and measured;
 * slow_factor: stop a measurement whose first timed call takes over this
 *	many times the best's median (0: never; rank.h);
 * rank_limit: the longest one call at the tuning sizes may take for
 *	candidates to be measured there; above it they are ranked on a
 *	smaller problem of the same shape (reduce.h) and the leaders
 *	measured at the tuning sizes (negative: the time budget over
 *	160, a warm-up and 3 calls for each of 40 trials; 0: never);
 * rank_sizes: "M=16,..." to rank candidates at, each at most its
 *	tuning size, whatever a call takes (NULL: by rank_limit);
 * list_space: print the space, the analog seed and the seeds'
 *	directives, measure nothing;
 * lookup_sizes: "N=2,..." written as the schedule's sizes header in place
 *	of the definition's own sizes (NULL: those): a fused kernel of a
 *	model has every size fixed in its shapes, and lookup finds its
 *	schedule by the model's sizes (docs/onnx.md); without any sizes the
 *	header is left out;
 * result: where the outcome is given (NULL: nowhere). */
struct ein_tune_opts {
	const char *file, *def, *sizes, *target, *output, *log;
	int trials;
	double time;
	uint64_t seed;
	int resume;
	enum ein_tune_strategy strategy;
	enum ein_tune_output output_mode;
	double timeout, min_time;
	long mem_limit;
	double compile_timeout;
	const char *command;
	int symbolic;
	int verbose;
	double slow_factor;
	double rank_limit;
	const char *rank_sizes;
	int list_space;
	const char *lookup_sizes;
	struct ein_tune_result *result;
};

/* Run the tuner.  Returns the exit status: 0, 1 on an error that stopped
 * it, 3 if a candidate gave a wrong answer (the run finishes, and that
 * candidate is never written).  Fills o->result, if any, in every case. */
int ein_tune_run(const struct ein_tune_opts *o);

/* Write an SVG plot of the best GFLOP/s so far over time in the log at
 * "log_path" to "svg_path".  Returns 0 or 1 after a message. */
int ein_tune_plot(const char *log_path, const char *svg_path);

#endif
