/*
 * cost.h: the cost model trained ahead of time (issue 23), compiled in.
 *
 * Gradient-boosted regression trees (XGBoost, trained offline by
 * autotune/train_cost.c on the tuning logs of autotune/corpus/) over the
 * features of sched/features.h, one ensemble per target whose logs were
 * measured: AVX-512 and AVX2 (the feature vector_bytes says which; SSE
 * and OpenCL get AVX-512's).  The trees are data: the readable
 * autotune/model/cost_model.json and cost_model.x86_64-avx2.json, and the
 * same numbers as C tables in src/sched/cost_model.inc and
 * cost_model_avx2.inc, all written by the trainer.  This file
 * evaluates them exactly as XGBoost does (features rounded to float, a
 * node's left child when the value is below its threshold, leaves summed
 * in float in tree order after the base score), so its predictions are
 * the trainer's: tests/unit/check_cost compares them on held-out rows.
 *
 * The prediction is log2(seconds per flop) of the schedule on the
 * machine the logs were measured on: lower is faster.  Only its order
 * among schedules of one definition at one size is meant to be used.
 * No state, no randomness: the same features give the same number.
 */
#ifndef EIN_SCHED_COST_H
#define EIN_SCHED_COST_H

#include "sched/features.h"

/* The version of the compiled-in models (cost_model.json's "version"). */
int ein_cost_model_version(void);
/* The number of trees of the smaller compiled-in model (0: none). */
int ein_cost_model_n_tree(void);

/* The predicted log2(seconds per flop) of a schedule with features
 * f[0 .. EIN_FEATURES_N - 1]. */
double ein_cost_predict(const double *f);

#endif
