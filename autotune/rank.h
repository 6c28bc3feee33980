/*
 * rank.h: the tuner's decisions on measured times, kept free of
 * measuring so that they can be tested with made-up timings.
 *
 * A measurement on a shared machine is noisy: one child may run while
 * the machine happens to be idle, and the fastest of hundreds of such
 * measurements is as likely to be the luckiest as the best.  So the
 * leaders of a search are measured again, interleaved, before one is
 * chosen, and the choice is by the median of those rounds
 * (ein_rank_choose).
 */
#ifndef EIN_AUTOTUNE_RANK_H
#define EIN_AUTOTUNE_RANK_H

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

#endif
