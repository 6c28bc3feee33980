/*
 * check_sema.c: name resolution, range inference and their errors, through
 * the public API.  Each error case asserts the exact first line of the
 * message: file, line, column and text.
 */
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ein.h"
#include "driver/program.h"
#include "frontend/canon.h"

static const struct {
	const char *src;
	const char *msg;
} error_cases[] = {
	{ "def f(float32(N) A) -> (B) {\n    B(i) = D(i)\n}\n",
	  "t.ein:2:12: error: unknown tensor 'D'" },
	{ "def f(float32(N) A) -> (B) {\n    B(i) = A(i, i)\n}\n",
	  "t.ein:2:12: error: tensor 'A' has 1 dimension but is indexed "
	  "with 2" },
	{ "def f(float32(M, N) A) -> (B) {\n    B(i) = A(i, j)\n}\n",
	  "t.ein:2:17: error: index 'j' appears only on the right-hand side, "
	  "so it is a reduction index, but '=' does not reduce" },
	{ "def f(float32(N) A) -> (B) {\n    A(i) = A(i) + 1\n}\n",
	  "t.ein:2:5: error: cannot assign to input 'A'" },
	{ "def f(float32(N) A) -> (B) {\n    B(i) = A(i * i)\n}\n",
	  "t.ein:2:14: error: index expression is not affine: a product "
	  "needs a constant factor" },
	{ "def f(float32(N) A) -> (B) {\n    B(i, j) = A(i)\n}\n",
	  "t.ein:2:10: error: index 'j' has no range: no access to a tensor "
	  "of known shape bounds it" },
	{ "def f(float32(N) A) -> (B) {\n    B(i) = A(i) * q\n}\n",
	  "t.ein:2:19: error: unknown name 'q'" },
	{ "def f(float32(N) A) -> (B, C) {\n    B(i) = A(i)\n}\n",
	  "t.ein:1:28: error: output 'C' is never assigned" },
	{ "def f(float32(N) A, float32(N) A) -> (B) {\n    B(i) = A(i)\n}\n",
	  "t.ein:1:32: error: tensor 'A' is declared twice" },
	{ "def f(float32(N) A) -> (B) {\n    B(i, i) = A(i)\n}\n",
	  "t.ein:2:10: error: index 'i' appears twice on the left-hand "
	  "side" },
	{ "def f(float32(N) A) -> (B) {\n    B(i) = exp(A(i), 1)\n}\n",
	  "t.ein:2:12: error: 'exp' takes 1 argument, not 2" },
	{ "def f(int8(N) A) -> (int8(N) B) {\n    B(i) = A(i) + 1\n}\n",
	  "t.ein:2:12: error: cannot convert int32 to int8 implicitly in the "
	  "assignment to 'B'" },
	{ "def f(float32(N) A) -> (B) {\n    B(i) = A(i) where j in 0:N\n}\n",
	  "t.ein:2:23: error: 'j' is not an index of this statement" },
	{ "def f(float32(N) A) -> (float32(N) B) {\n"
	  "    B(i) = i < N ? A(i + 1) : 0\n}\n",
	  "t.ein:2:22: error: index 0 of 'A' may be out of bounds" },
	{ "def f(float32(N) A) -> (B) {\n    B(i) = A(i) % -0.0\n}\n",
	  "t.ein:2:17: error: remainder by zero" },
	{ "def f(float32(N) A) -> (B) {\n    B(i) = T(i)\n    T(i) = A(i)\n}\n",
	  "t.ein:2:12: error: temporary 'T' is read before any statement "
	  "writes it" },
	{ "def f(float32(N) A, float64(N) D) -> (float32(N) B) {\n"
	  "    B(i) = A(i) > 0 ? D(i) : A(i)\n}\n",
	  "t.ein:2:12: error: cannot convert float64 to float32 implicitly in "
	  "the assignment to 'B'" },
	{ "def f(uint8(N) A) -> (int8(N) B) {\n    B(i) = A(i)\n}\n",
	  "t.ein:2:12: error: cannot convert uint8 to int8 implicitly in "
	  "the assignment to 'B'" },
	/* declared temporaries (issue 21) */
	{ "def f(float32(N) A) -> (float32(N) B) {\n    float32(N, K) T\n"
	  "    T(i, j) = A(i)\n    B(i) +=! T(i, j)\n}\n",
	  "t.ein:2:16: error: 'K' in the shape of temporary 'T' is not a "
	  "size of the inputs or outputs" },
	{ "def f(float32(N) A) -> (B) {\n    float32(N) T\n"
	  "    B(i) = A(i)\n}\n",
	  "t.ein:2:16: error: temporary 'T' is declared but no statement "
	  "assigns it" },
	{ "def f(float32(N) A) -> (float32(N) B) {\n    float32(N + 1) T\n"
	  "    T(i) = A(i)\n    B(i) = T(i + 1)\n}\n",
	  "t.ein:4:12: error: temporary 'T' is read at elements that no "
	  "earlier statement writes" },
	{ "def f(float32(N) A) -> (float32(N) B) {\n    int8(N) T\n"
	  "    T(i) = int32(A(i))\n    B(i) = T(i)\n}\n",
	  "t.ein:3:12: error: cannot convert int32 to int8 implicitly in the "
	  "assignment to 'T'" },
	{ "def f(float32(N) A) -> (float32(N) B) {\n    float32(N * N) T\n"
	  "    T(i) = A(i)\n    B(i) = T(i)\n}\n",
	  "t.ein:2:13: error: the extent of a dimension of 'T' is not affine "
	  "in the sizes" },
	{ "def f(float32(N) A) -> (float32(N) B) {\n    float32(N) A\n"
	  "    B(i) = A(i)\n}\n",
	  "t.ein:2:16: error: tensor 'A' is declared twice" },
};

