/*
 * check_api.c: the public C API: signatures, errors from wrong arguments
 * (never crashes), intermediate forms, ownership, concurrent calls and the
 * compile cache.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <check.h>
#include "ein.h"
#include "ctx.h"
#include "runtime/cache.h"
#include "outfile.h"
#include "testutil.h"
#include "onnx_build.h"

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

/* An input named again alone among the outputs is one tensor, updated in
 * place: numbered among the outputs, both an input and an output, and
 * both the compiled kernel and the reference start from the caller's
 * data. */
START_TEST(in_place_signature)
{
	static const char src[] =
		"def axpy(float32(N) x, float32(N) y, float32 a) -> (y) {\n"
		"    y(i) = a * x(i) + y(i)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, src, "axpy");
	struct tt x, y, yref, a;
	DLTensor *args[3], *rargs[3];
	int64_t n = 5;
	float y0[5];
	int i;

	ck_assert_int_eq(ein_kernel_n_tensor(k), 3);
	ck_assert_str_eq(ein_kernel_get_tensor_name(k, 0), "x");
	ck_assert_str_eq(ein_kernel_get_tensor_name(k, 1), "a");
	ck_assert_str_eq(ein_kernel_get_tensor_name(k, 2), "y");
	ck_assert_int_eq(ein_kernel_tensor_is_output(k, 0), 0);
	ck_assert_int_eq(ein_kernel_tensor_is_input(k, 0), 1);
	ck_assert_int_eq(ein_kernel_tensor_is_output(k, 2), 1);
	ck_assert_int_eq(ein_kernel_tensor_is_input(k, 2), 1);
	ck_assert_int_eq(ein_kernel_tensor_is_input(k, 3), -1);
	ck_assert_int_eq(ein_kernel_tensor_ndim(k, 2), 1);
	tt_alloc(&x, 1, &n);
	tt_alloc(&y, 1, &n);
	tt_alloc(&yref, 1, &n);
	tt_alloc(&a, 0, NULL);
	tt_randomize(&x, 1);
	tt_randomize(&y, 2);
	tt_randomize(&yref, 2);
	a.f[0] = 3;
	args[0] = rargs[0] = &x.dl;
	args[1] = rargs[1] = &a.dl;
	args[2] = &y.dl;
	rargs[2] = &yref.dl;
	memcpy(y0, y.f, sizeof(y0));
	ck_assert_int_eq(ein_kernel_call(k, args, 3, &n, 1), EIN_OK);
	ck_assert_int_eq(ein_kernel_call_reference(k, rargs, 3, &n, 1),
		EIN_OK);
	for (i = 0; i < n; ++i) {
		ck_assert(y0[i] != 0);
		ck_assert_float_eq_tol(y.f[i], 3 * x.f[i] + y0[i], 1e-6);
		ck_assert_float_eq_tol(yref.f[i], y.f[i], 1e-6);
	}
	tt_free(&x);
	tt_free(&y);
	tt_free(&yref);
	tt_free(&a);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
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

/* The shapes kept from the call before (runtime/kernel.c's memo) are
 * those of its sizes only: a wrong shape at the same sizes, and the old
 * shapes at new sizes, are still refused; new sizes with their shapes
 * run, and so do the first sizes again. */
START_TEST(shapes_kept_per_sizes)
{
	struct fixture f;
	struct tt b7, c7;

	setup(&f);
	ck_assert_int_eq(ein_kernel_call(f.k, f.args, 3, f.sizes, 3), EIN_OK);
	f.b.shape[1] = 7;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"error: tensor 'B' (argument 1): dimension 1 is 7 but the "
		"sizes make it 6");
	f.b.shape[1] = 6;
	f.sizes[2] = 7;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"error: tensor 'B' (argument 1): dimension 1 is 6 but the "
		"sizes make it 7");
	tt_alloc(&b7, 2, (int64_t[]) { 4, 7 });
	tt_alloc(&c7, 2, (int64_t[]) { 5, 7 });
	f.args[1] = &b7.dl;
	f.args[2] = &c7.dl;
	ck_assert_int_eq(ein_kernel_call(f.k, f.args, 3, f.sizes, 3), EIN_OK);
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3,
		(int64_t[]) { 5, 4, 6 }, 3),
		"error: tensor 'B' (argument 1): dimension 1 is 7 but the "
		"sizes make it 6");
	f.args[1] = &f.b.dl;
	f.args[2] = &f.c.dl;
	f.sizes[2] = 6;
	ck_assert_int_eq(ein_kernel_call(f.k, f.args, 3, f.sizes, 3), EIN_OK);
	tt_free(&b7);
	tt_free(&c7);
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
	/* A tensor on a device is a device error, on the CPU kernel even
	 * an OpenCL one (kDLOpenCL, docs/opencl.md). */
	f.b.dl.device.device_type = kDLCUDA;
	ck_assert_int_eq(ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		EIN_ERROR_DEVICE);
	ck_assert_str_eq(ein_ctx_last_error(f.ctx), "error: tensor 'B' "
		"(argument 1) is on DLPack device type 2, but kernel 'matmul' "
		"runs on the CPU: it takes kDLCPU tensors\n");
	f.b.dl.device.device_type = kDLOpenCL;
	ck_assert_int_eq(ein_kernel_call_reference(f.k, f.args, 3, f.sizes,
		3), EIN_ERROR_DEVICE);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(f.ctx),
		"device type 4 (kDLOpenCL)"));
	f.b.dl.device.device_type = kDLCPU;
	f.c.dl.data = NULL;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"tensor 'C' (argument 2) has NULL data");
	f.c.dl.data = f.c.f;
	f.args[1] = NULL;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"tensor 'B' (argument 1) is NULL");
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
	/* The sizes, known before anything is compiled (issue 23). */
	ck_assert_int_eq(ein_program_n_size(prog, NULL), 3);
	ck_assert_int_eq(ein_program_n_size(prog, "matmul"), 3);
	ck_assert_int_eq(ein_program_n_size(prog, "conv"), -1);
	ck_assert_str_eq(ein_program_get_size_name(prog, NULL, 0), "M");
	ck_assert_ptr_null(ein_program_get_size_name(prog, NULL, 3));
	ck_assert_ptr_null(ein_program_get_size_name(prog, "conv", 0));
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
 * matmul's innermost j loop on the host CPU, with the default schedule
 * (the automatic one off). */
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
		{ EIN_STAGE_C, "int matmul(const float *restrict A, "
			"const float *restrict B, float *restrict C" },
	};
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "m.ein");
	ein_options *opts = ein_options_alloc();
	size_t i;

	ein_options_set_auto(opts, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		char *text = ein_program_show_with(prog, NULL,
			cases[i].stage, opts);

		ck_assert_msg(text != NULL, "%s", ein_ctx_last_error(ctx));
		ck_assert_msg(strstr(text, cases[i].text) != NULL,
			"stage %d lacks '%s':\n%s", cases[i].stage,
			cases[i].text, text);
		free(text);
	}
	ein_options_free(opts);
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

/* A schedule file with "text" in a fresh temporary file, whose path the
 * caller frees (after unlinking it). */
