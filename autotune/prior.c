/*
 * prior.c: the shipped cost model as the tuner's prior (prior.h).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "driver/program.h"
#include "sched/cost.h"
#include "sched/features.h"
#include "sched/file.h"
#include "autotune/prior.h"

/* The shipped model's prediction for "text" as log(GFLOP/s) (it
 * predicts log2 seconds per flop), NAN if it cannot be computed. */
static double prior(ein_program *prog, const char *def, ein_kernel *k0,
	const int64_t *sizes, const char *target, const char *text)
{
	ein_ctx *ctx = ein_program_get_ctx(prog);
	const struct ein_func *func = ein_program_get_func(prog, def);
	struct ein_diag_mark mark = ein_diag_get_mark(ctx);
	struct ein_sched_file *file = NULL;
	int64_t v[64];
	double f[EIN_FEATURES_N], r = NAN;
	char *full = NULL;
	int i, k;

	if (!func || func->n_size > 64)
		return NAN;
	for (i = 0; i < func->n_size; ++i)
		for (v[i] = 0, k = 0; k < func->n_size; ++k)
			if (!strcmp(ein_kernel_get_size_name(k0, k),
					func->size[i]))
				v[i] = sizes[k];
	if (asprintf(&full, "ein-schedule 1\ndef %s\n%s", def, text) >= 0)
		file = ein_sched_file_parse(ctx, ein_src_alloc("(prior)",
			full));
	free(full);
	if (file && ein_features_compute(ctx, func, file, v, target, 0,
			f) == 0)
		r = -ein_cost_predict(f) * log(2) - log(1e9);
	ein_sched_file_free(file);
	free(ein_diag_rollback(ctx, mark));
	return r;
}

double ein_prior_rank(ein_program *prog, const char *def, ein_kernel *k0,
	const int64_t *sizes, const char *target, int n_measured,
	double ridge, const char *text)
{
	double w = (double) n_measured / EIN_PRIOR_SAMPLES, p;

	if (w >= 1 || ein_cost_model_n_tree() == 0)
		return ridge;
	p = prior(prog, def, k0, sizes, target, text);
	if (isnan(p))
		return ridge;
	return w * ridge + (1 - w) * p;
}
