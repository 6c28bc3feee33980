/*
 * check_features.c: the cost model's features (sched/features.h) of small
 * schedules, each value worked out by hand in the comments; and that the
 * same input gives the same features.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ein.h"
#include "diag.h"
#include "driver/pipeline.h"
#include "sched/file.h"
#include "sched/features.h"

#define MATMUL "def mm(float32(M, K) A, float32(K, N) B) -> (C) {\n" \
	"    C(i, j) +=! A(i, k) * B(k, j)\n}\n"
#define ROWSUM "def rs(float32(M, N) X) -> (s) {\n" \
	"    s(i) +=! X(i, j)\n}\n"

/* The features of "sched" (NULL: the default schedule) of the only
 * definition of "source" at "sizes" on "target", into f. */
static void features_on(const char *source, const char *sched,
	const int64_t *sizes, const char *target, double *f)
{
	ein_ctx *ctx = ein_ctx_alloc();
	struct ein_checked_file *cf;
	struct ein_sched_file *file = NULL;
	int r;

	ck_assert_ptr_nonnull(ctx);
	cf = ein_frontend(ctx, ein_src_alloc("test.ein", source));
	ck_assert_ptr_nonnull(cf);
	if (sched) {
		file = ein_sched_file_parse(ctx, ein_src_alloc("test.sched",
			sched));
		ck_assert_ptr_nonnull(file);
	}
	r = ein_features_compute(ctx, cf->func[0], file, sizes, target, 0,
		f);
	ck_assert_msg(r == 0, "%s", ein_ctx_last_error(ctx));
	ein_sched_file_free(file);
	ein_checked_file_free(cf);
	ein_ctx_free(ctx);
}

/* The same on AVX-512. */
static void features(const char *source, const char *sched,
	const int64_t *sizes, double *f)
{
	features_on(source, sched, sizes, "x86_64-avx512", f);
}

static void expect(const double *f, int i, double want)
{
	ck_assert_msg(fabs(f[i] - want) < 1e-12, "%s: %.17g, expected %.17g",
		ein_features_name(i), f[i], want);
}

#define SPLIT_J "ein-schedule 1\ndef mm\n" \
	"C: split j 16\nC: vectorize j.i 16\nC: parallel i\n"

/* C(i, j) += A(i, k) * B(k, j) at M = N = K = 64, loops i, k, j.o, j.i
 * (the default order moves j, contiguous in C and B, innermost).  The
 * first tiles from the innermost: 16 instances touching 16 elements of C,
 * 1 of A, 16 of B (33 of 4 bytes); 64 instances, 64 + 1 + 64; 4096
 * instances, 64 + 64 + 4096; all 64^3, 3 * 4096. */
START_TEST(features_matmul_split)
{
	int64_t sizes[3] = { 64, 64, 64 };
	double f[EIN_FEATURES_N];

	features(MATMUL, SPLIT_J, sizes, f);
	expect(f, EIN_FEATURE_LOG_FLOPS, log2(1 + 2.0 * 64 * 64 * 64));
	expect(f, EIN_FEATURE_LOG_BYTES, log2(1 + 3 * 4096 * 4));
	expect(f, EIN_FEATURE_INTENSITY, log2(1 + 2.0 * 64 * 64 * 64 /
		(3 * 4096 * 4)));
	expect(f, EIN_FEATURE_N_STMT, 1);
	expect(f, EIN_FEATURE_N_LOOP, 4);
	expect(f, EIN_FEATURE_FOOTPRINT_1, log2(1 + 33 * 4));
	expect(f, EIN_FEATURE_REUSE_1, log2(16.0 / 33));
	expect(f, EIN_FEATURE_FOOTPRINT_2, log2(1 + 129 * 4));
	expect(f, EIN_FEATURE_REUSE_2, log2(64.0 / 129));
	expect(f, EIN_FEATURE_FOOTPRINT_3, log2(1 + 4224 * 4));
	expect(f, EIN_FEATURE_REUSE_3, log2(4096.0 / 4224));
	expect(f, EIN_FEATURE_FOOTPRINT_4, log2(1 + 12288 * 4));
	expect(f, EIN_FEATURE_REUSE_4, log2(262144.0 / 12288));
	expect(f, EIN_FEATURE_TRIP_1, log2(1 + 16));
	expect(f, EIN_FEATURE_TRIP_2, log2(1 + 4));
	expect(f, EIN_FEATURE_TRIP_3, log2(1 + 64));
	expect(f, EIN_FEATURE_VECTOR, 16);
	expect(f, EIN_FEATURE_VECTOR_INNER, 1);
	/* The write of C and its implicit read, and B, walk along j.i; A
	 * does not move. */
	expect(f, EIN_FEATURE_CONTIGUOUS, 3.0 / 4);
	expect(f, EIN_FEATURE_INVARIANT, 1.0 / 4);
	expect(f, EIN_FEATURE_STRIDED, 0);
	expect(f, EIN_FEATURE_UNROLL, 0);
	expect(f, EIN_FEATURE_PARALLEL_TRIP, log2(1 + 64));
	expect(f, EIN_FEATURE_PARALLEL_DEPTH, 0);
	expect(f, EIN_FEATURE_N_FUSED, 1);
	expect(f, EIN_FEATURE_N_PACK, 0);
	/* Of the initialisation and the update, the update only. */
	expect(f, EIN_FEATURE_SHARE_VECTOR, 0.5);
	expect(f, EIN_FEATURE_SHARE_PARALLEL, 0.5);
	expect(f, EIN_FEATURE_VECTOR_BYTES, 64);
	expect(f, EIN_FEATURE_REDUCTION_INNER, 0);
}
END_TEST