static char *write_schedule(const char *text)
{
	char *path = strdup("/tmp/ein-check-api-XXXXXX");
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

enum { N_THREAD = 4, N_CALL = 100 };

/* One thread's work: N_CALL calls of "k" on its own operands, whose
 * sizes differ from call to call and from the other threads', each
 * checked against a plain loop; every tenth call also passes a wrong
 * shape, which must fail without disturbing the others.
 * bad: the calls whose result or status was wrong. */
struct worker {
	ein_kernel *k;
	int id;
	int bad;
};

/* Does C = A B, all row-major floats, hold to a relative 1e-4? */
static int matmul_ok(const struct tt *a, const struct tt *b,
	const struct tt *c, int64_t m, int64_t kk, int64_t n)
{
	int64_t i, j, l;

	for (i = 0; i < m; ++i)
		for (j = 0; j < n; ++j) {
			double want = 0;

			for (l = 0; l < kk; ++l)
				want += (double) a->f[i * kk + l] *
					b->f[l * n + j];
			if (fabs(c->f[i * n + j] - want) >
			    1e-4 * (1 + fabs(want)))
				return 0;
		}
	return 1;
}

/* One call of w->k at M, K, N = m, kk, n; 1 if all went as it should. */
static int one_call(struct worker *w, int64_t m, int64_t kk, int64_t n,
	uint64_t seed)
{
	struct tt a, b, c;
	DLTensor *args[3] = { &a.dl, &b.dl, &c.dl };
	int64_t sizes[3] = { m, kk, n }, wrong[3] = { m + 1, kk, n };
	int ok;

	tt_alloc(&a, 2, (int64_t[]) { m, kk });
	tt_alloc(&b, 2, (int64_t[]) { kk, n });
	tt_alloc(&c, 2, (int64_t[]) { m, n });
	tt_randomize(&a, seed);
	tt_randomize(&b, seed + 1);
	ok = ein_kernel_call(w->k, args, 3, sizes, 3) == EIN_OK &&
		matmul_ok(&a, &b, &c, m, kk, n);
	if (seed % 10 == 0)
		ok = ok && ein_kernel_call(w->k, args, 3, wrong, 3) ==
			EIN_ERROR_SHAPE;
	tt_free(&a);
	tt_free(&b);
	tt_free(&c);
	return ok;
}

static void *work(void *user)
{
	struct worker *w = user;
	int i;

	for (i = 0; i < N_CALL; ++i)
		if (!one_call(w, 3 + (i + w->id) % 17, 1 + (i * 7) % 23,
				5 + w->id * 11 + i % 13, w->id * 1000 + i))
			w->bad++;
	return NULL;
}

/* One kernel called from N_THREAD threads at once, N_CALL times each,
 * with the default schedule (_i = 0) and a parallel one (_i = 1), whose
 * loops share the thread pool: every result is right. */
START_TEST(concurrent_calls)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, NULL);
	ein_options *opts = ein_options_alloc();
	char *sched = write_schedule("ein-schedule 1\nC: parallel i\n"
		"C.init: parallel i\n");
	struct worker w[N_THREAD];
	pthread_t tid[N_THREAD];
	int i;

	ck_assert_ptr_nonnull(prog);
	if (_i == 1)
		ein_options_set_schedule(opts, sched);
	w[0].k = ein_kernel_compile_with(prog, "matmul", opts);
	ck_assert_msg(w[0].k != NULL, "%s", ein_ctx_last_error(ctx));
	for (i = 0; i < N_THREAD; ++i) {
		w[i].k = w[0].k;
		w[i].id = i;
		w[i].bad = 0;
		ck_assert_int_eq(pthread_create(&tid[i], NULL, &work, &w[i]),
			0);
	}
	for (i = 0; i < N_THREAD; ++i) {
		ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
		ck_assert_msg(w[i].bad == 0, "thread %d: %d of %d calls wrong",
			i, w[i].bad, N_CALL);
	}
	ein_kernel_free(w[0].k);
	ein_options_free(opts);
	unlink(sched);
	free(sched);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* The hits and misses of ctx's compile cache so far. */
static struct ein_cache_stats stats(ein_ctx *ctx)
{
	return ein_cache_get_stats(ein_ctx_get_cache(ctx));
}

/* Compile "def" of "prog" with "opts" and assert that it was a cache hit
 * (hit = 1) or a miss (hit = 0). */
static ein_kernel *compile_expect(ein_ctx *ctx, ein_program *prog,
	const char *def, const ein_options *opts, int hit)
{
	struct ein_cache_stats before = stats(ctx), after;
	ein_kernel *k = ein_kernel_compile_with(prog, def, opts);

	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	after = stats(ctx);
	ck_assert_int_eq(after.hits - before.hits, hit);
	ck_assert_int_eq(after.misses - before.misses, !hit);
	return k;
}

/* Run the matmul "k" on 5x4 . 4x6 operands and check the result. */
static void check_matmul(ein_kernel *k)
{
	struct worker w = { k, 0, 0 };

	ck_assert(one_call(&w, 5, 4, 6, 7));
}

/* The same source text, definition, schedule, target, strict-fp and sizes
 * compile once per context: a second compile, even from another program
 * parsed from the same text and after the first kernel is gone, is a hit
 * that shares the code; changing any of them misses. */
START_TEST(compile_cache)
{
	ein_ctx *ctx = ein_ctx_alloc(), *ctx2 = ein_ctx_alloc();
	ein_program *p1 = ein_program_parse(ctx, matmul_src, "a.ein");
	ein_program *p2 = ein_program_parse(ctx, matmul_src, "b.ein");
	ein_program *p3 = ein_program_parse(ctx2, matmul_src, "a.ein");
	ein_program *spaced = ein_program_parse(ctx,
		"def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n}\n", NULL);
	char *s1 = write_schedule("ein-schedule 1\nC: parallel i\n");
	char *s2 = write_schedule("ein-schedule 1\nC: parallel j\n");
	ein_options *o1 = ein_options_alloc(), *o2 = ein_options_alloc();
	ein_kernel *k[10];
	int i;

	ck_assert(p1 && p2 && p3 && spaced);
	ein_options_set_schedule_lookup(o1, 0);
	k[0] = compile_expect(ctx, p1, "matmul", o1, 0);
	k[1] = compile_expect(ctx, p2, "matmul", o1, 1);
	ck_assert_int_eq(stats(ctx).n_entry, 1);
	/* The code outlives the kernel and program it was compiled for. */
	ein_kernel_free(k[0]);
	ein_program_free(p1);
	k[0] = compile_expect(ctx, p2, "matmul", o1, 1);
	check_matmul(k[0]);
	check_matmul(k[1]);
	/* Each key part misses: the schedule file's text, ... */
	ein_options_set_schedule(o2, s1);
	k[2] = compile_expect(ctx, p2, "matmul", o2, 0);
	ck_assert_str_eq(ein_kernel_get_schedule(k[2]), s1);
	ck_assert_ptr_null(ein_kernel_get_schedule(k[0]));
	k[3] = compile_expect(ctx, p2, "matmul", o2, 1);
	ein_options_set_schedule(o2, s2);
	k[4] = compile_expect(ctx, p2, "matmul", o2, 0);
	check_matmul(k[4]);
	/* ... strict floating point, ... */
	ein_options_set_strict_fp(o1, 1);
	k[5] = compile_expect(ctx, p2, "matmul", o1, 0);
	/* ... the sizes, in any order, ... */
	ein_options_set_size(o1, "M", 64);
	ein_options_set_size(o1, "N", 32);
	k[6] = compile_expect(ctx, p2, "matmul", o1, 0);
	ein_options_free(o1);
	o1 = ein_options_alloc();
	ein_options_set_schedule_lookup(o1, 0);
	ein_options_set_strict_fp(o1, 1);
	ein_options_set_size(o1, "N", 32);
	ein_options_set_size(o1, "M", 64);
	k[7] = compile_expect(ctx, p2, "matmul", o1, 1);
	/* ... the source text, ... */
	k[8] = compile_expect(ctx, spaced, "matmul", o1, 0);
	check_matmul(k[8]);
	/* ... and the context: caches are never shared. */
	k[9] = compile_expect(ctx2, p3, "matmul", o1, 0);
	ck_assert_int_eq(stats(ctx).n_entry, 6);
	for (i = 0; i < 10; ++i)
		ein_kernel_free(k[i]);
	ein_options_free(o1);
	ein_options_free(o2);
	unlink(s1);
	unlink(s2);
	free(s1);
	free(s2);
	ein_program_free(p2);
	ein_program_free(p3);
	ein_program_free(spaced);
	ein_ctx_free(ctx);
	ein_ctx_free(ctx2);
}
END_TEST

