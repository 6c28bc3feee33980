/*
 * check_api.c: the public C API: signatures, errors from wrong arguments
 * (never crashes), intermediate forms, ownership.
 */
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ein.h"
#include "testutil.h"

static const char matmul_src[] =
	"def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
	"    C(i, j) +=! A(i, k) * B(k, j)\n"
	"}\n";

/* A matmul kernel and 5x4 . 4x6 operands for it. */
struct fixture {
	ein_ctx *ctx;
	ein_program *prog;
	ein_kernel *k;
	struct tt a, b, c;
	DLTensor *args[3];
	int64_t sizes[3];
};

static void setup(struct fixture *f)
{
	f->ctx = ein_ctx_alloc();
	f->k = tt_compile(f->ctx, &f->prog, matmul_src, "matmul");
	tt_alloc(&f->a, 2, (int64_t[]) { 5, 4 });
	tt_alloc(&f->b, 2, (int64_t[]) { 4, 6 });
	tt_alloc(&f->c, 2, (int64_t[]) { 5, 6 });
	f->args[0] = &f->a.dl;
	f->args[1] = &f->b.dl;
	f->args[2] = &f->c.dl;
	f->sizes[0] = 5;	/* M */
	f->sizes[1] = 4;	/* K */
	f->sizes[2] = 6;	/* N */
}

static void teardown(struct fixture *f)
{
	tt_free(&f->a);
	tt_free(&f->b);
	tt_free(&f->c);
	ein_kernel_free(f->k);
	ein_program_free(f->prog);
	ein_ctx_free(f->ctx);
}

/* Assert that the last call failed with EIN_ERROR_SHAPE and "text". */
static void assert_shape_error(struct fixture *f, ein_status st,
	const char *text)
{
	ck_assert_int_eq(st, EIN_ERROR_SHAPE);
	ck_assert_int_eq(ein_ctx_last_status(f->ctx), EIN_ERROR_SHAPE);
	ck_assert_msg(strstr(ein_ctx_last_error(f->ctx), text) != NULL,
		"message '%s' lacks '%s'", ein_ctx_last_error(f->ctx), text);
}

START_TEST(signature)
{
	struct fixture f;

	setup(&f);
	ck_assert_int_eq(ein_kernel_n_tensor(f.k), 3);
	ck_assert_str_eq(ein_kernel_get_tensor_name(f.k, 0), "A");
	ck_assert_str_eq(ein_kernel_get_tensor_name(f.k, 2), "C");
	ck_assert_int_eq(ein_kernel_tensor_is_output(f.k, 1), 0);
	ck_assert_int_eq(ein_kernel_tensor_is_output(f.k, 2), 1);
	ck_assert_int_eq(ein_kernel_tensor_is_output(f.k, 3), -1);
	ck_assert_int_eq(ein_kernel_tensor_ndim(f.k, 2), 2);
	ck_assert_int_eq(ein_kernel_n_size(f.k), 3);
	ck_assert_str_eq(ein_kernel_get_size_name(f.k, 0), "M");
	ck_assert_str_eq(ein_kernel_get_size_name(f.k, 1), "K");
	ck_assert_str_eq(ein_kernel_get_size_name(f.k, 2), "N");
	ck_assert_ptr_null(ein_kernel_get_size_name(f.k, 3));
	ck_assert_int_eq(ein_kernel_call(f.k, f.args, 3, f.sizes, 3), EIN_OK);
	teardown(&f);
}
END_TEST

START_TEST(wrong_shape)
{
	struct fixture f;

	setup(&f);
	f.b.shape[1] = 7;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"error: tensor 'B' (argument 1): dimension 1 is 7 but the "
		"sizes make it 6");
	teardown(&f);
}
END_TEST

START_TEST(wrong_rank)
{
	struct fixture f;

	setup(&f);
	f.c.dl.ndim = 1;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"tensor 'C' (argument 2) has 1 dimensions, the kernel expects "
		"2");
	teardown(&f);
}
END_TEST

