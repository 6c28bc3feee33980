/*
 * check_opencl.c: the OpenCL runtime through the library (issue 20,
 * docs/opencl.md) on the machine's OpenCL device (PoCL in CI): calls at
 * growing and shrinking sizes (kept buffers reused or replaced),
 * concurrent calls on one kernel and on two, kDLOpenCL tensors (cl_mem
 * buffers of the kernel's context, alone and mixed with host tensors),
 * every result against the reference interpreter; tensors on the wrong
 * device or of another context are errors; a second compile of the same
 * definition for the device is a compile-cache hit (no device build); a
 * profiled kernel reports its device time; a lazy build happens at the
 * first call, and fails there for a device that does not exist.  Exits
 * 77 (skipped) only when no OpenCL device exists.
 *
 * The test makes its cl_mem with its own libOpenCL: the ICD loader
 * dispatches through the context's table to the driver that ein loaded.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <CL/cl.h>
#include "ein.h"
#include "ctx.h"
#include "driver/options.h"
#include "runtime/cache.h"
#include "testutil.h"

static const char matmul_src[] =
	"def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
	"    C(i, j) +=! A(i, k) * B(k, j)\n"
	"}\n"
	"def scale(float32(N) X) -> (Y) {\n"
	"    Y(i) = 2 * X(i) + 1\n"
	"}\n";

/* Compile "def" of "prog" (in "ctx") for the OpenCL target. */
static ein_kernel *compile_cl(ein_ctx *ctx, ein_program *prog,
	const char *def)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;

	ck_assert_int_eq(ein_options_set_target(opts, "opencl"), EIN_OK);
	k = ein_kernel_compile_with(prog, def, opts);
	ein_options_free(opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	return k;
}

/* The largest difference between "a" and "b". */
static double max_diff(const struct tt *a, const struct tt *b)
{
	double d = 0;
	int64_t i;

	for (i = 0; i < a->n; ++i)
		if (a->f[i] - b->f[i] > d || b->f[i] - a->f[i] > d)
			d = a->f[i] > b->f[i] ? a->f[i] - b->f[i] :
				b->f[i] - a->f[i];
	return d;
}

/* Run matmul "k" at M x K . K x N on the device and with the reference,
 * from inputs drawn from "seed"; return the largest difference, or 1e30
 * if a call failed (no assertion: threads call this too). */
static double matmul_once(ein_kernel *k, int64_t m, int64_t n, int64_t kk,
	uint64_t seed)
{
	int64_t sa[2] = { m, kk }, sb[2] = { kk, n }, sc[2] = { m, n };
	int64_t sizes[3];
	struct tt a, b, c, ref;
	DLTensor *t[3] = { &a.dl, &b.dl, &c.dl };
	double d;
	int i;

	for (i = 0; i < 3; ++i) {
		const char *name = ein_kernel_get_size_name(k, i);

		sizes[i] = !strcmp(name, "M") ? m : !strcmp(name, "N") ? n : kk;
	}
	tt_alloc(&a, 2, sa);
	tt_alloc(&b, 2, sb);
	tt_alloc(&c, 2, sc);
	tt_alloc(&ref, 2, sc);
	tt_randomize(&a, seed);
	tt_randomize(&b, seed + 1);
	tt_randomize(&c, seed + 2);
	d = ein_kernel_call(k, t, 3, sizes, 3) == EIN_OK ? 0 : 1e30;
	t[2] = &ref.dl;
	if (ein_kernel_call_reference(k, t, 3, sizes, 3) != EIN_OK)
		d = 1e30;
	if (d == 0)
		d = max_diff(&c, &ref);
	tt_free(&a);
	tt_free(&b);
	tt_free(&c);
	tt_free(&ref);
	return d;
}

/* Calls at sizes that grow (the kept buffers are replaced), shrink (they
 * are reused, larger than needed) and grow again, each against the
 * reference: a stale or short buffer would show in the result. */