/* With no schedule file for the definition, the automatic schedule is
 * used and named in the reason (and printed as a schedule file by the
 * schedule stage); ein_options_set_auto(opts, 0) keeps the default
 * schedule; the two compile apart and both compute the product. */
START_TEST(automatic_schedule_option)
{
	static const char src[] =
		"def api_auto_mm(float32(M, K) A, float32(K, N) B) -> (C) {\n"
		"    C(i, j) +=! A(i, k) * B(k, j)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, src, "auto.ein");
	ein_options *off = ein_options_alloc();
	ein_kernel *k[2];
	const char *why;
	char *text;

	ck_assert(prog && off);
	ck_assert_int_eq(ein_options_set_auto(NULL, 0), EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_auto(off, 0), EIN_OK);
	k[0] = compile_expect(ctx, prog, "api_auto_mm", NULL, 0);
	why = ein_kernel_get_schedule_reason(k[0]);
	ck_assert_ptr_null(ein_kernel_get_schedule(k[0]));
	ck_assert_msg(why && !strncmp(why, "automatic", 9), "reason '%s'",
		why ? why : "(null)");
	ck_assert_msg(strstr(why, "contraction"), "reason '%s'", why);
	check_matmul(k[0]);
	k[1] = compile_expect(ctx, prog, "api_auto_mm", off, 0);
	why = ein_kernel_get_schedule_reason(k[1]);
	ck_assert_ptr_null(ein_kernel_get_schedule(k[1]));
	ck_assert_msg(!why || strncmp(why, "automatic", 9), "reason '%s'",
		why);
	check_matmul(k[1]);
	text = ein_program_show(prog, "api_auto_mm", EIN_STAGE_SCHEDULE);
	ck_assert_msg(text && strstr(text, "ein-schedule 1\n") &&
		strstr(text, "C: accumulate i.o\n"), "%s", text ? text : "");
	free(text);
	text = ein_program_show_with(prog, "api_auto_mm", EIN_STAGE_SCHEDULE,
		off);
	ck_assert_msg(text && !strstr(text, "ein-schedule"), "%s",
		text ? text : "");
	free(text);
	ein_kernel_free(k[0]);
	ein_kernel_free(k[1]);
	ein_options_free(off);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* ein_options_fix_size specialises the kernel: calls at the fixed sizes
 * (and any value of a size left free) are right, through a parallel and
 * tiled schedule whose outlined body sees the constants; another value
 * of a fixed size is EIN_ERROR_SHAPE; fixed and hinted sizes are cached
 * apart; sizes the definition lacks are ignored. */
START_TEST(fixed_sizes)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, NULL);
	char *sched = write_schedule("ein-schedule 1\nC: split j 4\n"
		"C: vectorize j.i 4\nC: parallel i\nC.init: parallel i\n");
	ein_options *fix = ein_options_alloc(), *hint = ein_options_alloc();
	struct worker w = { NULL, 0, 0 };
	ein_kernel *k1, *k2;

	ck_assert_ptr_nonnull(prog);
	ck_assert_int_eq(ein_options_fix_size(fix, "M", 0), EIN_ERROR_INVALID);
	ein_options_set_schedule(fix, sched);
	ein_options_fix_size(fix, "M", 5);
	ein_options_fix_size(fix, "K", 7);
	ein_options_fix_size(fix, "Q", 3);
	w.k = k1 = ein_kernel_compile_with(prog, "matmul", fix);
	ck_assert_msg(k1 != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert(one_call(&w, 5, 7, 6, 10));
	ck_assert(one_call(&w, 5, 7, 13, 11));
	ck_assert(one_call(&w, 5, 7, 1, 12));
	ck_assert(!one_call(&w, 6, 7, 6, 13));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SHAPE);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"compiled for M = 5"));
	ein_options_set_schedule(hint, sched);
	ein_options_set_size(hint, "M", 5);
	ein_options_set_size(hint, "K", 7);
	ein_options_set_size(hint, "Q", 3);
	k2 = ein_kernel_compile_with(prog, "matmul", hint);
	ck_assert_ptr_nonnull(k2);
	ck_assert_int_eq(stats(ctx).n_entry, 2);
	w.k = k2;
	ck_assert(one_call(&w, 6, 7, 6, 14));
	ein_kernel_free(k1);
	ein_kernel_free(k2);
	ein_options_free(fix);
	ein_options_free(hint);
	unlink(sched);
	free(sched);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Fixed sizes that give a tensor no shape fail to compile, with a
 * message. */
START_TEST(fixed_sizes_invalid)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx,
		"def conv(float32(H) I, float32(3) Wt) -> (O) {\n"
		"    O(h) +=! I(h + r) * Wt(r)\n}\n", NULL);
	ein_options *opts = ein_options_alloc();

	ck_assert_ptr_nonnull(prog);
	ein_options_fix_size(opts, "H", 2);
	ck_assert_ptr_null(ein_kernel_compile_with(prog, "conv", opts));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SHAPE);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx), "no shape"));
	ein_options_free(opts);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A failed compile caches nothing: an illegal schedule fails again. */
START_TEST(compile_cache_errors)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, NULL);
	char *bad = write_schedule("ein-schedule 1\nC: parallel k\n");
	ein_options *opts = ein_options_alloc();
	int i;

	ein_options_set_schedule(opts, bad);
	for (i = 0; i < 2; ++i) {
		ck_assert_ptr_null(ein_kernel_compile_with(prog, "matmul",
			opts));
		ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SOURCE);
	}
	ck_assert_int_eq(stats(ctx).n_entry, 0);
	ck_assert_int_eq(stats(ctx).hits, 0);
	ein_options_free(opts);
	unlink(bad);
	free(bad);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* 2^32 + 1: a size that an int would hold as 1. */
#define BIG_SIZE ((int64_t) 4294967297LL)

/* A float32 tensor of "n" elements whose data is address space that no
 * access may touch (PROT_NONE), for a size too large to allocate that the
 * kernel never reads.  Returns the mapping, MAP_FAILED on failure. */
