/*
 * prior.h: the cost model shipped in ein (src/sched/cost.h) as the
 * tuner's prior (issue 23).
 *
 * The tuner ranks the children it breeds by its online ridge model
 * (model.h), which knows nothing until it has measured a few
 * candidates.  Until then the shipped model, trained ahead of time on
 * the corpus logs, ranks them instead; its weight fades linearly as
 * measurements accumulate and is gone after EIN_PRIOR_SAMPLES, so that
 * the run's own measurements decide from then on.  Computing a child's
 * features costs a few tens of milliseconds (they apply the schedule to
 * the polyhedral model), which is why the prior is not asked later.
 */
#ifndef EIN_AUTOTUNE_PRIOR_H
#define EIN_AUTOTUNE_PRIOR_H

#include <stdint.h>
#include "ein.h"

#define EIN_PRIOR_SAMPLES 16

/* The rank of the candidate with directives "text" (no header) of "def"
 * in "prog" at "sizes" (in the order of k0's sizes) on "target": the
 * online model's prediction "ridge" (log GFLOP/s) after "n_measured"
 * measurements, blended with the shipped model's prediction in the
 * same units while n_measured < EIN_PRIOR_SAMPLES.  "ridge" alone when
 * the shipped model cannot score the candidate. */
double ein_prior_rank(ein_program *prog, const char *def, ein_kernel *k0,
	const int64_t *sizes, const char *target, int n_measured,
	double ridge, const char *text);

#endif