START_TEST(wrong_counts)
{
	struct fixture f;

	setup(&f);
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 2, f.sizes, 3),
		"kernel 'matmul' takes 3 tensors, not 2");
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 2),
		"kernel 'matmul' takes 3 sizes, not 2");
	f.sizes[1] = 0;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"size K is 0: sizes must be at least 1");
	teardown(&f);
}
END_TEST

START_TEST(wrong_type_and_layout)
{
	struct fixture f;
	int64_t strides[2] = { 1, 5 };

	setup(&f);
	f.a.dl.dtype.bits = 64;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"tensor 'A' (argument 0) must be a dense row-major float32 "
		"tensor on the CPU");
	f.a.dl.dtype.bits = 32;
	f.a.dl.strides = strides;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"must be a dense row-major float32 tensor");
	f.a.dl.strides = NULL;
	f.c.dl.data = NULL;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"tensor 'C' (argument 2) has no data");
	f.c.dl.data = f.c.f;
	f.args[1] = NULL;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"tensor 'B' (argument 1) has no data");
	teardown(&f);
}
END_TEST

START_TEST(unknown_definition)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "m.ein");

	ck_assert_ptr_nonnull(prog);
	ck_assert_int_eq(ein_program_n_def(prog), 1);
	ck_assert_str_eq(ein_program_get_def_name(prog, 0), "matmul");
	ck_assert_ptr_null(ein_kernel_compile(prog, "conv"));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_INVALID);
	ck_assert_str_eq(ein_ctx_last_error(ctx),
		"error: no definition named 'conv'\n");
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(missing_file)
{
	ein_ctx *ctx = ein_ctx_alloc();

	ck_assert_ptr_null(ein_program_read_file(ctx, "/nonexistent/x.ein"));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_IO);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"cannot open '/nonexistent/x.ein'"));
	ein_ctx_free(ctx);
}
END_TEST

/* The intermediate forms, and the vectorised loop that LLVM's O3 makes of
 * matmul's innermost j loop on the host CPU. */
START_TEST(show_stages)
{
	static const struct {
		ein_stage stage;
		const char *text;
	} cases[] = {
		{ EIN_STAGE_SOURCE, "C(i, j) +=! A(i, k) * B(k, j)" },
		{ EIN_STAGE_DOMAINS, "S0_init[i, j]" },
		{ EIN_STAGE_AST, "S0(c0, c2, c1)" },
		{ EIN_STAGE_LLVM_UNOPT, "define void @matmul(ptr noalias" },
		{ EIN_STAGE_LLVM, " x float>" },
	};
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "m.ein");
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		char *text = ein_program_show(prog, NULL, cases[i].stage);

		ck_assert_msg(text != NULL, "%s", ein_ctx_last_error(ctx));
		ck_assert_msg(strstr(text, cases[i].text) != NULL,
			"stage %d lacks '%s':\n%s", cases[i].stage,
			cases[i].text, text);
		free(text);
	}
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A kernel keeps what it needs of its program. */
START_TEST(kernel_outlives_program)
{
	struct fixture f;

	setup(&f);
	ein_program_free(f.prog);
	f.prog = NULL;
	tt_randomize(&f.a, 1);
	tt_randomize(&f.b, 2);
	ck_assert_int_eq(ein_kernel_call(f.k, f.args, 3, f.sizes, 3), EIN_OK);
	ck_assert(f.c.f[0] != 0);
	teardown(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, signature);
	tcase_add_test(tc, wrong_shape);
	tcase_add_test(tc, wrong_rank);
	tcase_add_test(tc, wrong_counts);
	tcase_add_test(tc, wrong_type_and_layout);
	tcase_add_test(tc, unknown_definition);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, show_stages);
	tcase_add_test(tc, kernel_outlives_program);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
