/*
 * check_count.c: ein_count_points (poly/count.c) against isl's own
 * enumeration of the points, on boxes, triangles, simplices, unions,
 * strided and empty sets; and on sets far too large to enumerate, against
 * closed forms.
 */
#include <math.h>
#include <stdlib.h>
#include <check.h>
#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/point.h>
#include "poly/count.h"

/* Sets small enough to enumerate: the count must be exact and flagged
 * so, unless "estimated" (a stride with too many slices). */
static const char *const small_sets[] = {
	"{ [i, j] : 0 <= i < 7 and 0 <= j < 5 }",
	"{ [i, j, k] : 0 <= i < 30 and 0 <= j <= i and j <= k <= i }",
	"[N] -> { [k, i, j] : N = 40 and 0 <= k < N and k < i < N and "
		"k < j < N }",
	"{ [i, j] : 0 <= i < 50 and 0 <= j < 50 and i + j <= 60 }",
	"{ [i, j] : 0 <= i < 50 and 0 <= j < 50 and i + j <= 60 and "
		"j >= i - 20 }",
	"{ [i, j] : 0 <= i < 40 and 0 <= j < 40 and (j <= i - 5 or "
		"j >= i + 5) }",
	"{ [i, j] : 0 <= i < 100 and 0 <= j and 2 j <= i }",
	"{ [i, j] : 0 <= i < 100 and 0 <= j < 5 and i % 3 = 1 }",
	"{ [h, r] : 0 <= h < 60 and 0 <= r < 3 and 1 <= h + r <= 60 }",
	"{ [i, j, k, l] : 0 <= i < 12 and 0 <= j <= i and 0 <= k <= j "
		"and 0 <= l <= k }",
	"{ [i] : 5 <= i <= 4 }",
	"{ [] }",
	"{ [i, j] : 0 <= i < 1000 and i <= j <= i + 2 and j < 900 }",
};

static isl_stat add_point(__isl_take isl_point *pnt, void *user)
{
	++*(long *) user;
	isl_point_free(pnt);
	return isl_stat_ok;
}

START_TEST(count_small)
{
	isl_ctx *ctx = isl_ctx_alloc();
	isl_set *set = isl_set_read_from_str(ctx, small_sets[_i]);
	long n = 0;
	int exact = -1;
	double got;

	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(isl_set_foreach_point(set, &add_point, &n), 0);
	got = ein_count_points(set, &exact);
	ck_assert_msg(got == n && exact == 1, "%s: counted %.17g (exact %d), "
		"it has %ld points", small_sets[_i], got, exact, n);
	isl_set_free(set);
	isl_ctx_free(ctx);
}
END_TEST

/* Sets far too large to enumerate, with their number of points: counted
 * exactly (within a double's rounding), without visiting them. */
static const struct {
	const char *set;
	double n;
} large_sets[] = {
	/* The triangle of an LU factorisation at N = 10^6. */
	{ "[N] -> { [k, i] : N = 1000000 and 0 <= k < N and k < i < N }",
	  1e6 * (1e6 - 1) / 2 },
	/* k <= j <= i < 10^5: sum over i of (i + 1)(i + 2) / 2. */
	{ "{ [i, j, k] : 0 <= i < 100000 and 0 <= j <= i and j <= k <= i }",
	  1e5 * (1e5 + 1) * (1e5 + 2) / 6 },
	/* A literal extent of 2^62, as a triangle. */
	{ "{ [i, j] : 0 <= i < 4611686018427387904 and 0 <= j < 4 and "
		"j <= i }", 4.0 * 4611686018427387904.0 - 6 },
	{ "[M] -> { [i, j] : M = 4294967297 and 0 <= i < M and 0 <= j < 8 "
		"and i + j < M }", 8 * 4294967297.0 - 28 },
};

START_TEST(count_large)
{
	isl_ctx *ctx = isl_ctx_alloc();
	isl_set *set = isl_set_read_from_str(ctx, large_sets[_i].set);
	int exact = -1;
	double got;

	ck_assert_ptr_nonnull(set);
	got = ein_count_points(set, &exact);
	ck_assert_msg(fabs(got - large_sets[_i].n) <= 1e-12 * large_sets[_i].n
		&& exact == 1, "%s: counted %.17g (exact %d), expected %.17g",
		large_sets[_i].set, got, exact, large_sets[_i].n);
	isl_set_free(set);
	isl_ctx_free(ctx);
}
END_TEST

/* A stride over more slices than are examined: an estimate, flagged as
 * one, and close (floor(i / 2) + 1 points per slice, i < 10^6). */
START_TEST(count_estimated)
{
	isl_ctx *ctx = isl_ctx_alloc();
	isl_set *set = isl_set_read_from_str(ctx,
		"{ [i, j] : 0 <= i < 1000000 and 0 <= j and 2 j <= i }");
	double n = 250000.0 * 1000000.0 + 500000, got;
	int exact = -1;

	got = ein_count_points(set, &exact);
	ck_assert_int_eq(exact, 0);
	ck_assert_msg(fabs(got - n) <= 1e-3 * n, "counted %.17g, it has %.17g",
		got, n);
	isl_set_free(set);
	isl_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("count");
	TCase *tc = tcase_create("count");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, count_small, 0,
		sizeof(small_sets) / sizeof(small_sets[0]));
	tcase_add_loop_test(tc, count_large, 0,
		sizeof(large_sets) / sizeof(large_sets[0]));
	tcase_add_test(tc, count_estimated);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