static void *untouchable(struct tt *t, int64_t n)
{
	void *p = mmap(NULL, n * sizeof(float), PROT_NONE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	tt_alloc(t, 1, (int64_t[]) { 1 });
	t->shape[0] = n;
	if (p != MAP_FAILED)
		t->dl.data = p;
	return p;
}

/* ein_options_fix_size with a value above 2^31 - 1 specialises the kernel
 * to that value, not to its low 32 bits: with N = 2^32 + 1 the window
 * 0 : N - 4294967295 is Y(0) and Y(1), where N truncated to 1 would make
 * it empty and leave Y unwritten.  The flop count (the reference
 * interpreter's enumeration) sees the same N; the reference itself would
 * need T as 2^32 doubles. */
START_TEST(fixed_size_above_int_max)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = NULL;
	struct tt x, t, y;
	float *data;
	DLTensor *args[3] = { &x.dl, &t.dl, &y.dl };
	int64_t n = BIG_SIZE, shape = 0;
	void *map;
	int i;

	/* Y is updated in place: the elements the window leaves keep the
	 * caller's data. */
	k = tt_compile(ctx, &prog, "def window(float32(4) X, float32(N) T, "
		"float32(4) Y) -> (Y) {\n"
		"    Y(i) = X(i) + 1.0 where i in 0 : N - 4294967295\n}\n",
		"window");
	ein_kernel_free(k);
	ck_assert_int_eq(ein_options_fix_size(opts, "N", n), EIN_OK);
	k = ein_kernel_compile_with(prog, "window", opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_int_eq(ein_kernel_tensor_shape(k, 1, &n, 1, &shape), EIN_OK);
	ck_assert_int_eq(shape, n);
	ck_assert(ein_kernel_flops(k, &n, 1) == 2);
	tt_alloc(&x, 1, (int64_t[]) { 4 });
	tt_alloc(&y, 1, (int64_t[]) { 4 });
	map = untouchable(&t, n);
	ck_assert(map != MAP_FAILED);
	for (i = 0; i < 4; ++i) {
		x.f[i] = i + 1;
		y.f[i] = -1;
	}
	ck_assert_int_eq(ein_kernel_call(k, args, 3, &n, 1), EIN_OK);
	data = y.f;
	ck_assert_msg(data[0] == 2 && data[1] == 3 && data[2] == -1 &&
		data[3] == -1, "Y = %g %g %g %g", data[0], data[1], data[2],
		data[3]);
	munmap(map, n * sizeof(float));
	t.dl.data = t.f;
	tt_free(&x);
	tt_free(&t);
	tt_free(&y);
	ein_kernel_free(k);
	ein_options_free(opts);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* The flops of a matmul whose N is 2^32 + 5 (fixed or not) are
 * 2 M K N, not those of N = 5. */
START_TEST(flops_of_size_above_int_max)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = tt_compile(ctx, &prog, matmul_src, "matmul"), *kf;
	int64_t sizes[3] = { 3, 2, BIG_SIZE + 4 };

	ck_assert(ein_kernel_flops(k, sizes, 3) == 2.0 * 3 * 2 * sizes[2]);
	ck_assert_int_eq(ein_options_fix_size(opts, "N", sizes[2]), EIN_OK);
	kf = ein_kernel_compile_with(prog, "matmul", opts);
	ck_assert_msg(kf != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert(ein_kernel_flops(kf, sizes, 3) == 2.0 * 3 * 2 * sizes[2]);
	ein_kernel_free(kf);
	ein_kernel_free(k);
	ein_options_free(opts);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* ein_kernel_ops counts the integer operations on tensor values that
 * ein_kernel_flops leaves out (an int8 product, its int32 accumulation,
 * the requantisation's arithmetic), not index arithmetic or a padding
 * guard's comparisons; on a float kernel it is ein_kernel_flops. */
START_TEST(ops_of_an_integer_kernel)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog,
		"def q(uint8(M, K) A, int8(K, N) B) -> (int32(M, N) C) {\n"
		"    C(i, j) +=! (A(i, k) - 3) * B(k, j)\n"
		"}\n"
		"def pad(uint8(N) X) -> (uint8(N) Y) {\n"
		"    Y(i) = i >= 1 ? uint8(X(i - 1) + 1) : uint8(0)\n"
		"}\n", "q"), *kp, *kf;
	int64_t sizes[3] = { 5, 7, 3 }, n = 10;

	ck_assert(ein_kernel_flops(k, sizes, 3) == 0);
	/* A - 3, the product, the accumulation: three a step. */
	ck_assert(ein_kernel_ops(k, sizes, 3) == 3.0 * 5 * 7 * 3);
	kp = ein_kernel_compile(prog, "pad");
	ck_assert_msg(kp != NULL, "%s", ein_ctx_last_error(ctx));
	/* Only X(i - 1) + 1: the guard and i - 1 are index arithmetic. */
	ck_assert(ein_kernel_ops(kp, &n, 1) == 10);
	ein_kernel_free(kp);
	ein_program_free(prog);
	kf = tt_compile(ctx, &prog, matmul_src, "matmul");
	ck_assert(ein_kernel_ops(kf, sizes, 3) ==
		ein_kernel_flops(kf, sizes, 3));
	ck_assert(ein_kernel_ops(NULL, sizes, 3) == -1);
	ein_kernel_free(kf);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* ein_options_set_target: the names it takes and those it refuses. */
START_TEST(target_names)
{
	static const struct {
		const char *name;
		ein_status status;
	} cases[] = {
		{ "cpu", EIN_OK }, { "opencl", EIN_OK },
		{ "opencl:0:0", EIN_OK }, { "opencl:3:12", EIN_OK },
		{ "opencl:", EIN_ERROR_INVALID }, { "opencl:1", EIN_ERROR_INVALID },
		{ "opencl:a:b", EIN_ERROR_INVALID },
		{ "opencl:1:2:3", EIN_ERROR_INVALID },
		{ "opencl:-1:0", EIN_ERROR_INVALID },
		{ "openclx", EIN_ERROR_INVALID }, { "cuda", EIN_ERROR_INVALID },
		{ "host", EIN_OK }, { "x86_64", EIN_OK },
		{ "x86_64-avx2", EIN_OK }, { "x86_64-avx512", EIN_OK },
		{ "aarch64", EIN_OK }, { "x86_64-avx3", EIN_ERROR_INVALID },
		{ "x86_64-sse", EIN_ERROR_INVALID },
	};
	ein_options *opts = ein_options_alloc();
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		ck_assert_msg(ein_options_set_target(opts, cases[i].name) ==
			cases[i].status, "%s", cases[i].name);
	ck_assert_int_eq(ein_options_set_target(opts, NULL), EIN_ERROR_INVALID);
	ein_options_free(opts);
}
END_TEST

/* The OpenCL stage, which needs no device: matmul's two kernels, the
 * initialisation's 2-d grid and the update's rows; refused without the
 * OpenCL target. */
START_TEST(show_opencl)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	ein_options *opts = ein_options_alloc();
	char *text;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_ptr_null(ein_program_show_with(prog, "matmul",
		EIN_STAGE_OPENCL, opts));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_target(opts, "opencl"), EIN_OK);
	text = ein_program_show_with(prog, "matmul", EIN_STAGE_OPENCL, opts);
	ck_assert_msg(text != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_ptr_nonnull(strstr(text, "__kernel void matmul__k0("));
	ck_assert_ptr_nonnull(strstr(text, "__kernel void matmul__k1("));
	ck_assert_ptr_nonnull(strstr(text, "get_group_id(1)"));
	ck_assert_ptr_nonnull(strstr(text, "get_local_id(0)"));
	free(text);
	ein_options_free(opts);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A NULL pointer among the arguments is an error that says which one is
 * NULL ("takes 3 tensors, not 3" said nothing), for the compiled code,
 * the reference, the shape query and ahead-of-time compilation alike. */
/* The weights of the perceptron of onnx_build_mlp, small integers and
 * halves so that its outputs are exact in float. */
static void mlp_weights(float *w1, float *b1, float *w2)
{
	int i;

	for (i = 0; i < 16; ++i)
		w1[i] = (float) ((i * 7) % 5 - 2) / 2;
	for (i = 0; i < 4; ++i)
		b1[i] = (float) (i - 1) / 2;
	for (i = 0; i < 12; ++i)
		w2[i] = (float) ((i * 3) % 4 - 1);
}

/* The perceptron's outputs by plain loops, the independent reference:
 * y = relu(x w1 + b1) w2 for a batch of 2. */
static void mlp_expected(const float *x, const float *w1, const float *b1,
	const float *w2, float *y)
{
	int n, i, j;

	for (n = 0; n < 2; ++n)
		for (j = 0; j < 3; ++j) {
			double acc = 0;

			for (i = 0; i < 4; ++i) {
				double h = b1[i];
				int k;

				for (k = 0; k < 4; ++k)
					h += x[n * 4 + k] * w1[k * 4 + i];
				acc += (h > 0 ? h : 0) * w2[i * 3 + j];
			}
			y[n * 3 + j] = (float) acc;
		}
}

/* What a progress function was told (ein_options_set_progress): each
 * call as "done/total name" (NULL: "end"), one per line. */
struct progress_log {
	char text[512];
	size_t len;
};

static void log_progress(void *user, int done, int total, const char *what)
{
	struct progress_log *log = user;

	log->len += snprintf(log->text + log->len, sizeof(log->text) - log->len,
		"%d/%d %s\n", done, total, what ? "kernel" : "end");
}

/* A model through the graph level: fused into two kernels (matmul + bias
 * + relu, matmul + the output's copy) with the hidden layer in the arena,
 * run on DLPack tensors and compared with plain loops and with the
 * reference interpreter on the whole model; the argument checks; a
 * symbolic batch that is not fixed is an error naming the tensor. */
START_TEST(model_through_graph_level)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *opts = ein_options_alloc();
	float w1[16], b1[4], w2[12], x[8], y[6] = { 0 }, yref[6] = { 0 };
	float want[6];
	int64_t sx[2] = { 2, 4 }, sy[2] = { 2, 3 };
	DLTensor tx = { x, { kDLCPU, 0 }, 2, { kDLFloat, 32, 1 }, sx, NULL, 0 };
	DLTensor ty = { y, { kDLCPU, 0 }, 2, { kDLFloat, 32, 1 }, sy, NULL, 0 };
	DLTensor tr = ty, d, *in[] = { &tx }, *out[] = { &ty };
	DLTensor *outr[] = { &tr };
	char path[] = "/tmp/check_api_mlpXXXXXX";
	struct progress_log plog = { "", 0 };
	void *user = NULL;
	ein_model *m;
	int i, fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	mlp_weights(w1, b1, w2);
	for (i = 0; i < 8; ++i)
		x[i] = (float) (i % 3) - (float) i / 4;
	mlp_expected(x, w1, b1, w2, want);
	tr.data = yref;
	ck_assert_int_eq(onnx_build_mlp(path, "N", w1, b1, w2), 0);
	ck_assert_ptr_null(ein_model_load(ctx, path, NULL));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SHAPE);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"tensor 'x' has a symbolic dimension (N, 4)"));
	ein_options_fix_size(opts, "N", 2);
	ein_options_set_auto(opts, 0);
	/* The progress function: before each kernel, then once at the end. */
	ck_assert_int_eq(ein_options_set_progress(NULL, &log_progress, &plog),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_progress(opts, &log_progress, &plog),
		EIN_OK);
	m = ein_model_load(ctx, path, opts);
	ck_assert_msg(m != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_str_eq(plog.text, "0/2 kernel\n1/2 kernel\n2/2 end\n");
	ck_assert(ein_options_get_progress(opts, &user) == &log_progress);
	ck_assert_ptr_eq(user, &plog);
	ein_options_set_progress(opts, NULL, NULL);
	ck_assert(ein_options_get_progress(opts, NULL) == NULL);
	/* Each kernel as compiled: no schedule file (--no-auto: the
	 * default schedule). */
	ck_assert_ptr_nonnull(ein_model_get_kernel(m, 1));
	ck_assert_ptr_null(ein_kernel_get_schedule(ein_model_get_kernel(m, 1)));
	ck_assert_ptr_null(ein_model_get_kernel(m, 2));
	ck_assert_ptr_null(ein_model_get_kernel(NULL, 0));
	ck_assert_int_eq(ein_model_n_input(m), 1);
	ck_assert_int_eq(ein_model_n_output(m), 1);
	ck_assert_str_eq(ein_model_get_input_name(m, 0), "x");
	ck_assert_str_eq(ein_model_get_output_name(m, 0), "y");
	ck_assert_str_eq(ein_model_get_output_type(m, 0), "float32");
	ck_assert_ptr_null(ein_model_get_output_type(m, 1));
	ck_assert_int_eq(ein_model_get_output(m, 0, &d), EIN_OK);
	ck_assert_int_eq(d.ndim, 2);
	ck_assert_int_eq(d.shape[0], 2);
	ck_assert_int_eq(d.shape[1], 3);
	ck_assert_int_eq(ein_model_get_input(m, 1, &d), EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_model_n_kernel(m), 2);
	/* Named after the file, then the kernel and its first operator. */
	ck_assert_ptr_nonnull(strstr(ein_model_get_kernel_name(m, 0),
		"check_api_mlp"));
	ck_assert_str_eq(ein_model_get_kernel_name(m, 0) +
		strlen(ein_model_get_kernel_name(m, 0)) - 10, "_k0_matmul");
	ck_assert_str_eq(ein_model_get_kernel_nodes(m, 0),
		"MatMul mm1 + Add bias1 + Relu relu1");
	ck_assert_str_eq(ein_model_get_kernel_nodes(m, 1),
		"MatMul mm2 + Output y");
	ck_assert_ptr_null(ein_model_get_kernel_name(m, 2));
	/* h, (2, 4) floats, is the one tensor between the kernels. */
	ck_assert_int_eq(ein_model_arena_bytes(m), 32);
	ck_assert_int_eq(ein_model_tensor_bytes(m), 32);
	ck_assert_int_eq(ein_model_run(m, in, 1, out, 1), EIN_OK);
	for (i = 0; i < 6; ++i)
		ck_assert_float_eq(y[i], want[i]);
	ck_assert_int_eq(ein_model_run_reference(m, in, 1, outr, 1), EIN_OK);
	for (i = 0; i < 6; ++i)
		ck_assert_float_eq(yref[i], want[i]);
	ck_assert(ein_model_get_kernel_seconds(m, 1) >= 0);
	ck_assert_int_eq(ein_model_run(m, in, 1, out, 0), EIN_ERROR_SHAPE);
	ck_assert_int_eq(ein_model_run(m, in, 0, out, 1), EIN_ERROR_SHAPE);
	ck_assert_int_eq(ein_model_run(NULL, in, 1, out, 1),
		EIN_ERROR_INVALID);
	ty.shape = sx;
	ck_assert_int_eq(ein_model_run(m, in, 1, out, 1), EIN_ERROR_SHAPE);
	ck_assert_ptr_nonnull(strstr(ein_model_get_source(m),
		"_k1_matmul(float32(2, 4) h,"));
	ck_assert_ptr_nonnull(strstr(ein_model_get_memory_plan(m),
		"arena 32 bytes"));
	ein_model_free(m);
	ein_model_free(NULL);
	{
		/* The interpreter-only kernel the reference above uses. */
		ein_program *p = ein_program_parse(ctx, "def f(float32(N) a) "
			"-> (float32(N) b) { b(i) = a(i) * 2 }", NULL);
		ein_kernel *k = ein_kernel_reference(p, NULL);
		float a[3] = { 1, -2, 0.5f }, b[3] = { 0 };
		int64_t n3[1] = { 3 };
		DLTensor ta = { a, { kDLCPU, 0 }, 1, { kDLFloat, 32, 1 }, n3,
			NULL, 0 }, tb = ta, *args[2] = { &ta, &tb };

		tb.data = b;
		ein_program_free(p);
		ck_assert_ptr_nonnull(k);
		ck_assert_int_eq(ein_kernel_n_tensor(k), 2);
		ck_assert_int_eq(ein_kernel_call(k, args, 2, n3, 1),
			EIN_ERROR_INVALID);
		ck_assert_int_eq(ein_kernel_call_reference(k, args, 2, n3, 1),
			EIN_OK);
		ck_assert_float_eq(b[1], -4);
		ck_assert_ptr_null(ein_kernel_reference(NULL, NULL));
		ein_kernel_free(k);
	}
	ck_assert_int_eq(ein_model_n_kernel(NULL), -1);
	ck_assert_ptr_null(ein_model_load(NULL, path, NULL));
	/* An int8 model through the graph level reads its profile at the
	 * load (tests/quant.test runs one); no profile again: in float. */
	ck_assert_int_eq(ein_options_set_quantize(NULL, "p.json",
		EIN_CALIBRATION_MINMAX), EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_quantize(opts, "p.json",
		(ein_calibration) 7), EIN_ERROR_INVALID);
	/* Activations of 7 or 8 bits (tests/quant_act7.test runs 7). */
	ck_assert_int_eq(ein_options_set_activation_bits(NULL, 7),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_activation_bits(opts, 6),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_activation_bits(opts, 9),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_activation_bits(opts, 7), EIN_OK);
	ck_assert_int_eq(ein_options_set_activation_bits(opts, 8), EIN_OK);
	ck_assert_int_eq(ein_options_set_quantize(opts,
		"/nonexistent/p.json", EIN_CALIBRATION_KL), EIN_OK);
	ck_assert_ptr_null(ein_model_plan(ctx, path, opts));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_IO);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"/nonexistent/p.json: cannot read the profile"));
	ck_assert_int_eq(ein_options_set_quantize(opts, NULL,
		EIN_CALIBRATION_MINMAX), EIN_OK);
	m = ein_model_plan(ctx, path, opts);
	ck_assert_msg(m != NULL, "%s", ein_ctx_last_error(ctx));
	ein_model_free(m);
	ein_options_free(opts);
	ein_ctx_free(ctx);
	unlink(path);
}
END_TEST