/* The first line of "msg". */
static char *first_line(const char *msg)
{
	size_t n = strcspn(msg, "\n");
	char *line = malloc(n + 1);

	memcpy(line, msg, n);
	line[n] = '\0';
	return line;
}

START_TEST(sema_error)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, error_cases[_i].src,
		"t.ein");
	char *line;

	ck_assert_ptr_null(prog);
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SOURCE);
	line = first_line(ein_ctx_last_error(ctx));
	ck_assert_str_eq(line, error_cases[_i].msg);
	free(line);
	ein_ctx_free(ctx);
}
END_TEST

/* A reduction with "=" gets a hint towards "+=!". */
START_TEST(reduction_hint)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx,
		"def f(float32(M, N) A) -> (B) {\n    B(i) = A(i, j)\n}\n",
		"t.ein");

	ck_assert_ptr_null(prog);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"hint: did you mean '+=!'?"));
	ein_ctx_free(ctx);
}
END_TEST

/* Several errors in one file are reported together. */
START_TEST(several_errors)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx,
		"def f(float32(N) A) -> (B) {\n    B(i) = D(i)\n}\n"
		"def g(float32(N) A) -> (B) {\n    B(i) = A(i) * q\n}\n",
		"t.ein");
	const char *msg = ein_ctx_last_error(ctx);

	ck_assert_ptr_null(prog);
	ck_assert_ptr_nonnull(strstr(msg, "t.ein:2:12: error: unknown "
		"tensor 'D'"));
	ck_assert_ptr_nonnull(strstr(msg, "t.ein:5:19: error: unknown name "
		"'q'"));
	ein_ctx_free(ctx);
}
END_TEST

