/*
 * check_mathfn.c: the accuracy of the inline float32 exp and erf
 * (src/codegen/mathfn.c) against the C library, over their whole useful
 * range and at the special values, in compiled kernels: scalar (a prime
 * number of elements leaves a scalar remainder) and vectorised loops.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include "ein.h"
#include "testutil.h"

static const char src[] =
	"def fexp(float32(N) X) -> (Y) {\n"
	"    Y(i) = exp(X(i))\n"
	"}\n"
	"def ferf(float32(N) X) -> (Y) {\n"
	"    Y(i) = erf(X(i))\n"
	"}\n"
	"def fsigmoid(float32(N) X) -> (Y) {\n"
	"    Y(i) = sigmoid(X(i))\n"
	"}\n";

/* The distance in units in the last place between two finite floats of
 * the same sign or zero (the difference of their ordered bit patterns);
 * 0 for two NaNs or equal infinities, a large number otherwise. */
static int64_t ulps(float a, float b)
{
	int32_t ia, ib;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INT32_MAX;
	if (a == b)
		return 0;
	if (isinf(a) || isinf(b))
		return INT32_MAX;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	if (ia < 0)
		ia = INT32_MIN - ia;
	if (ib < 0)
		ib = INT32_MIN - ib;
	return llabs((int64_t) ia - ib);
}

/* N arguments from lo to hi, evenly spaced, then the special values. */
static const float special[] = { 0.0f, -0.0f, 1.0f, -1.0f, INFINITY,
	-INFINITY, NAN, 88.72f, 88.73f, 89.0f, 1e30f, -87.3f, -87.4f, -100.0f,
	-103.9f, -104.0f, -105.0f, -1e30f, 1e-30f, -1e-30f, 1.4e-45f, 3.925f,
	-3.925f, 3.93f, 5.0f, -5.0f };
#define N_SPECIAL (sizeof(special) / sizeof(special[0]))

static void fill(struct tt *x, float lo, float hi)
{
	int64_t n = x->n - N_SPECIAL, i;

	for (i = 0; i < n; ++i)
		x->f[i] = lo + (hi - lo) * (float) i / (float) (n - 1);
	memcpy(x->f + n, special, sizeof(special));
}

/* The source's formula with the C library's expf: 1 / (1 + e^-x) is 0
 * in float32 where e^-x overflows (x < -88.7), not sigmoid(x) ~ e^x. */
static double ref_sigmoid(double x)
{
	return 1.0f / (1.0f + expf((float) -x));
}

/* Compile "def" with "schedule" (NULL: the default) and strict floating
 * point or not, run it on "n" arguments in [lo, hi] and the special
 * values, and return the largest distance in ulps from "ref" rounded to
 * float; the argument it was found at in *at. */
static int64_t max_ulps(const char *def, const char *schedule, int strict,
	int64_t n, float lo, float hi, double (*ref)(double), float *at)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, src, NULL);
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;
	struct tt x, y;
	DLTensor *args[2];
	int64_t i, worst = -1;
	char path[] = "/tmp/ein_mathfn_XXXXXX";

	ck_assert_ptr_nonnull(prog);
	ein_options_set_strict_fp(opts, strict);
	ein_options_set_schedule_lookup(opts, 0);
	if (schedule) {
		int fd = mkstemp(path);
		FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

		ck_assert_ptr_nonnull(f);
		fprintf(f, "ein-schedule 1\n%s", schedule);
		fclose(f);
		ein_options_set_schedule(opts, path);
	}
	k = ein_kernel_compile_with(prog, def, opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	tt_alloc(&x, 1, (int64_t[]) { n + (int64_t) N_SPECIAL });
	tt_alloc(&y, 1, (int64_t[]) { n + (int64_t) N_SPECIAL });
	fill(&x, lo, hi);
	args[0] = &x.dl;
	args[1] = &y.dl;
	ck_assert_int_eq(ein_kernel_call(k, args, 2, &x.n, 1), EIN_OK);
	for (i = 0; i < x.n; ++i) {
		int64_t d = ulps(y.f[i], (float) ref(x.f[i]));

		if (d > worst) {
			worst = d;
			*at = x.f[i];
		}
	}
	tt_free(&x);
	tt_free(&y);
	ein_kernel_free(k);
	ein_options_free(opts);
	ein_program_free(prog);
	ein_ctx_free(ctx);
	if (schedule)
		unlink(path);
	return worst;
}

/* The schedules: the default (LLVM's vectoriser chooses), none vectorised
 * but by 8 and 16 lanes; 1000003 elements leave a remainder. */
static const char *const schedules[] = {
	NULL,
	"Y: vectorize i 8\n",
	"Y: split i 16\nY: vectorize i.i 16\n",
};

#define N_ARG 1000003

START_TEST(exp_accuracy)
{
	float at = 0;
	int64_t d = max_ulps("fexp", schedules[_i], 0, N_ARG, -104, 89, exp,
		&at);

	ck_assert_msg(d <= 1, "exp: %lld ulps at %.9g", (long long) d, at);
}
END_TEST

START_TEST(erf_accuracy)
{
	float at = 0;
	int64_t d = max_ulps("ferf", schedules[_i], 0, N_ARG, -4.5f, 4.5f,
		erf, &at);

	ck_assert_msg(d <= 6, "erf: %lld ulps at %.9g", (long long) d, at);
}
END_TEST

/* Near 0, where erf(x) ~ 2x / sqrt(pi): the relative error stays small. */
START_TEST(erf_small)
{
	float at = 0;
	int64_t d = max_ulps("ferf", schedules[_i], 0, N_ARG, -1e-3f, 1e-3f,
		erf, &at);

	ck_assert_msg(d <= 3, "erf: %lld ulps at %.9g", (long long) d, at);
}
END_TEST

START_TEST(sigmoid_accuracy)
{
	float at = 0;
	int64_t d = max_ulps("fsigmoid", schedules[_i], 0, N_ARG, -30, 30,
		ref_sigmoid, &at);

	ck_assert_msg(d <= 4, "sigmoid: %lld ulps at %.9g", (long long) d,
		at);
}
END_TEST

/* --strict-fp keeps the C library's functions, or libmvec's in vector
 * loops (measured within 2 ulps: exp near its underflow, at -87.09; erf
 * near 0.0034). */
START_TEST(strict_library)
{
	float at = 0;
	int64_t d = max_ulps("fexp", schedules[_i], 1, 100003, -104, 89, exp,
		&at);

	ck_assert_msg(d <= 2, "exp: %lld ulps at %.9g", (long long) d, at);
	d = max_ulps("ferf", schedules[_i], 1, 100003, -4.5f, 4.5f, erf, &at);
	ck_assert_msg(d <= 2, "erf: %lld ulps at %.9g", (long long) d, at);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mathfn");
	TCase *tc = tcase_create("mathfn");
	SRunner *sr;
	int failed;
	int n = sizeof(schedules) / sizeof(schedules[0]);

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, exp_accuracy, 0, n);
	tcase_add_loop_test(tc, erf_accuracy, 0, n);
	tcase_add_loop_test(tc, erf_small, 0, n);
	tcase_add_loop_test(tc, sigmoid_accuracy, 0, n);
	tcase_add_loop_test(tc, strict_library, 0, n);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
