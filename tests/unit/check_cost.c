/*
 * check_cost.c: the compiled-in cost models (sched/cost.h) against the
 * trainer.  autotune/train_cost wrote tests/unit/cost_heldout.tsv (the
 * AVX-512 model) and cost_heldout_avx2.tsv (AVX2's): rows of features
 * held out of training and XGBoost's own prediction for each; ein's
 * evaluator, choosing the model by the row's vector_bytes, must give the
 * same float on every row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "sched/cost.h"

/* The held-out rows of each model, in the source tree. */
static const char *const rows[] = {
	"tests/unit/cost_heldout.tsv", "tests/unit/cost_heldout_avx2.tsv"
};

/* The file of held-out rows rows[i]. */
static FILE *open_rows(int i)
{
	const char *dir = getenv("EIN_SRCDIR");
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", rows[i]);
	return fopen(path, "r");
}

START_TEST(cost_reproduces_trainer)
{
	FILE *f = open_rows(_i);
	char line[8192];
	int n = 0;

	ck_assert_msg(f != NULL, "%s: cannot open", rows[_i]);
	ck_assert_int_gt(ein_cost_model_n_tree(), 0);
	while (fgets(line, sizeof(line), f)) {
		double x[EIN_FEATURES_N];
		char *p = line, *end;
		float want, got;
		int i;

		if (line[0] == '#')
			continue;
		for (i = 0; i < EIN_FEATURES_N; ++i, p = end) {
			x[i] = strtod(p, &end);
			ck_assert_msg(end != p, "row %d: feature %d missing",
				n + 1, i);
		}
		want = strtof(p, &end);
		ck_assert_msg(end != p, "row %d: prediction missing", n + 1);
		got = (float) ein_cost_predict(x);
		ck_assert_msg(got == want, "row %d: ein %.9g, XGBoost %.9g",
			n + 1, got, want);
		++n;
	}
	fclose(f);
	ck_assert_int_gt(n, 10);
}
END_TEST

/* The prediction depends on the features: two rows that differ get
 * different numbers somewhere among the held-out rows (a model of
 * constants, or an evaluator that reads no feature, would not). */
START_TEST(cost_depends_on_features)
{
	FILE *f = open_rows(_i);
	char line[8192];
	double first = NAN;
	int differs = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		double x[EIN_FEATURES_N], y;
		char *p = line;
		int i;

		if (line[0] == '#')
			continue;
		for (i = 0; i < EIN_FEATURES_N; ++i)
			x[i] = strtod(p, &p);
		y = ein_cost_predict(x);
		if (isnan(first))
			first = y;
		differs |= y != first;
	}
	fclose(f);
	ck_assert(differs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tcase_create("cost");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, cost_reproduces_trainer, 0, 2);
	tcase_add_loop_test(tc, cost_depends_on_features, 0, 2);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