/* Shapes of outputs are inferred from the ranges of their indices. */
static const struct {
	const char *src;
	int64_t sizes[3];
	int tensor;
	int64_t shape[3];
} shape_cases[] = {
	{ "def f(float32(M, K) A, float32(K, N) B) -> (C) {\n"
	  "    C(i, j) +=! A(i, k) * B(k, j)\n}\n", { 3, 5, 7 }, 2,
	  { 3, 7 } },
	{ "def f(float32(N) X, float32(R) W) -> (Y) {\n"
	  "    Y(i) +=! X(i + r) * W(r)\n}\n", { 10, 3 }, 2, { 8 } },
	{ "def f(float32(N) X) -> (Y) {\n"
	  "    Y(i) = X(2 * i + 1)\n}\n", { 9 }, 1, { 4 } },
	{ "def f(float32(N) X) -> (Y) {\n"
	  "    Y(i) = X(i) where i in 0:N-2\n}\n", { 9 }, 1, { 7 } },
	/* A guarded access does not narrow an index bounded elsewhere... */
	{ "def f(float32(N) X) -> (float32(N) Y, Z) {\n"
	  "    Y(i) = i >= 1 ? X(i - 1) : 0\n"
	  "    Z(i) = Y(i) + (i + 2 < N ? X(i + 2) : 0)\n}\n", { 9 }, 2,
	  { 9 } },
	/* ... but bounds an index that only guarded accesses use, to
	 * where the guard can hold: a padded stride-2 convolution writes
	 * Y(0) .. Y(N / 2), not Y(1) .. Y(N / 2 - 1) (issue 21). */
	{ "def f(float32(N) X, float32(3) W) -> (Y) {\n"
	  "    Y(i) +=! (2 * i + r >= 1 && 2 * i + r <= N)\n"
	  "        ? X(2 * i + r - 1) * W(r) : 0\n}\n", { 8 }, 2, { 5 } },
	{ "def f(float32(N) X, float32(3) W) -> (Y) {\n"
	  "    Y(i) +=! (2 * i + r >= 1 && 2 * i + r <= N)\n"
	  "        ? X(2 * i + r - 1) * W(r) : 0\n}\n", { 9 }, 2, { 5 } },
	/* Declared extents may be affine expressions of the sizes. */
	{ "def f(float32(N) X) -> (float32((N + 1) / 2) Y) {\n"
	  "    Y(i) = X(2 * i)\n}\n", { 9 }, 1, { 5 } },
	{ "def f(float32(M, N) X) -> (float32(2 * M, N - 1) Y) {\n"
	  "    Y(i, j) = X(i / 2, j + 1)\n}\n", { 3, 4 }, 1, { 6, 3 } },
	/* A declared temporary's shape bounds the indices of the
	 * statements writing it, as an output's does: T(0) and T(N + 1) are
	 * written, so Y has N + 2 elements (issue 21). */
	{ "def f(float32(N) X) -> (Y) {\n    float32(N + 2) T\n"
	  "    T(i) = i >= 1 && i <= N ? X(i - 1) : 0\n"
	  "    Y(i) = T(i)\n}\n", { 5 }, 1, { 7 } },
	{ "def f(float32(M, N) X) -> (Y) {\n    float32(M, (N + 1) / 2) T\n"
	  "    T(i, j) = X(i, 2 * j)\n    Y(i, j) = T(i, j)\n}\n",
	  { 2, 9 }, 1, { 2, 5 } },
};

/* The element types untyped outputs take from their first statement. */
static const struct {
	const char *src;
	const char *types[3];
} type_cases[] = {
	{ "def f(int8(M, N) A) -> (S, P, X) {\n"
	  "    S(i) +=! A(i, j)\n"
	  "    P(i) = A(i, 0) > 0\n"
	  "    X(i) max=! A(i, j)\n}\n", { "int32", "bool", "int8" } },
	{ "def f(float32(N) A, float64(N) B) -> (S, T, U) {\n"
	  "    S(i) = A(i) * B(i)\n"
	  "    T(i) = A(i) * 2\n"
	  "    U(i) = 0 where i in 0:N\n}\n", { "float64", "float32", "float32" } },
	{ "def f(bool(N) M, uint8(N) A) -> (C, D, E) {\n"
	  "    C() +=! M(i)\n"
	  "    D(i) = M(i) ? A(i) : 0\n"
	  "    E(i) = float64(A(i))\n}\n", { "int32", "int32", "float64" } },
};