/* s(i) += X(i, j) at M = 8, N = 100, the default schedule: the innermost
 * loop j is a reduction (s(i) stays), X walks along its rows. */
START_TEST(features_rowsum_default)
{
	int64_t sizes[2] = { 8, 100 };
	double f[EIN_FEATURES_N];

	features(ROWSUM, NULL, sizes, f);
	expect(f, EIN_FEATURE_N_LOOP, 2);
	expect(f, EIN_FEATURE_FOOTPRINT_1, log2(1 + (1 + 100) * 4));
	expect(f, EIN_FEATURE_REUSE_1, log2(100.0 / 101));
	expect(f, EIN_FEATURE_FOOTPRINT_2, log2(1 + (8 + 800) * 4));
	expect(f, EIN_FEATURE_FOOTPRINT_3, 0);
	expect(f, EIN_FEATURE_TRIP_1, log2(1 + 100));
	expect(f, EIN_FEATURE_TRIP_2, log2(1 + 8));
	expect(f, EIN_FEATURE_REDUCTION_INNER, 1);
	expect(f, EIN_FEATURE_CONTIGUOUS, 1.0 / 3);
	expect(f, EIN_FEATURE_INVARIANT, 2.0 / 3);
	expect(f, EIN_FEATURE_VECTOR, 0);
	expect(f, EIN_FEATURE_PARALLEL_DEPTH, -1);
	expect(f, EIN_FEATURE_LOG_FLOPS, log2(1 + 800));
}
END_TEST

/* The BLIS schedule with a packed panel and an accumulated tile: the
 * same features twice, and the buffers counted. */
START_TEST(features_deterministic)
{
	static const char *const sched = "ein-schedule 1\ndef mm\n"
		"C: tile j 32 k 64 i 4\n"
		"C: reorder j.o k.o i.o k.i i.i j.i\n"
		"C: pack B at k.o\nC: accumulate i.o\nC: unroll i.i full\n"
		"C: vectorize j.i 16\nC: parallel j.o\n";
	int64_t sizes[3] = { 96, 128, 64 };
	double f[EIN_FEATURES_N], g[EIN_FEATURES_N];

	features(MATMUL, sched, sizes, f);
	features(MATMUL, sched, sizes, g);
	ck_assert(memcmp(f, g, sizeof(f)) == 0);
	expect(f, EIN_FEATURE_N_PACK, 1);
	expect(f, EIN_FEATURE_N_ACCUMULATE, 1);
	expect(f, EIN_FEATURE_UNROLL, 2);
	expect(f, EIN_FEATURE_TRIP_1, log2(1 + 32));
	expect(f, EIN_FEATURE_PARALLEL_DEPTH, 0);
	/* The accumulated tile, 4 x 32 floats: 8 of AVX-512's 32 zmm. */
	expect(f, EIN_FEATURE_ACC_REGISTERS, 8.0 / 32);
}
END_TEST

/* The share of the vector registers an accumulated tile takes: 6 x 16
 * floats are 12 of AVX2's 16 ymm, 6 of AVX-512's 32 zmm; 3 x 16 half of
 * that; none without accumulate. */
START_TEST(features_acc_registers)
{
	static const char *const tile6 = "ein-schedule 1\ndef mm\n"
		"C: tile j 16 k 64 i 6\n"
		"C: reorder j.o k.o i.o k.i i.i j.i\n"
		"C: pack B at k.o\nC: accumulate i.o\nC: unroll i.i full\n"
		"C: vectorize j.i 16\n";
	static const char *const tile3 = "ein-schedule 1\ndef mm\n"
		"C: tile j 16 k 64 i 3\n"
		"C: reorder j.o k.o i.o k.i i.i j.i\n"
		"C: accumulate i.o\nC: vectorize j.i 16\n";
	int64_t sizes[3] = { 96, 128, 64 };
	double f[EIN_FEATURES_N];

	features_on(MATMUL, tile6, sizes, "x86_64-avx2", f);
	expect(f, EIN_FEATURE_ACC_REGISTERS, 12.0 / 16);
	features_on(MATMUL, tile6, sizes, "x86_64-avx512", f);
	expect(f, EIN_FEATURE_ACC_REGISTERS, 6.0 / 32);
	features_on(MATMUL, tile3, sizes, "x86_64-avx2", f);
	expect(f, EIN_FEATURE_ACC_REGISTERS, 6.0 / 16);
	features_on(MATMUL, SPLIT_J, sizes, "x86_64-avx2", f);
	expect(f, EIN_FEATURE_ACC_REGISTERS, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("features");
	TCase *tc = tcase_create("features");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, features_matmul_split);
	tcase_add_test(tc, features_rowsum_default);
	tcase_add_test(tc, features_deterministic);
	tcase_add_test(tc, features_acc_registers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
