/*
 * check_rank.c: the tuner's decisions on measured times (autotune/
 * rank.h), on made-up timings: which leader is chosen after the
 * re-measurement, and when a measurement stops early.  Nothing here is
 * timed.
 */
#include <stdlib.h>
#include <check.h>
#include "autotune/rank.h"

START_TEST(median_skips_failures)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };
	const double some_failed[] = { 5, -1, 1, 3 };
	const double most_failed[] = { -1, -1, 2, -1 };

	ck_assert(ein_rank_median(odd, 3) == 2);
	ck_assert(ein_rank_median(even, 4) == 2.5);
	ck_assert(ein_rank_median(some_failed, 4) == 3);
	ck_assert(ein_rank_median(most_failed, 4) < 0);
	ck_assert(ein_rank_median(odd, 0) < 0);
	/* the values are left in place */
	ck_assert(odd[0] == 3 && odd[1] == 1);
}
END_TEST

/* Leader 0 was first measured at 0.9 ms (a lucky child), leader 1 at
 * 1.0 ms.  Re-measured, 0 has one fast round again but a median of
 * 1.5 ms; 1 is steady at 1.0-1.1 ms: 1 wins.  Even with 0's first
 * measurement counted as a round it would lose, and by the fastest
 * single round it would win: the choice is the median's. */
START_TEST(outlier_loses_to_median)
{
	/* rounds x candidates: t[round * 3 + cand] */
	const double t[] = {
		0.0009, 0.0010, 0.0020,
		0.0015, 0.0011, 0.0021,
		0.0016, 0.0010, 0.0019,
		0.0015, 0.0011, 0.0020,
		0.0014, 0.0010, 0.0022,
	};

	ck_assert_int_eq(ein_rank_choose(t, 3, 5), 1);
	/* with only the first round, the outlier would have won */
	ck_assert_int_eq(ein_rank_choose(t, 3, 1), 0);
}
END_TEST

START_TEST(choose_ignores_failed_rounds)
{
	/* candidate 0 failed in most rounds: no median, never chosen;
	 * candidate 1 failed once: the median of the rest */
	const double t[] = {
		0.0005, 0.0020,
		-1, -1,
		-1, 0.0021,
	};
	const double none[] = { -1, -1, -1, -1 };

	ck_assert_int_eq(ein_rank_choose(t, 2, 3), 1);
	ck_assert_int_eq(ein_rank_choose(none, 2, 2), -1);
	ck_assert_int_eq(ein_rank_choose(t, 0, 3), -1);
}
END_TEST

START_TEST(tie_goes_to_first)
{
	const double t[] = { 0.002, 0.001, 0.001, 0.002, 0.001, 0.001 };

	ck_assert_int_eq(ein_rank_choose(t, 2, 3), 0);
}
END_TEST

START_TEST(too_slow)
{
	const double k = EIN_RANK_SLOW_FACTOR;

	/* the best so far takes 2 ms */
	ck_assert(ein_rank_too_slow(0.0061, 0.002, k));
	ck_assert(ein_rank_too_slow(15.4, 2.2, k));
	/* within the factor: measured to the end, even if slower */
	ck_assert(!ein_rank_too_slow(0.0059, 0.002, k));
	ck_assert(!ein_rank_too_slow(0.004, 0.002, k));
	ck_assert(!ein_rank_too_slow(0.001, 0.002, k));
	/* no best yet (the default schedule, the first trials) */
	ck_assert(!ein_rank_too_slow(100, 0, k));
	ck_assert(!ein_rank_too_slow(100, -1, k));
	/* --slow-factor 0: never */
	ck_assert(!ein_rank_too_slow(100, 0.002, 0));
	/* the factor documented in rank.h leaves room for 2x noise */
	ck_assert(k > 2);
}
END_TEST

/* The best so far was first measured at 1.0 ms.  A candidate measured
 * at 0.01 ms once (a fluke: the child ran while the machine was idle)
 * takes 1.2 ms again, the best 1.0 ms right before it: refused, and
 * ranked by its 1.2 ms from then on.  One that is steadily faster
 * (0.8 then 0.82 against 1.0) is confirmed.  When the machine got
 * busier between the two (the best now at 1.6 ms), a candidate at 1.3
 * ms now is still confirmed: the pair is taken under the same load. */
/* Issue 22: a best measured once at 1.22 ms does not replace an
 * automatic seed measured once at 1.30 ms (it runs 1.08 ms when both
 * are measured interleaved); a best clearly faster does. */
START_TEST(seed_kept_within_noise)
{
	ck_assert(ein_rank_keeps_seed(0.00122, 0.00130));
	ck_assert(ein_rank_keeps_seed(0.00130, 0.00122));
	ck_assert(!ein_rank_keeps_seed(0.00100, 0.00130));
	ck_assert(!ein_rank_keeps_seed(0.00122, -1));
	ck_assert(ein_rank_keeps_seed(-1, 0.00130));
}
END_TEST

START_TEST(confirm_new_best)
{
	ck_assert(!ein_rank_confirms(0.0012, 0.0010));
	ck_assert(ein_rank_confirmed_time(0.00001, 0.0012) == 0.0012);
	ck_assert(ein_rank_confirms(0.00082, 0.0010));
	ck_assert(ein_rank_confirmed_time(0.0008, 0.00082) == 0.00082);
	ck_assert(ein_rank_confirms(0.0013, 0.0016));
	/* a tie keeps the best */
	ck_assert(!ein_rank_confirms(0.0010, 0.0010));
	/* the candidate's second measurement failed: refused; the best's
	 * failed: the candidate's alone decides */
	ck_assert(!ein_rank_confirms(-1, 0.0010));
	ck_assert(ein_rank_confirms(0.0009, -1));
	ck_assert(ein_rank_confirmed_time(0.0009, -1) == 0.0009);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rank");
	TCase *tc = tcase_create("rank");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, median_skips_failures);
	tcase_add_test(tc, outlier_loses_to_median);
	tcase_add_test(tc, choose_ignores_failed_rounds);
	tcase_add_test(tc, tie_goes_to_first);
	tcase_add_test(tc, too_slow);
	tcase_add_test(tc, confirm_new_best);
	tcase_add_test(tc, seed_kept_within_noise);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