/* A chain of four dense layers of the same shape: the first three fuse
 * into kernels that are the same definition modulo names (the fourth
 * also writes the output), so three kernels run one code, compiled once,
 * each under its own signature, and the results are those of plain
 * loops (small integers and halves: exact in float). */
START_TEST(model_compiles_repeated_kernels_once)
{
	enum { L = 4 };
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *opts = ein_options_alloc();
	float w[16 * L], b[4 * L], x[8], h[8], y[8] = { 0 };
	int64_t sx[2] = { 2, 4 };
	DLTensor tx = { x, { kDLCPU, 0 }, 2, { kDLFloat, 32, 1 }, sx, NULL, 0 };
	DLTensor ty = { y, { kDLCPU, 0 }, 2, { kDLFloat, 32, 1 }, sx, NULL, 0 };
	DLTensor *in[] = { &tx }, *out[] = { &ty };
	char path[] = "/tmp/check_api_chainXXXXXX";
	const ein_kernel *k0, *k1;
	ein_model *m;
	int i, j, l, fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	for (i = 0; i < 16 * L; ++i)
		w[i] = (float) ((i * 7 + i / 16) % 5 - 2) / 2;
	for (i = 0; i < 4 * L; ++i)
		b[i] = (float) (i % 3) - 1;
	for (i = 0; i < 8; ++i)
		x[i] = (float) (i % 4) - 1;
	ck_assert_int_eq(onnx_build_chain(path, L, w, b), 0);
	ein_options_fix_size(opts, "N", 2);
	ein_options_set_auto(opts, 0);
	m = ein_model_load(ctx, path, opts);
	ck_assert_msg(m != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert_int_eq(ein_model_n_kernel(m), L);
	ck_assert_int_eq(ein_model_n_compiled(m), 2);
	ck_assert_int_eq(ein_model_n_compiled(NULL), -1);
	k0 = ein_model_get_kernel(m, 0);
	k1 = ein_model_get_kernel(m, 1);
	ck_assert(!ein_kernel_get_schedule_reason(k0) ||
		!strstr(ein_kernel_get_schedule_reason(k0), "the code of"));
	ck_assert_ptr_nonnull(strstr(ein_kernel_get_schedule_reason(k1),
		"the code of '"));
	ck_assert_ptr_nonnull(strstr(ein_kernel_get_schedule_reason(
		ein_model_get_kernel(m, 2)), ein_model_get_kernel_name(m, 0)));
	/* Each keeps its own names. */
	ck_assert_str_eq(ein_kernel_get_tensor_name(k0, 0), "x");
	ck_assert_str_ne(ein_kernel_get_tensor_name(k1, 0), "x");
	ck_assert_int_eq(ein_model_run(m, in, 1, out, 1), EIN_OK);
	for (l = 0; l < L; ++l) {
		for (i = 0; i < 2; ++i)
			for (j = 0; j < 4; ++j) {
				float s = b[4 * l + j];
				int k;

				for (k = 0; k < 4; ++k)
					s += x[4 * i + k] * w[16 * l + 4 * k + j];
				h[4 * i + j] = s > 0 ? s : 0;
			}
		memcpy(x, h, sizeof(h));
	}
	for (i = 0; i < 8; ++i)
		ck_assert_float_eq(y[i], h[i]);
	ein_model_free(m);
	unlink(path);
	ein_options_free(opts);
	ein_ctx_free(ctx);
}
END_TEST

/* The ONNX importer's and the .npy functions' argument checks, and a
 * tensor written as .npy and read back (ein run --output, --input). */
START_TEST(onnx_and_npy_arguments)
{
	ein_ctx *ctx = ein_ctx_alloc();
	float v[6] = { 1, -2, 3.5f, 0, 7, -0.25f }, back[6] = { 0 };
	int64_t shape[2] = { 2, 3 }, other[2] = { 3, 2 };
	DLTensor t = { v, { kDLCPU, 0 }, 2, { kDLFloat, 32, 1 }, shape,
		NULL, 0 };
	DLTensor u = t;
	char path[] = "/tmp/check_api_npyXXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_ptr_null(ein_onnx_import(NULL, "m.onnx", NULL));
	ck_assert_ptr_null(ein_onnx_import(ctx, NULL, NULL));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_INVALID);
	ck_assert_ptr_null(ein_onnx_import(ctx, path, NULL));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_IO);
	ck_assert_int_eq(ein_onnx_n_const(NULL), -1);
	ck_assert_ptr_null(ein_onnx_get_const_name(NULL, 0));
	ck_assert_int_eq(ein_onnx_get_const(NULL, 0, &u), EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_tensor_write_npy(ctx, path, NULL),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_tensor_write_npy(ctx, path, &t), EIN_OK);
	u.data = back;
	ck_assert_int_eq(ein_tensor_read_file(ctx, path, "u", &u), EIN_OK);
	ck_assert_mem_eq(back, v, sizeof(v));
	u.shape = other;
	ck_assert_int_eq(ein_tensor_read_file(ctx, path, "u", &u),
		EIN_ERROR_SHAPE);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"of tensor 'u''s shape"));
	unlink(path);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(null_argument_named)
{
	struct fixture f;
	int64_t shape[2];
	ein_aot *aot;
	int ref;

	setup(&f);
	for (ref = 0; ref < 2; ++ref) {
		ein_status (*call)(ein_kernel *, DLTensor *const *, int,
			const int64_t *, int) = ref ?
			ein_kernel_call_reference : ein_kernel_call;

		assert_shape_error(&f, call(f.k, NULL, 3, f.sizes, 3),
			"kernel 'matmul': the array of tensors is NULL (it "
			"takes 3)");
		assert_shape_error(&f, call(f.k, f.args, 3, NULL, 3),
			"kernel 'matmul': the array of sizes is NULL (it "
			"takes 3)");
		f.args[2] = NULL;
		assert_shape_error(&f, call(f.k, f.args, 3, f.sizes, 3),
			"tensor 'C' (argument 2) is NULL");
		f.args[2] = &f.c.dl;
		f.b.dl.shape = NULL;
		assert_shape_error(&f, call(f.k, f.args, 3, f.sizes, 3),
			"tensor 'B' (argument 1) has a NULL shape");
		f.b.dl.shape = f.b.shape;
	}
	ck_assert_int_eq(ein_kernel_tensor_shape(f.k, 2, f.sizes, 3, NULL),
		EIN_ERROR_INVALID);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(f.ctx),
		"the shape array for tensor 'C' is NULL"));
	ck_assert_int_eq(ein_kernel_tensor_shape(f.k, 3, f.sizes, 3, shape),
		EIN_ERROR_INVALID);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(f.ctx),
		"kernel 'matmul' has no tensor 3 (it has 3)"));
	ck_assert_int_eq(ein_kernel_tensor_dtype(f.k, 1, NULL),
		EIN_ERROR_INVALID);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(f.ctx),
		"the result pointer for tensor 'B' is NULL"));
	aot = ein_aot_alloc(f.prog);
	ck_assert_ptr_nonnull(aot);
	ck_assert_int_eq(ein_aot_fix_size(aot, NULL, 5), EIN_ERROR_INVALID);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(f.ctx),
		"ein_aot_fix_size: the size name is NULL"));
	ck_assert_int_eq(ein_aot_set_const(aot, "B", NULL), EIN_ERROR_INVALID);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(f.ctx),
		"ein_aot_set_const: the file name is NULL"));
	ck_assert_int_eq(ein_aot_write_header(aot, NULL), EIN_ERROR_INVALID);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(f.ctx),
		"ein_aot_write_header: the file name is NULL"));
	ein_aot_free(aot);
	teardown(&f);
}
END_TEST