START_TEST(buffers_reused)
{
	static const int64_t size[][3] = {
		{ 5, 4, 3 }, { 37, 29, 13 }, { 3, 2, 7 }, { 37, 29, 13 },
		{ 64, 65, 33 }, { 1, 1, 1 },
	};
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	ein_kernel *k;
	size_t i;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	k = compile_cl(ctx, prog, "matmul");
	for (i = 0; i < sizeof(size) / sizeof(size[0]); ++i)
		ck_assert_msg(matmul_once(k, size[i][0], size[i][1],
			size[i][2], 10 * i) < 1e-4, "call %zu", i);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

#define N_THREAD 3
#define N_CALL 40

/* k: the kernel a thread calls (matmul or scale); id: the thread's
 * number; bad: how many of its calls were wrong. */
struct worker {
	ein_kernel *k;
	int id;
	int bad;
};

/* Calls of scale at sizes of its own, against 2 x + 1. */
static void scale_calls(struct worker *w)
{
	int c;

	for (c = 0; c < N_CALL; ++c) {
		int64_t n = 17 + 13 * w->id + c, i;
		struct tt x, y;
		DLTensor *t[2] = { &x.dl, &y.dl };

		tt_alloc(&x, 1, &n);
		tt_alloc(&y, 1, &n);
		tt_randomize(&x, 100 * w->id + c);
		if (ein_kernel_call(w->k, t, 2, &n, 1) != EIN_OK)
			w->bad++;
		for (i = 0; i < n; ++i)
			if (y.f[i] != 2 * x.f[i] + 1) {
				w->bad++;
				break;
			}
		tt_free(&x);
		tt_free(&y);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	int c;

	if (!strcmp(ein_kernel_get_tensor_name(w->k, 0), "X")) {
		scale_calls(w);
		return NULL;
	}
	for (c = 0; c < N_CALL; ++c)
		if (!(matmul_once(w->k, 9 + w->id + c, 11 + c, 5 + w->id,
				1000 * w->id + c) < 1e-4))
			w->bad++;
	return NULL;
}

/* Threads calling one matmul kernel and, at the same time, a scale
 * kernel on the same device (so the same OpenCL queue): each call's
 * result is its own. */
START_TEST(concurrent_calls)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	struct worker w[N_THREAD + 1];
	pthread_t tid[N_THREAD + 1];
	ein_kernel *mm, *sc;
	int i;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	mm = compile_cl(ctx, prog, "matmul");
	sc = compile_cl(ctx, prog, "scale");
	for (i = 0; i <= N_THREAD; ++i) {
		w[i].k = i < N_THREAD ? mm : sc;
		w[i].id = i;
		w[i].bad = 0;
		ck_assert_int_eq(pthread_create(&tid[i], NULL, &work, &w[i]),
			0);
	}
	for (i = 0; i <= N_THREAD; ++i) {
		ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
		ck_assert_msg(w[i].bad == 0, "thread %d: %d of %d calls wrong",
			i, w[i].bad, N_CALL);
	}
	ein_kernel_free(mm);
	ein_kernel_free(sc);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A kDLOpenCL tensor "t" of "shape" over a new buffer of "context",
 * holding "bytes" (at least the tensor's) filled from "host" if not
 * NULL, through "queue". */
static cl_mem device_tensor(DLTensor *t, int ndim, int64_t *shape,
	cl_context context, cl_command_queue queue, size_t bytes,
	const float *host)
{
	cl_int err;
	cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL,
		&err);

	ck_assert_msg(mem != NULL, "clCreateBuffer: %d", (int) err);
	if (host)
		ck_assert_int_eq(clEnqueueWriteBuffer(queue, mem, CL_TRUE, 0,
			bytes, host, 0, NULL, NULL), CL_SUCCESS);
	memset(t, 0, sizeof(*t));
	t->data = mem;
	t->device.device_type = kDLOpenCL;
	t->ndim = ndim;
	t->shape = shape;
	t->dtype.code = kDLFloat;
	t->dtype.bits = 32;
	t->dtype.lanes = 1;
	return mem;
}

/* matmul on device tensors, on a mix of device and host tensors, against
 * the reference; the two kernels of a context share its OpenCL context
 * and queue. */
START_TEST(device_tensors)
{
	int64_t sa[2] = { 7, 5 }, sb[2] = { 5, 9 }, sc[2] = { 7, 9 };
	int64_t sizes[3];
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	ein_kernel *k, *sc_k;
	void *context, *queue, *context2, *queue2;
	struct tt a, b, c, ref;
	DLTensor da, db, dc, *t[3];
	cl_mem ma, mb, mc;
	int i, mix;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	k = compile_cl(ctx, prog, "matmul");
	sc_k = compile_cl(ctx, prog, "scale");
	ck_assert_int_eq(ein_kernel_get_opencl(k, &context, &queue), EIN_OK);
	ck_assert_int_eq(ein_kernel_get_opencl(sc_k, &context2, &queue2),
		EIN_OK);
	ck_assert_ptr_eq(context, context2);
	ck_assert_ptr_eq(queue, queue2);
	for (i = 0; i < 3; ++i) {
		const char *name = ein_kernel_get_size_name(k, i);

		sizes[i] = !strcmp(name, "M") ? 7 : !strcmp(name, "N") ? 9 : 5;
	}
	tt_alloc(&a, 2, sa);
	tt_alloc(&b, 2, sb);
	tt_alloc(&c, 2, sc);
	tt_alloc(&ref, 2, sc);
	tt_randomize(&a, 1);
	tt_randomize(&b, 2);
	t[0] = &a.dl;
	t[1] = &b.dl;
	t[2] = &ref.dl;
	ck_assert_int_eq(ein_kernel_call_reference(k, t, 3, sizes, 3), EIN_OK);
	ma = device_tensor(&da, 2, sa, context, queue, a.n * 4, a.f);
	mb = device_tensor(&db, 2, sb, context, queue, b.n * 4, b.f);
	mc = device_tensor(&dc, 2, sc, context, queue, c.n * 4, NULL);
	/* mix 0: all on the device; 1: A and C on the host; 2: B only. */
	for (mix = 0; mix < 3; ++mix) {
		memset(c.f, 0, c.n * sizeof(float));
		t[0] = mix == 1 ? &a.dl : &da;
		t[1] = mix == 2 ? &b.dl : &db;
		t[2] = mix == 1 ? &c.dl : &dc;
		ck_assert_msg(ein_kernel_call(k, t, 3, sizes, 3) == EIN_OK,
			"mix %d: %s", mix, ein_ctx_last_error(ctx));
		if (t[2] == &dc)
			ck_assert_int_eq(clEnqueueReadBuffer(queue, mc, CL_TRUE,
				0, c.n * 4, c.f, 0, NULL, NULL), CL_SUCCESS);
		ck_assert_msg(max_diff(&c, &ref) < 1e-4, "mix %d", mix);
	}
	clReleaseMemObject(ma);
	clReleaseMemObject(mb);
	clReleaseMemObject(mc);
	tt_free(&a);
	tt_free(&b);
	tt_free(&c);
	tt_free(&ref);
	ein_kernel_free(k);
	ein_kernel_free(sc_k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Call "k" on X, Y expecting "status" and a message holding "text". */
static void expect_error(ein_ctx *ctx, ein_kernel *k, DLTensor *x,
	DLTensor *y, int64_t n, ein_status status, const char *text)
{
	DLTensor *t[2] = { x, y };

	ck_assert_int_eq(ein_kernel_call(k, t, 2, &n, 1), status);
	ck_assert_msg(strstr(ein_ctx_last_error(ctx), text) != NULL,
		"'%s' lacks '%s'", ein_ctx_last_error(ctx), text);
}

/* Tensors the kernel cannot take: on another device type, at an offset
 * in their cl_mem, in a buffer too small, of another ein context's
 * OpenCL context, or one cl_mem as input and output; the reference
 * takes host tensors only; a CPU kernel has no OpenCL queue. */
START_TEST(wrong_device)
{
	int64_t n = 16;
	ein_ctx *ctx = ein_ctx_alloc(), *ctx2 = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	ein_program *prog2 = ein_program_parse(ctx2, matmul_src, "mm.ein");
	ein_kernel *k = compile_cl(ctx, prog, "scale");
	ein_kernel *k2 = compile_cl(ctx2, prog2, "scale");
	ein_kernel *cpu = ein_kernel_compile(prog, "scale");
	void *context, *queue, *context2, *queue2;
	struct tt x, y;
	DLTensor dx, dy, small, other;
	DLTensor *t[2] = { &dx, &dy };
	cl_mem mem[4];

	ck_assert_ptr_nonnull(cpu);
	ck_assert_int_eq(ein_kernel_get_opencl(k, &context, &queue), EIN_OK);
	ck_assert_int_eq(ein_kernel_get_opencl(k2, &context2, &queue2),
		EIN_OK);
	ck_assert_ptr_ne(context, context2);
	ck_assert_int_eq(ein_kernel_get_opencl(cpu, &context2, NULL),
		EIN_ERROR_INVALID);
	tt_alloc(&x, 1, &n);
	tt_alloc(&y, 1, &n);
	mem[0] = device_tensor(&dx, 1, &n, context, queue, 64, x.f);
	mem[1] = device_tensor(&dy, 1, &n, context, queue, 64, NULL);
	mem[2] = device_tensor(&small, 1, &n, context, queue, 60, NULL);
	mem[3] = device_tensor(&other, 1, &n, context2, queue2, 64, NULL);
	x.dl.device.device_type = kDLCUDA;
	expect_error(ctx, k, &x.dl, &y.dl, n, EIN_ERROR_DEVICE,
		"tensor 'X' (argument 0) is on DLPack device type 2, but kernel "
		"'scale' runs on an OpenCL device");
	x.dl.device.device_type = kDLCPU;
	expect_error(ctx, cpu, &x.dl, &dy, n, EIN_ERROR_DEVICE,
		"tensor 'Y' (argument 1) is on DLPack device type 4 "
		"(kDLOpenCL), but kernel 'scale' runs on the CPU");
	dy.byte_offset = 4;
	expect_error(ctx, k, &x.dl, &dy, n, EIN_ERROR_DEVICE,
		"has byte_offset 4");
	dy.byte_offset = 0;
	expect_error(ctx, k, &x.dl, &small, n, EIN_ERROR_DEVICE,
		"its cl_mem holds 60 bytes, the tensor needs 64");
	expect_error(ctx, k, &other, &y.dl, n, EIN_ERROR_DEVICE,
		"belongs to another OpenCL context");
	expect_error(ctx, k, &dx, &dx, n, EIN_ERROR_SHAPE,
		"shares memory with input 'X'");
	ck_assert_int_eq(ein_kernel_call_reference(k, t, 2, &n, 1),
		EIN_ERROR_DEVICE);
	ck_assert_ptr_nonnull(strstr(ein_ctx_last_error(ctx),
		"takes host (kDLCPU) tensors only"));
	for (n = 0; n < 4; ++n)
		clReleaseMemObject(mem[n]);
	tt_free(&x);
	tt_free(&y);
	ein_kernel_free(k);
	ein_kernel_free(k2);
	ein_kernel_free(cpu);
	ein_program_free(prog);
	ein_program_free(prog2);
	ein_ctx_free(ctx);
	ein_ctx_free(ctx2);
}
END_TEST

/* The same definition compiled twice for the device (the default, here
 * EIN_OPENCL_DEVICE=0:0, and that device named) is built once: the
 * second compile is a hit of the context's compile cache, sharing the
 * first's program; a kernel compiled for the CPU is another entry. */
START_TEST(program_cached)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	ein_options *opts = ein_options_alloc();
	struct ein_cache_stats before, after;
	ein_kernel *k1, *k2, *cpu;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	setenv("EIN_OPENCL_DEVICE", "0:0", 1);
	k1 = compile_cl(ctx, prog, "scale");
	unsetenv("EIN_OPENCL_DEVICE");
	before = ein_cache_get_stats(ein_ctx_get_cache(ctx));
	ck_assert_int_eq(ein_options_set_target(opts, "opencl:0:0"), EIN_OK);
	k2 = ein_kernel_compile_with(prog, "scale", opts);
	ck_assert_msg(k2 != NULL, "%s", ein_ctx_last_error(ctx));
	after = ein_cache_get_stats(ein_ctx_get_cache(ctx));
	ck_assert_int_eq(after.hits - before.hits, 1);
	ck_assert_int_eq(after.misses - before.misses, 0);
	cpu = ein_kernel_compile(prog, "scale");
	ck_assert_ptr_nonnull(cpu);
	ck_assert_int_eq(ein_cache_get_stats(ein_ctx_get_cache(ctx)).misses -
		after.misses, 1);
	ein_kernel_free(k1);
	ein_kernel_free(k2);
	ein_kernel_free(cpu);
	ein_options_free(opts);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Compile "def" for "target" with profiling "prof" and a lazy build
 * "lazy". */
static ein_kernel *compile_opts(ein_ctx *ctx, ein_program *prog,
	const char *def, const char *target, int prof, int lazy)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;

	ck_assert_int_eq(ein_options_set_target(opts, target), EIN_OK);
	ck_assert_int_eq(ein_options_set_opencl_profiling(opts, prof), EIN_OK);
	ein_options_set_opencl_lazy(opts, lazy);
	k = ein_kernel_compile_with(prog, def, opts);
	ein_options_free(opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	return k;
}

/* The device time of a call (ein_options_set_opencl_profiling): none
 * before the first call, then positive and within the host's time of the
 * call, which also copies the tensors; none without profiling, none on
 * the CPU. */
START_TEST(device_time)
{
	ein_ctx *ctx = ein_ctx_alloc(), *plain_ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	ein_program *plain_prog = ein_program_parse(plain_ctx, matmul_src,
		"mm.ein");
	ein_kernel *k, *plain, *cpu;
	struct timespec t0, t1;
	double host, dev;

	ck_assert_msg(prog && plain_prog, "%s", ein_ctx_last_error(ctx));
	k = compile_opts(ctx, prog, "matmul", "opencl", 1, 0);
	ck_assert(ein_kernel_get_device_seconds(k) < 0);
	ck_assert(matmul_once(k, 37, 29, 13, 1) < 1e-3);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert(matmul_once(k, 37, 29, 13, 2) < 1e-3);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	host = (double) (t1.tv_sec - t0.tv_sec) +
		(double) (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	dev = ein_kernel_get_device_seconds(k);
	ck_assert_msg(dev > 0 && dev < host, "device %g s, host %g s", dev,
		host);
	plain = compile_opts(plain_ctx, plain_prog, "matmul", "opencl", 0, 0);
	ck_assert(matmul_once(plain, 5, 6, 7, 3) < 1e-3);
	ck_assert(ein_kernel_get_device_seconds(plain) < 0);
	cpu = ein_kernel_compile(prog, "matmul");
	ck_assert(matmul_once(cpu, 5, 6, 7, 4) < 1e-3);
	ck_assert(ein_kernel_get_device_seconds(cpu) < 0);
	ein_kernel_free(k);
	ein_kernel_free(plain);
	ein_kernel_free(cpu);
	ein_program_free(prog);
	ein_program_free(plain_prog);
	ein_ctx_free(ctx);
	ein_ctx_free(plain_ctx);
}
END_TEST

/* A lazy build (the tuner's: ein_options_set_opencl_lazy) happens at the
 * first call or ein_kernel_get_opencl, and its failure (a device that
 * does not exist) is that call's error, every time, never a crash. */
START_TEST(lazy_build)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "mm.ein");
	ein_kernel *k, *bad;
	void *context = NULL, *queue = NULL;
	int64_t s4[2] = { 4, 4 }, sizes[3] = { 4, 4, 4 };
	struct tt a, b, c;
	DLTensor *t[3] = { &a.dl, &b.dl, &c.dl };
	int i;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	k = compile_opts(ctx, prog, "matmul", "opencl:0:0", 1, 1);
	ck_assert_int_eq(ein_kernel_get_opencl(k, &context, &queue), EIN_OK);
	ck_assert(context && queue);
	ck_assert(matmul_once(k, 19, 3, 11, 5) < 1e-3);
	ck_assert(ein_kernel_get_device_seconds(k) > 0);
	bad = compile_opts(ctx, prog, "matmul", "opencl:0:99", 0, 1);
	tt_alloc(&a, 2, s4);
	tt_alloc(&b, 2, s4);
	tt_alloc(&c, 2, s4);
	for (i = 0; i < 2; ++i) {
		ck_assert_int_eq(ein_kernel_call(bad, t, 3, sizes, 3),
			EIN_ERROR_DEVICE);
		ck_assert_msg(strstr(ein_ctx_last_error(ctx), "OpenCL"), "%s",
			ein_ctx_last_error(ctx));
	}
	tt_free(&a);
	tt_free(&b);
	tt_free(&c);
	ck_assert_int_eq(ein_kernel_get_opencl(bad, &context, &queue),
		EIN_ERROR_DEVICE);
	ein_kernel_free(k);
	ein_kernel_free(bad);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* Is there an OpenCL device to test on? */
static int have_device(void)
{
	char *text = ein_opencl_devices();
	int yes = text && strstr(text, "opencl:");

	free(text);
	return yes;
}

int main(void)
{
	Suite *s = suite_create("opencl");
	TCase *tc;
	SRunner *sr;
	int failed;

	if (!have_device()) {
		fprintf(stderr, "SKIP: no OpenCL device\n");
		return 77;
	}
	/* One case per test, so that CK_RUN_CASE=<test> runs one alone. */
#define ADD_LOOP(t, n) do { \
		tc = tcase_create(#t); \
		tcase_set_timeout(tc, 120); \
		tcase_add_loop_test(tc, t, 0, n); \
		suite_add_tcase(s, tc); \
	} while (0)
#define ADD(t) ADD_LOOP(t, 1)
	ADD(buffers_reused);
	/* Five rounds: a race shows in some rounds only (the isl reference
	 * counts of the context's size identifiers, which the host's
	 * evaluation of launch extents raced on, failed in 3 of 10 single
	 * rounds). */
	ADD_LOOP(concurrent_calls, 5);
	ADD(device_tensors);
	ADD(wrong_device);
	ADD(program_cached);
	ADD(device_time);
	ADD(lazy_build);
#undef ADD
#undef ADD_LOOP
	sr = srunner_create(s);
	/* The device check above started the OpenCL driver's threads, which
	 * a forked child would not have (PoCL hangs there). */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