START_TEST(output_type)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, type_cases[_i].src,
		"t.ein");
	ein_kernel *k;
	int i;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	k = ein_kernel_compile(prog, NULL);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	for (i = 0; i < 3; ++i)
		ck_assert_str_eq(ein_kernel_get_tensor_type(k,
			ein_kernel_n_tensor(k) - 3 + i), type_cases[_i].types[i]);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(inferred_shape)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, shape_cases[_i].src,
		"t.ein");
	ein_kernel *k;
	int64_t shape[3] = { -1, -1, -1 };
	int d, t = shape_cases[_i].tensor;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	k = ein_kernel_compile(prog, NULL);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_int_eq(ein_kernel_tensor_shape(k, t, shape_cases[_i].sizes,
		ein_kernel_n_size(k), shape), EIN_OK);
	for (d = 0; d < ein_kernel_tensor_ndim(k, t); ++d)
		ck_assert_int_eq(shape[d], shape_cases[_i].shape[d]);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Definitions compared modulo names (frontend/canon.h, which the graph
 * level uses to compile a network's repeated kernels once): "f" against
 * the definition "other" of the same source, and whether they must
 * compare equal.  Renamed tensors, a renamed definition and another
 * layout of the text compare equal; another builtin, constant, index
 * order, size, shape or type does not. */
static const char canon_source[] =
	"def f(float32(N, 4) A, float32(4) B) -> (float32(N, 4) C) {\n"
	"    T(i, j) = A(i, j) + B(j)  # a comment\n"
	"    C(i, j) = max(T(i, j), 0.0)\n}\n"
	"# kernel 2\n"
	"def g_renamed(float32(N, 4) x,\n\tfloat32(4) bias)\n"
	"    -> (float32(N, 4) y) {\n"
	"    t2(i, j) = x(i, j) + bias(j)\n"
	"    y(i, j) = max(t2(i, j), 0.0)\n}\n"
	"def h_min(float32(N, 4) A, float32(4) B) -> (float32(N, 4) C) {\n"
	"    T(i, j) = A(i, j) + B(j)\n    C(i, j) = min(T(i, j), 0.0)\n}\n"
	"def h_const(float32(N, 4) A, float32(4) B) -> (float32(N, 4) C) {\n"
	"    T(i, j) = A(i, j) + B(j)\n    C(i, j) = max(T(i, j), 1.0)\n}\n"
	"def h_order(float32(N, 4) A, float32(4) B) -> (float32(N, 4) C) {\n"
	"    T(j, i) = A(i, j) + B(j)\n    C(i, j) = max(T(j, i), 0.0)\n}\n"
	"def h_size(float32(M, 4) A, float32(4) B) -> (float32(M, 4) C) {\n"
	"    T(i, j) = A(i, j) + B(j)\n    C(i, j) = max(T(i, j), 0.0)\n}\n"
	"def h_type(float64(N, 4) A, float64(4) B) -> (float64(N, 4) C) {\n"
	"    T(i, j) = A(i, j) + B(j)\n    C(i, j) = max(T(i, j), 0.0)\n}\n"
	"def h_swap(float32(4) B, float32(N, 4) A) -> (float32(N, 4) C) {\n"
	"    T(i, j) = A(i, j) + B(j)\n    C(i, j) = max(T(i, j), 0.0)\n}\n";

static const struct {
	const char *other;
	int same;
} canon_cases[] = {
	{ "f", 1 }, { "g_renamed", 1 }, { "h_min", 0 }, { "h_const", 0 },
	{ "h_order", 0 }, { "h_size", 0 }, { "h_type", 0 }, { "h_swap", 0 },
};

START_TEST(modulo_names)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, canon_source, "t.ein");
	char *f, *other;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	f = ein_canon_func(ein_program_get_func(prog, "f"));
	other = ein_canon_func(ein_program_get_func(prog,
		canon_cases[_i].other));
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(other);
	ck_assert_msg((strcmp(f, other) == 0) == canon_cases[_i].same,
		"f against %s:\n%s\n%s", canon_cases[_i].other, f, other);
	/* The definition's own names are gone, its builtins stay. */
	ck_assert_ptr_nonnull(strstr(other, "$def("));
	ck_assert_ptr_null(strstr(other, "bias"));
	ck_assert_ptr_null(strstr(other, "comment"));
	ck_assert_ptr_nonnull(strstr(other, "float"));
	free(f);
	free(other);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sema");
	TCase *tc = tcase_create("sema");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, sema_error, 0,
		sizeof(error_cases) / sizeof(error_cases[0]));
	tcase_add_test(tc, reduction_hint);
	tcase_add_test(tc, several_errors);
	tcase_add_loop_test(tc, inferred_shape, 0,
		sizeof(shape_cases) / sizeof(shape_cases[0]));
	tcase_add_loop_test(tc, output_type, 0,
		sizeof(type_cases) / sizeof(type_cases[0]));
	tcase_add_loop_test(tc, modulo_names, 0,
		sizeof(canon_cases) / sizeof(canon_cases[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
