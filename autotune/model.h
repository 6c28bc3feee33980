/*
 * model.h: the tuner's cost model: features of a candidate's loop nest,
 * and a ridge regression trained online on this run's measurements.
 *
 * Features (ein_model_features) describe the statement with the most
 * iterations, loop level by loop level from the innermost: the bytes its
 * accesses touch within the innermost 1, 2, 3 and 4 loops (footprints,
 * compared with the caches), the reuse at those levels (iterations per
 * element touched: arithmetic intensity), the vector width and whether
 * the innermost loop is contiguous for the accesses, the unroll factor,
 * the parallel loop's trip count and depth.  The model predicts
 * log(GFLOP/s) as a linear function of them, by ridge regression solved
 * exactly (Cholesky) after every measurement.
 */
#ifndef EIN_AUTOTUNE_MODEL_H
#define EIN_AUTOTUNE_MODEL_H

#include "autotune/space.h"

#define EIN_MODEL_N_FEATURE 26
#define EIN_MODEL_MAX_SAMPLE 4096

/* The features of candidate "c" into f[0 .. EIN_MODEL_N_FEATURE-1]
 * (f[0] is a constant 1, the intercept). */
void ein_model_features(const struct ein_space *space,
	const struct ein_cand *c, double *f);

/* The samples (features and targets) and the fitted weights.
 * lambda: the ridge penalty. */
struct ein_model {
	int n;
	double x[EIN_MODEL_MAX_SAMPLE][EIN_MODEL_N_FEATURE];
	double y[EIN_MODEL_MAX_SAMPLE];
	double w[EIN_MODEL_N_FEATURE];
	double lambda;
	int fitted;
};

void ein_model_init(struct ein_model *m);
/* Add a measurement: candidate features "f" ran at "gflops" (> 0). */
void ein_model_add(struct ein_model *m, const double *f, double gflops);
/* Refit the weights on all samples.  Returns -1 if singular. */
int ein_model_fit(struct ein_model *m);
/* The predicted log(GFLOP/s) of features "f" (0 until fitted). */
double ein_model_predict(const struct ein_model *m, const double *f);

#endif