/* A tensor count of INT_MAX is an error, not an array of INT_MAX
 * pointers on the stack. */
START_TEST(huge_tensor_count)
{
	struct fixture f;

	setup(&f);
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, INT_MAX, f.sizes,
		3), "kernel 'matmul' takes 3 tensors, not 2147483647");
	assert_shape_error(&f, ein_kernel_call_reference(f.k, f.args, INT_MAX,
		f.sizes, 3), "kernel 'matmul' takes 3 tensors, not 2147483647");
	teardown(&f);
}
END_TEST

/* An ndim beyond the descriptor's shape and strides arrays is reported
 * before any of them is read past the kernel's own number of
 * dimensions. */
START_TEST(ndim_beyond_shape)
{
	struct fixture f;
	int64_t strides[2] = { 4, 1 };

	setup(&f);
	f.a.dl.strides = strides;
	f.a.dl.ndim = 100000;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"tensor 'A' (argument 0) has 100000 dimensions, the kernel "
		"expects 2");
	teardown(&f);
}
END_TEST

/* The context keeps the message of the last failing call, not those of
 * every call since it was made: 100,000 failed calls leave one message. */
START_TEST(error_text_bounded)
{
	struct fixture f;
	int i;

	setup(&f);
	for (i = 0; i < 100000; ++i)
		ein_kernel_call(f.k, f.args, 3, f.sizes, 2);
	f.sizes[1] = 0;
	assert_shape_error(&f, ein_kernel_call(f.k, f.args, 3, f.sizes, 3),
		"size K is 0");
	ck_assert_msg(strlen(ein_ctx_last_error(f.ctx)) < 200,
		"%zu bytes of messages", strlen(ein_ctx_last_error(f.ctx)));
	ck_assert_ptr_null(strstr(ein_ctx_last_error(f.ctx), "takes 3 sizes"));
	teardown(&f);
}
END_TEST

