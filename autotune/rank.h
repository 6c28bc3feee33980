/*
 * rank.h: the tuner's decisions on measured times, kept free of
 * measuring so that they can be tested with made-up timings.
 *
 * A measurement on a shared machine is noisy: one child may run while
 * the machine happens to be idle, and the fastest of hundreds of such
 * measurements is as likely to be the luckiest as the best.  So the
 * leaders of a search are measured again, interleaved, before one is
 * chosen, and the choice is by the median of those rounds
 * (ein_rank_choose).  And a candidate that is clearly slower than the
 * best so far is not measured to the end (ein_rank_too_slow).
 */
#ifndef EIN_AUTOTUNE_RANK_H
#define EIN_AUTOTUNE_RANK_H

/* By default (ein tune --slow-factor), a measurement stops after its
 * first timed call when that call took more than this many times the
 * best median so far: a candidate that
 * slow will not be the best, and on a large problem each further call
 * costs seconds.  Three leaves room for one call's noise on a loaded
 * machine (single calls of one kernel were seen to vary by up to 2x
 * there). */
#define EIN_RANK_SLOW_FACTOR 3.0

/* The median of the "n" values of "v" that are not negative (a negative
 * value is a failed measurement), -1 if fewer than half are; "v" is not
 * changed. */
double ein_rank_median(const double *v, int n);

/* Choose among "n_cand" candidates measured in "n_round" interleaved
 * rounds: t[round * n_cand + cand] is a time in seconds, negative if
 * that measurement failed.  Returns the candidate with the least median
 * time over the rounds (the first on a tie), -1 if none has a median
 * (see ein_rank_median).  A candidate's earlier, single measurement
 * takes no part: it is the one that made it a leader, and among many
 * measured once, the fastest is the one most likely to have been
 * lucky. */
int ein_rank_choose(const double *t, int n_cand, int n_round);

/* Whether a candidate whose first measurement beat the best is
 * confirmed as the new best: measured again right after the best was
 * measured again ("again" and "best_again" seconds, taken under the
 * same load), it must be faster there too.  One lucky measurement (the
 * child ran while the machine happened to be idle) does not repeat, and
 * a best that was itself lucky is judged by its time now. */
int ein_rank_confirms(double again, double best_again);

/* The time a confirmed or refused candidate is ranked by: the slower of
 * its "first" and "again" measurements (a negative one: the other), so
 * that a fluke cannot lead the search's population. */
double ein_rank_confirmed_time(double first, double again);

/* Whether a measurement whose first timed call took "first" seconds
 * should stop there: "first" more than "factor" times "best", the best
 * median so far (no best, best <= 0, or factor <= 0: never). */
int ein_rank_too_slow(double first, double best, double factor);

/* Where not even the best and the automatic seed can be measured again
 * within the budget, the best (by "best" seconds, its confirmed time)
 * must beat the seed's single measurement ("seed" seconds) by more than
 * this factor to be written instead of it: one child's median on a
 * loaded machine was seen 13% off the same schedule's interleaved
 * median (softmax_cols 1024^2: 1.22 against 1.08 ms), and the seed is
 * what the definition gets without a file anyway. */
#define EIN_RANK_NOISE_MARGIN 1.25

/* Whether the seed measured once in "seed" seconds is kept over a best
 * measured in "best" seconds: the best is not faster by more than
 * EIN_RANK_NOISE_MARGIN (a failed measurement, negative: the other
 * wins). */
int ein_rank_keeps_seed(double best, double seed);

#endif