/* An output that shares memory with another tensor of the call is an
 * error naming both (the code assumes its pointers do not alias: a matmul
 * into its own input got 4095 of 4096 elements wrong), with byte offsets
 * and strides taken into account; tensors side by side in one buffer are
 * fine. */
START_TEST(aliased_output)
{
	struct fixture f;
	float *buf = calloc(5 * 4 + 4 * 6 + 5 * 6, sizeof(float));
	int64_t strides[2] = { 1000, 1 };
	int ref;

	setup(&f);
	ck_assert_ptr_nonnull(buf);
	for (ref = 0; ref < 2; ++ref) {
		ein_status (*call)(ein_kernel *, DLTensor *const *, int,
			const int64_t *, int) = ref ?
			ein_kernel_call_reference : ein_kernel_call;

		f.a.dl.data = buf;
		f.b.dl.data = buf + 5 * 4;
		f.c.dl.data = buf + 5 * 4 + 4 * 6;
		ck_assert_int_eq(call(f.k, f.args, 3, f.sizes, 3), EIN_OK);
		f.c.dl.data = buf;
		f.c.dl.byte_offset = 5 * 4 * sizeof(float) - 1;
		assert_shape_error(&f, call(f.k, f.args, 3, f.sizes, 3),
			"output 'C' (argument 2) shares memory with input 'A' "
			"(argument 0)");
		f.c.dl.byte_offset = 0;
		f.c.dl.data = buf + 5 * 4 + 4 * 6 - 1;
		assert_shape_error(&f, call(f.k, f.args, 3, f.sizes, 3),
			"output 'C' (argument 2) shares memory with input 'B' "
			"(argument 1)");
		/* K = 1: B is 1 x 6 with a row stride (of an extent of 1) that
		 * addresses nothing, just before C. */
		f.c.dl.data = buf + 5 * 4 + 4 * 6;
		f.sizes[1] = 1;
		f.a.shape[1] = 1;
		f.b.shape[0] = 1;
		f.b.dl.strides = strides;
		f.b.dl.data = buf + 5 * 4 + 4 * 6 - 6;
		ck_assert_int_eq(call(f.k, f.args, 3, f.sizes, 3), EIN_OK);
		f.b.dl.byte_offset = sizeof(float);
		assert_shape_error(&f, call(f.k, f.args, 3, f.sizes, 3),
			"output 'C' (argument 2) shares memory with input 'B'");
		f.b.dl.strides = NULL;
		f.b.dl.byte_offset = 0;
		f.b.shape[0] = 4;
		f.a.shape[1] = 4;
		f.sizes[1] = 4;
	}
	f.a.dl.data = f.a.f;
	f.b.dl.data = f.b.f;
	f.c.dl.data = f.c.f;
	free(buf);
	teardown(&f);
}
END_TEST

/* ein_kernel_flops counts domains that are not boxes without visiting
 * their points: a triangular product at N = 3000 (2 N (N + 1) (N + 2) / 6
 * multiply-adds, 4.5 million rows to enumerate) and a literal extent of
 * 2^62 (which never finished) are counted exactly. */
START_TEST(flops_not_enumerated)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = tt_compile(ctx, &prog, "def tri(float32(N, N) A, "
		"float32(N, N) B) -> (float32(N, N) C) {\n"
		"    C(i, j) += A(i, k) * B(k, j) where k in j : i + 1\n}\n"
		"def far(float32(4) X, float32(4611686018427387904) T) -> "
		"(float32(4) Y) {\n"
		"    Y(i) +=! X(i) * T(k) where k in i : 4611686018427387904\n"
		"}\n",
		"tri");
	ein_kernel *far = ein_kernel_compile(prog, "far");
	int64_t n = 3000;

	ck_assert_msg(far != NULL, "%s", ein_ctx_last_error(ctx));
	ck_assert(ein_kernel_flops(k, &n, 1) == 2.0 * n * (n + 1) * (n + 2) / 6);
	/* k from i to 2^62 - 1 for i = 0 .. 3: 4 * 2^62 - 6 products and
	 * as many reduction steps, 2^65 as a double. */
	ck_assert(ein_kernel_flops(far, NULL, 0) ==
		2 * (4.0 * 4611686018427387904.0 - 6));
	ein_kernel_free(far);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* An x86-64 target with an unknown processor made LLVM abort the calling
 * application (a processor without 64-bit mode: "64-bit code requested on
 * a subtarget that doesn't support it"); it is now an EIN_ERROR_INVALID
 * error, and a known 32-bit processor compiles. */
START_TEST(aot_bad_cpu_does_not_abort)
{
	static const char *const bad[][2] = {
		{ "notacpu", NULL }, { NULL, "+notafeature" },
		{ NULL, "avx2" }, { "x86-64", "-64bit" },
	};
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, NULL);
	char path[] = "/tmp/ein-check-cpu-XXXXXX";
	int i, fd = mkstemp(path);
	ein_aot *aot;

	ck_assert_int_ge(fd, 0);
	close(fd);
	for (i = 0; i < 4; ++i) {
		aot = ein_aot_alloc(prog);
		ck_assert_int_eq(ein_aot_set_target_triple(aot,
			"x86_64-unknown-linux-gnu", bad[i][0], bad[i][1]),
			EIN_ERROR_INVALID);
		ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
			i == 0 ? "'notacpu' is not a processor" :
			i == 3 ? "64bit" : "is not a feature"));
		ein_aot_free(aot);
	}
	aot = ein_aot_alloc(prog);
	ck_assert_int_eq(ein_aot_set_target_triple(aot,
		"x86_64-unknown-linux-gnu", "pentium4", NULL), EIN_OK);
	ck_assert_int_eq(ein_aot_add_def(aot, "matmul", NULL), EIN_OK);
	ck_assert_int_eq(ein_aot_write(aot, path, EIN_AOT_OBJECT), EIN_OK);
	ein_aot_free(aot);
	unlink(path);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* The number of entries of directory "dir" other than . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* ein compile -o keep.o --header /unwritable/keep.h replaced keep.o and
 * then failed: the object no longer matched its header.  Now neither file
 * changes when one cannot be written. */
START_TEST(aot_failed_header_keeps_object)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, NULL);
	ein_aot *aot = ein_aot_alloc(prog);
	char dir[] = "/tmp/ein-check-out-XXXXXX", obj[64], bad[80];
	FILE *f;
	char buf[8] = "";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(obj, sizeof(obj), "%s/keep.o", dir);
	snprintf(bad, sizeof(bad), "%s/missing/keep.h", dir);
	f = fopen(obj, "w");
	fputs("old", f);
	fclose(f);
	ck_assert_int_eq(ein_aot_add_def(aot, "matmul", NULL), EIN_OK);
	ck_assert_int_eq(ein_aot_write_files(aot, obj, EIN_AOT_OBJECT, bad),
		EIN_ERROR_IO);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx), bad));
	f = fopen(obj, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "old");
	ck_assert_int_eq(count_entries(dir), 1);
	unlink(obj);
	rmdir(dir);
	ein_aot_free(aot);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A compile killed (SIGINT, SIGTERM) while it wrote its outputs left
 * "path.ein-PID-N" temporaries behind, as large as the object.  They have
 * no name now until they are renamed. */
START_TEST(interrupted_write_leaves_no_temporary)
{
	char dir[] = "/tmp/ein-check-int-XXXXXX", path[64];
	static char data[1 << 20];
	struct ein_out_piece p = { data, sizeof(data), -1, 0 };
	int status;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/big.o", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ein_ctx *ctx = ein_ctx_alloc();
		struct ein_outfile_set *set = ein_outfile_set_alloc(ctx);

		if (ein_outfile_set_add(set, path, &p, 1, 0) < 0)
			_exit(1);
		/* Gone before the rename, running no cleanup, as a process
		 * that SIGINT or SIGTERM ends. */
		_exit(2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	ck_assert_int_eq(count_entries(dir), 0);
	rmdir(dir);
}
END_TEST

/* A compile over its budget (ein_options_set_compile_timeout) stopped
 * nowhere: a guard of seven '%' terms kept isl busy for minutes.  It now
 * fails with EIN_ERROR_BUDGET in about its budget, and the context
 * compiles again afterwards (isl's abort is undone). */
START_TEST(compile_over_budget)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx,
		"def g(float32(N) A) -> (float32(N) B) {\n"
		"    B(i) +=! (i % 2 == 0 || i % 3 == 1 || i % 5 == 2 || "
		"i % 7 == 3 || i % 11 == 4 || i % 13 == 5 || i % 17 == 6) "
		"? A(i) : 0\n}\n" "def s(float32(N) A) -> (float32(N) B) {\n"
		"    B(i) = A(i) * 2.0\n}\n", NULL);
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;

	ck_assert_ptr_nonnull(prog);
	ck_assert_int_eq(ein_options_set_compile_timeout(opts, -1),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_compile_timeout(opts, NAN),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_compile_timeout(NULL, 1),
		EIN_ERROR_INVALID);
	ck_assert_int_eq(ein_options_set_compile_timeout(opts, 0.5), EIN_OK);
	ck_assert_ptr_null(ein_kernel_compile_with(prog, "g", opts));
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_BUDGET);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"compilation exceeded its budget"));
	k = ein_kernel_compile_with(prog, "s", opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	ein_kernel_free(k);
	ein_options_free(opts);
	ein_program_free(prog);
	ein_ctx_free(ctx);
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
	tcase_add_test(tc, in_place_signature);
	tcase_add_test(tc, wrong_shape);
	tcase_add_test(tc, shapes_kept_per_sizes);
	tcase_add_test(tc, wrong_rank);
	tcase_add_test(tc, wrong_counts);
	tcase_add_test(tc, wrong_type_and_layout);
	tcase_add_test(tc, unknown_definition);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, show_stages);
	tcase_add_test(tc, kernel_outlives_program);
	tcase_add_loop_test(tc, concurrent_calls, 0, 2);
	tcase_add_test(tc, compile_cache);
	tcase_add_test(tc, automatic_schedule_option);
	tcase_add_test(tc, compile_cache_errors);
	tcase_add_test(tc, fixed_sizes);
	tcase_add_test(tc, fixed_sizes_invalid);
	tcase_add_test(tc, fixed_size_above_int_max);
	tcase_add_test(tc, flops_of_size_above_int_max);
	tcase_add_test(tc, ops_of_an_integer_kernel);
	tcase_add_test(tc, null_argument_named);
	tcase_add_test(tc, target_names);
	tcase_add_test(tc, show_opencl);
	tcase_add_test(tc, onnx_and_npy_arguments);
	tcase_add_test(tc, model_through_graph_level);
	tcase_add_test(tc, model_compiles_repeated_kernels_once);
	tcase_add_test(tc, huge_tensor_count);
	tcase_add_test(tc, ndim_beyond_shape);
	tcase_add_test(tc, error_text_bounded);
	tcase_add_test(tc, aliased_output);
	tcase_add_test(tc, flops_not_enumerated);
	tcase_add_test(tc, aot_bad_cpu_does_not_abort);
	tcase_add_test(tc, aot_failed_header_keeps_object);
	tcase_add_test(tc, interrupted_write_leaves_no_temporary);
	tcase_add_test(tc, compile_over_budget);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
