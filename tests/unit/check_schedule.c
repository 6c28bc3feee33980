/*
 * check_schedule.c: schedule files applied to kernels, checked against the
 * reference interpreter; illegal and malformed schedules rejected with
 * their line and column; and a differential test of random schedules,
 * for the CPU and (on an OpenCL device) for OpenCL.
 *
 * Tolerance: a float32 reduction of length n reordered by a schedule
 * differs from the double-precision reference by at most about
 * n * FLT_EPSILON * sum |terms|; the tests bound sum |terms| by the
 * reduction length times the largest magnitude of the reference's output
 * plus one (inputs lie in [-1, 1)), a bound that a wrong loop bound or a
 * skipped iteration exceeds by orders of magnitude.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include "ein.h"
#include "testutil.h"

static const char matmul_src[] =
	"def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
	"    C(i, j) +=! A(i, k) * B(k, j)\n"
	"}\n";

static const char conv_src[] =
	"def conv(float32(N, C, H, W) I, float32(F, C, 3, 3) Wt) -> (O) {\n"
	"    O(n, f, h, w) +=! I(n, c, h + r, w + s) * Wt(f, c, r, s)\n"
	"}\n";

static const char softmax_src[] =
	"def softmax(float32(N, M) X) -> (Y) {\n"
	"    mx(i) max=! X(i, j)\n"
	"    e(i, j) = exp(X(i, j) - mx(i))\n"
	"    s(i) +=! e(i, j)\n"
	"    Y(i, j) = e(i, j) / s(i)\n"
	"}\n";

static const char chain_src[] =
	"def chain(float32(M, K) A, float32(K, N) B, float32(N) bias)"
	" -> (R) {\n"
	"    T(i, j) +=! A(i, k) * B(k, j)\n"
	"    U(i, j) = T(i, j) + bias(j)\n"
	"    R(i, j) = U(i, j) > 0 ? U(i, j) : 0\n"
	"}\n";

/* A zero-padded convolution: its accesses to I are guarded, and a packed
 * tile of I must hold only the elements read within the guard. */
static const char conv1_src[] =
	"def conv1(float32(N, C, H, W) I, float32(F, C, 1, 1) Wt) -> (O) {\n"
	"    O(n, f, h, w) +=! I(n, c, h, w) * Wt(f, c, 0, 0)\n"
	"}\n";

/* A 1x1 convolution of stride 2: a packed tile of I is compacted. */
static const char conv2_src[] =
	"def conv2(float32(N, C, H, W) I, float32(F, C, 1, 1) Wt) -> (O) {\n"
	"    O(n, f, h, w) +=! I(n, c, 2 * h, 2 * w) * Wt(f, c, 0, 0)\n"
	"}\n";

static const char pad_src[] =
	"def conv_pad(float32(N, C, H, W) I, float32(K, C, 3, 3) Wt)"
	" -> (float32(N, K, H, W) O) {\n"
	"    O(n, k, h, w) +=! (h + r >= 1 && h + r <= H && w + s >= 1"
	" && w + s <= W) ? I(n, c, h + r - 1, w + s - 1) * Wt(k, c, r, s)"
	" : 0\n"
	"}\n";

/* T's row i - 1 is read in C's iteration i: computed at C's i, T
 * cannot be stored one row at a time. */
static const char prev_src[] =
	"def prev(float32(N, M) A) -> (C) {\n"
	"    T(i, j) = 2 * A(i, j)\n"
	"    C(i, j) = T(i, j) + (i > 0 ? T(i - 1, j) : 0)\n"
	"}\n";

/* A separable 3x3 box filter: T's rows are read by three rows of C. */
static const char blur_src[] =
	"def blur(float32(H, W) A) -> (C) {\n"
	"    T(i, j) = A(i, j) + A(i, j + 1) + A(i, j + 2)\n"
	"    C(i, j) = T(i, j) + T(i + 1, j) + T(i + 2, j)\n"
	"}\n";

static const char shift_src[] =
	"def shift(float32(N) A) -> (C) {\n"
	"    T(i) = 2 * A(i)\n"
	"    C(i) = T(i + 1) - T(i) where i in 0:N-1\n"
	"}\n";

/* Write "text" to a fresh temporary file; returns its path (to free). */
static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/ein-sched-XXXXXX");
	int fd = mkstemp(path);
	size_t len = strlen(text);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t) len);
	close(fd);
	return path;
}

/* Compile "def" of "src" with schedule text "sched" (prefixed with the
 * version line); NULL on error, with the message in ctx. */
static ein_kernel *compile_fixed(ein_ctx *ctx, ein_program **prog,
	const char *src, const char *sched, int strict, const ein_kernel *any,
	const int64_t *sizes)
{
	char text[4096];
	char *path;
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;
	int i;

	*prog = ein_program_parse(ctx, src, "test.ein");
	ck_assert_msg(*prog != NULL, "%s", ein_ctx_last_error(ctx));
	snprintf(text, sizeof(text), "ein-schedule 1\n%s", sched);
	path = write_temp(text);
	ein_options_set_schedule(opts, path);
	ein_options_set_strict_fp(opts, strict);
	for (i = 0; any && i < ein_kernel_n_size(any); ++i)
		ck_assert_int_eq(ein_options_fix_size(opts,
			ein_kernel_get_size_name(any, i), sizes[i]), EIN_OK);
	k = ein_kernel_compile_with(*prog, NULL, opts);
	ein_options_free(opts);
	unlink(path);
	free(path);
	return k;
}

static ein_kernel *compile_with(ein_ctx *ctx, ein_program **prog,
	const char *src, const char *sched, int strict)
{
	return compile_fixed(ctx, prog, src, sched, strict, NULL, NULL);
}

/* Run "k" and the reference interpreter at "sizes" on the same random
 * inputs and compare every output (see the head comment; "red" is the
 * longest reduction). */
static void compare(ein_kernel *k, const int64_t *sizes, int red,
	const char *what)
{
	int n = ein_kernel_n_tensor(k), ns = ein_kernel_n_size(k), i;
	struct tt t[n], r[n];
	DLTensor *ta[n], *ra[n];
	int64_t e;

	for (i = 0; i < n; ++i) {
		int64_t shape[8];
		int nd = ein_kernel_tensor_ndim(k, i);

		ck_assert_int_eq(ein_kernel_tensor_shape(k, i, sizes, ns,
			shape), EIN_OK);
		tt_alloc(&t[i], nd, shape);
		tt_alloc(&r[i], nd, shape);
		if (!ein_kernel_tensor_is_output(k, i)) {
			tt_randomize(&t[i], 17 + i);
			tt_randomize(&r[i], 17 + i);
		}
		ta[i] = &t[i].dl;
		ra[i] = &r[i].dl;
	}
	ck_assert_msg(ein_kernel_call(k, ta, n, sizes, ns) == EIN_OK, "%s",
		what);
	ck_assert_int_eq(ein_kernel_call_reference(k, ra, n, sizes, ns),
		EIN_OK);
	for (i = 0; i < n; ++i) {
		double scale = 1;

		if (!ein_kernel_tensor_is_output(k, i))
			continue;
		for (e = 0; e < r[i].n; ++e)
			scale = fmax(scale, fabs(r[i].f[e]) + 1);
		for (e = 0; e < r[i].n; ++e)
			ck_assert_msg(fabs(t[i].f[e] - r[i].f[e]) <=
				4.0 * red * red * FLT_EPSILON * scale,
				"%s: element %lld of %s is %g, reference %g",
				what, (long long) e,
				ein_kernel_get_tensor_name(k, i), t[i].f[e],
				r[i].f[e]);
	}
	for (i = 0; i < n; ++i) {
		tt_free(&t[i]);
		tt_free(&r[i]);
	}
}

/* A schedule that must be accepted and give the reference's results. */
struct good {
	const char *src;
	const char *sched;
	int64_t sizes[2][8];
	int red;
};

static const struct good goods[] = {
	{ matmul_src, "C: split i 8\n", { { 37, 23, 29 }, { 64, 40, 48 } },
		64 },
	{ matmul_src, "C: tile i 16 j 8\n", { { 37, 23, 29 }, { 5, 3, 7 } },
		64 },
	{ matmul_src, "C: tile i 16 j 8 k 4\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n",
		{ { 37, 23, 29 }, { 64, 40, 48 } }, 64 },
	{ matmul_src, "C: reorder i j k\n", { { 37, 23, 29 }, { 1, 1, 1 } },
		64 },
	{ matmul_src, "C: vectorize j 8\n", { { 37, 23, 29 }, { 3, 5, 67 } },
		64 },
	{ matmul_src, "C: reorder i j k\nC: vectorize k 4\n",
		{ { 37, 23, 29 }, { 3, 67, 5 } }, 67 },
	{ matmul_src, "C: unroll k 4\n", { { 37, 23, 29 }, { 2, 3, 2 } },
		64 },
	{ matmul_src, "C: tile i 4 j 4\nC: unroll j.i full\n",
		{ { 37, 23, 29 }, { 64, 40, 48 } }, 64 },
	{ matmul_src, "C: tile i 3 j 8\nC: reorder i.o j.o k i.i j.i\n"
		"C: unroll i.i full\nC: vectorize j.i 8\nC: parallel j.o\n",
		{ { 37, 23, 29 }, { 2, 1, 7 } }, 64 },
	{ matmul_src, "C: parallel i\n", { { 37, 23, 29 }, { 1, 5, 3 } },
		64 },
	{ matmul_src, "C.init: parallel i\nC: parallel j\n",
		{ { 37, 23, 29 }, { 3, 5, 1 } }, 64 },
	{ matmul_src, "C: tile i 32 j 32 k 8\n"
		"C: reorder i.o j.o k.o i.i k.i j.i\n"
		"C: vectorize j.i 8\nC: unroll k.i 2\nC: parallel i.o\n"
		"C.init: parallel i\n",
		{ { 100, 70, 90 }, { 33, 9, 65 } }, 70 },
	{ conv_src, "O: tile h 4 w 4\nO: parallel f\n",
		{ { 2, 3, 9, 11, 4 }, { 1, 2, 5, 3, 3 } }, 27 },
	{ conv_src, "O: reorder n f c r s h w\nO: vectorize w 8\n",
		{ { 1, 3, 9, 13, 4 }, { 2, 1, 3, 3, 1 } }, 27 },
	{ conv_src, "O: split c 2\nO: parallel h\nO.init: parallel f\n",
		{ { 1, 5, 6, 7, 2 }, { 2, 1, 3, 3, 1 } }, 27 },
	{ softmax_src, "e: compute_at Y i\ns: compute_at Y i\n"
		"mx: compute_at Y i\nY: parallel i\n",
		{ { 7, 13 }, { 1, 33 } }, 33 },
	/* The next row of X prefetched in e's loop over lines, and A's
	 * next k slice (or the same tile two rows down) in a GEMM. */
	{ softmax_src, "e: compute_at Y i\ns: compute_at Y i\n"
		"mx: compute_at Y i\ne: split j 16\ne: vectorize j.i 16\n"
		"e: prefetch X at j.o from i\nY: parallel i\n",
		{ { 7, 13 }, { 1, 33 } }, 33 },
	{ matmul_src, "C: tile i 4 j 16 k 8\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C: prefetch A at k.o\nC: prefetch B at j.o from i.o 2\n"
		"C: parallel i.o\n",
		{ { 37, 23, 29 }, { 1, 1, 1 } }, 64 },
	/* Y stored with non-temporal stores, at sizes whose rows start
	 * aligned or not (33 columns). */
	{ softmax_src, "e: compute_at Y i\ns: compute_at Y i\n"
		"mx: compute_at Y i\nY: vectorize j 16\nY: stream j\n"
		"Y: parallel i\n", { { 7, 13 }, { 5, 33 } }, 64 },
	{ matmul_src, "C: split j 8\nC: vectorize j.i 8\nC: stream j.i\n",
		{ { 5, 7, 16 }, { 3, 2, 41 } }, 64 },
	{ matmul_src, "C: stream j\nC: split j 8\nC: vectorize j.i 8\n",
		{ { 5, 7, 16 }, { 3, 2, 41 } }, 64 },
	{ softmax_src, "mx: fuse e 1\ne: fuse Y 1\ns: fuse Y 1\n",
		{ { 7, 13 }, { 5, 1 } }, 33 },
	{ softmax_src, "Y: vectorize j 4\ne: vectorize j 4\n"
		"mx: parallel i\n", { { 7, 13 }, { 3, 64 } }, 64 },
	{ chain_src, "U: compute_at R i\nT: compute_at U i\n",
		{ { 9, 7, 11 }, { 16, 3, 5 } }, 16 },
	{ chain_src, "U: fuse R 2\nT: compute_at U i\n",
		{ { 9, 7, 11 }, { 1, 1, 1 } }, 16 },
	{ chain_src, "R: tile i 4 j 4\nU: compute_at R j.o\n"
		"T: compute_at U i\nR: parallel i.o\n",
		{ { 9, 7, 11 }, { 16, 3, 5 } }, 16 },
	/* A parallel loop that isl does not generate (one iteration once T
	 * is computed at U's i): its mark must not move to the next loop,
	 * the reduction over k (found by the random schedules). */
	{ chain_src, "T: split j 3\nT: parallel i\nU: unroll j 2\n"
		"R: accumulate i\nT: compute_at U i\n",
		{ { 9, 7, 11 }, { 16, 33, 5 } }, 33 },
	{ shift_src, "T: split i 4\nC: split i 4\n",
		{ { 17 }, { 2 } }, 1 },
	/* pack: the tiles of A and B a tile of C reads, copied at several
	 * levels of a tiled matmul; sizes the tiles do not divide, sizes 1,
	 * primes. */
	{ matmul_src, "C: tile i 16 j 8 k 4\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C: pack A at k.o\nC: pack B at k.o\n",
		{ { 37, 23, 29 }, { 64, 40, 48 } }, 64 },
	{ matmul_src, "C: tile i 16 j 8 k 4\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C: pack A at i.o\nC: pack B at j.o\n",
		{ { 1, 1, 1 }, { 97, 89, 83 } }, 89 },
	{ matmul_src, "C: tile i 16 j 8 k 4\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C: pack A at j.i\nC: pack B at i.i\n",
		{ { 17, 5, 3 }, { 2, 13, 31 } }, 13 },
	{ matmul_src, "C: pack A at i\nC: pack B at k\n",
		{ { 7, 11, 13 }, { 1, 2, 1 } }, 11 },
	/* The BLIS order: a panel of B packed once per (j.o, k.o) and reused
	 * by every i.o; each thread packs its own tile of A. */
	{ matmul_src, "C: tile i 8 j 32 k 16\n"
		"C: reorder j.o k.o i.o i.i k.i j.i\n"
		"C: pack B at k.o\nC: pack A at i.o\nC: parallel i.o\n"
		"C: vectorize j.i 8\nC: unroll k.i 4\nC.init: parallel i\n",
		{ { 37, 23, 29 }, { 70, 67, 100 } }, 67 },
	/* A panel packed outside a parallel loop: the threads share it. */
	{ matmul_src, "C: tile i 8 j 8\nC: reorder i.o k j.o i.i j.i\n"
		"C: pack B at k\nC: parallel j.o\n",
		{ { 19, 23, 29 }, { 9, 1, 17 } }, 23 },
	/* A buffer of an output that is only written (no copy in), whose
	 * loop holds a parallel loop: the threads share the caller's. */
	{ chain_src, "R: split i 2\nR: reorder i.o i.i j\nR: parallel j\n"
		"R: accumulate i.o\n", { { 9, 7, 11 }, { 1, 3, 2 } }, 16 },
	{ chain_src, "U: reorder j i\nR: split i 6\nR: reorder j i.i i.o\n"
		"R: parallel i.i\nR: unroll i.o 3\nR: vectorize i.o 4\n"
		"R: accumulate j\nU: compute_at R j\n",
		{ { 9, 7, 11 }, { 13, 2, 3 } }, 16 },
	/* accumulate: a 4x16 tile of C updated in a buffer across the k
	 * loops (at j.o) or across k.i only (at k.o). */
	{ matmul_src, "C: tile i 4 j 16 k 64\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\nC: accumulate j.o\n",
		{ { 37, 130, 23 }, { 4, 64, 16 } }, 130 },
	{ matmul_src, "C: tile i 4 j 16 k 64\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\nC: accumulate k.o\n",
		{ { 5, 131, 33 }, { 1, 1, 1 } }, 131 },
	{ matmul_src, "C: tile i 4 j 16 k 8\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C: accumulate j.o\nC: pack A at k.o\nC: pack B at k.o\n"
		"C: vectorize j.i 16\nC: unroll i.i full\n"
		"C: parallel i.o\nC.init: parallel i\n",
		{ { 37, 29, 53 }, { 64, 64, 64 } }, 64 },
	{ matmul_src, "C: accumulate i\nC: parallel i\n",
		{ { 3, 97, 5 }, { 1, 1, 1 } }, 97 },
	{ conv_src, "O: tile h 4 w 4\nO: pack I at w.o\nO: pack Wt at f\n"
		"O: accumulate w.o\nO: parallel f\n",
		{ { 2, 3, 9, 11, 4 }, { 1, 2, 5, 3, 3 } }, 27 },
	{ conv_src, "O: reorder n f c r s h w\nO: pack I at c\n"
		"O: accumulate f\nO: vectorize w 8\n",
		{ { 1, 3, 9, 13, 4 }, { 2, 1, 3, 3, 1 } }, 27 },
	{ pad_src, "O: tile h 4 w 4\nO: pack I at w.o\nO: pack Wt at k\n"
		"O: accumulate w.o\nO: parallel k\n",
		{ { 2, 3, 7, 5, 4 }, { 1, 1, 1, 1, 1 } }, 27 },
	{ pad_src, "O: pack I at h\nO: unroll w 2\n",
		{ { 1, 2, 6, 2, 3 }, { 1, 1, 2, 9, 1 } }, 18 },
	/* Temporaries finished before the loop may be packed; an output
	 * read by nothing else in the loop may be accumulated. */
	{ chain_src, "U: pack T at i\nR: pack U at j\n",
		{ { 9, 7, 11 }, { 1, 1, 1 } }, 16 },
	{ chain_src, "T: compute_at U i\nU: pack T at j\nU: pack bias at i\n",
		{ { 9, 7, 11 }, { 16, 3, 5 } }, 16 },
	{ softmax_src, "s: accumulate i\nY: accumulate i\nmx: accumulate j\n"
		"e: pack X at i\nY: pack e at i\n",
		{ { 7, 13 }, { 1, 33 } }, 33 },
	{ softmax_src, "e: compute_at Y i\ns: compute_at Y i\n"
		"mx: compute_at Y i\ns: accumulate i\nmx: pack X at i\n"
		"Y: parallel i\n", { { 7, 13 }, { 1, 33 } }, 33 },
	/* compute_at ... recompute: each tile of C computes the rows of T
	 * it reads, overlapping its neighbours' by two, in a buffer of its
	 * own, so that the tiles may run in parallel (with store, T's rows
	 * would flow from one tile to the next). */
	{ blur_src, "C: split i 8\nT: compute_at C i.o recompute\n"
		"C: parallel i.o\n", { { 37, 45 }, { 3, 3 } }, 1 },
	{ blur_src, "C: tile i 8 j 16\nT: compute_at C j.o recompute\n"
		"T: vectorize j 8\nC: vectorize j.i 8\nC: parallel i.o\n",
		{ { 37, 45 }, { 100, 19 } }, 1 },
	{ blur_src, "T: compute_at C i recompute\nC: parallel i\n",
		{ { 3, 3 }, { 9, 3 } }, 1 },
	/* pack with a layout: A's tile stored k-major (BLIS's packed A),
	 * B's transposed; sizes the tiles do not divide. */
	{ matmul_src, "C: tile i 6 j 16 k 8\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C: pack A at k.o layout k i\nC: pack B at j.o layout j k\n"
		"C: accumulate j.o\nC: vectorize j.i 16\n"
		"C: unroll i.i full\nC: parallel i.o\n",
		{ { 37, 29, 53 }, { 64, 64, 64 } }, 64 },
	{ matmul_src, "C: pack A at i layout k i\nC: pack B at k layout k j\n",
		{ { 7, 11, 13 }, { 1, 2, 1 } }, 11 },
	/* Vectors along the output channels of an NCHW convolution: the
	 * weights packed with f innermost, the output tile accumulated as
	 * [w][f]; sizes the splits do not divide.  The 1x1 weights'
	 * constant dimensions are left out of the layout. */
	{ conv_src, "O: split f 8\nO: split w 7\n"
		"O: reorder n f.o h w.o c r s w.i f.i\n"
		"O: pack Wt at f.o layout c r s f\n"
		"O: accumulate w.o layout n h w f\nO: unroll w.i full\n"
		"O: vectorize f.i 8\nO: parallel f.o\n"
		"O.init: compute_at O w.o\n",
		{ { 1, 3, 9, 16, 16 }, { 2, 2, 6, 12, 11 } }, 27 },
	{ conv1_src, "O: split f 8\nO: reorder n f.o h w c f.i\n"
		"O: pack Wt at f.o layout c f\n"
		"O: accumulate w layout n h w f\n"
		"O: vectorize f.i 8\nO: parallel h\n",
		{ { 1, 5, 3, 7, 19 }, { 2, 1, 1, 1, 8 } }, 5 },
	/* Splits of splits (two vectors of output channels by 4
	 * columns; its full-tile sets once took isl minutes of convex
	 * hulls, sched/isolate.c), and a packed row of the input read at
	 * stride 2, compacted; odd sizes. */
	{ conv2_src, "O: split f 32\nO: split f.i 16\nO: split f.i.i 8\n"
		"O: split w 4\n"
		"O: reorder n f.o h f.i.o w.o c w.i f.i.i.o f.i.i.i\n"
		"O: pack Wt at f.o layout c f\nO: pack I at h\n"
		"O: accumulate w.o layout n h w f\nO: unroll w.i full\n"
		"O: unroll f.i.i.o full\nO: vectorize f.i.i.i 8\n"
		"O: parallel f.o\nO.init: compute_at O w.o\n",
		{ { 1, 5, 9, 11, 19 }, { 2, 3, 4, 7, 48 } }, 5 },
	/* A register tile of 14 x 32 with partial tiles in both
	 * directions: the partial columns are a masked vector loop
	 * (codegen/walk.c), rows and columns of 1. */
	{ matmul_src, "C: tile j 32 k 16 i 14\n"
		"C: reorder j.o k.o i.o k.i i.i j.i\n"
		"C: pack B at k.o\nC: accumulate i.o\nC: unroll i.i full\n"
		"C: vectorize j.i 32\nC: parallel j.o\n",
		{ { 31, 17, 45 }, { 1, 1, 1 } }, 17 },
	/* Layouts that split an index into blocks (BLIS's packed panels:
	 * [j/16][k][16]); sizes the blocks do not divide, and blocks
	 * larger than the tile. */
	{ matmul_src, "C: tile j 64 k 32 i 12\nC: split j.i 16\n"
		"C: reorder j.o k.o i.o j.i.o k.i i.i j.i.i\n"
		"C: pack B at k.o layout j/16 k j%16\n"
		"C: pack A at i.o layout k/8 i k%8\n"
		"C: accumulate i.i layout j/8 i j%8\n"
		"C: vectorize j.i.i 16\nC: parallel i.o\n",
		{ { 37, 29, 53 }, { 5, 70, 100 } }, 70 },
	/* accumulate with the initialisation inside the loop: it writes
	 * the buffer, with no copy in. */
	{ matmul_src, "C: reorder i j k\nC.init: fuse C 2\n"
		"C: accumulate j\n", { { 37, 23, 29 }, { 1, 5, 3 } }, 29 },
	{ matmul_src, "C: tile i 4 j 16 k 8\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C.init: compute_at C j.o\nC: accumulate j.o\n"
		"C: vectorize j.i 16\nC: unroll i.i full\nC: parallel i.o\n",
		{ { 37, 29, 53 }, { 64, 64, 64 } }, 64 },
	/* Contracted storage (sched/contract.c): a row of e, shared by the
	 * threads of a parallel loop inside the row's iteration; tiles of
	 * U and T per tile of R, one per thread; a temporary written back
	 * from an accumulated tile by copies in a parallel loop (found by
	 * the random schedules); and T of prev, whose rows are read in the
	 * next iteration, kept whole. */
	{ softmax_src, "e: compute_at Y i\ns: compute_at Y i\n"
		"mx: compute_at Y i\nY: parallel j\n",
		{ { 7, 13 }, { 3, 333 } }, 333 },
	{ chain_src, "R: tile i 4 j 4\nU: compute_at R j.o\n"
		"T: compute_at U i\nR: parallel i.o\nU: vectorize j 4\n",
		{ { 9, 7, 11 }, { 35, 3, 65 } }, 16 },
	{ chain_src, "T: unroll j 4\nT: pack B at i\nU: reorder i j\n"
		"U: parallel j\nU: unroll j 4\nU: accumulate j\n"
		"R: split j 2\nR: accumulate j.o\nU: compute_at R i\n",
		{ { 9, 7, 11 }, { 16, 33, 5 } }, 33 },
	{ prev_src, "T: compute_at C i\nC: parallel j\n",
		{ { 37, 45 }, { 5, 1 } }, 1 },
};

START_TEST(good_schedules)
{
	const struct good *g = &goods[_i];
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = compile_with(ctx, &prog, g->src, g->sched, 0);
	int s;

	ck_assert_msg(k != NULL, "schedule\n%s rejected: %s", g->sched,
		ein_ctx_last_error(ctx));
	for (s = 0; s < 2; ++s)
		compare(k, g->sizes[s], g->red, g->sched);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* A schedule that must be rejected with "expect" (FILE:LINE:COL is
 * checked without the temporary file's name: the message must contain
 * ":LINE:COL: error: " followed by "expect"). */
struct bad {
	const char *src;
	const char *sched;
	int strict;
	const char *expect;
};

static const struct bad bads[] = {
	{ matmul_src, "C: parallel k\n", 0,
		":2:4: error: 'parallel' is illegal: parallel loop 'k' of S0 "
		"would break the output dependence (reduction) of S0 on S0 "
		"through tensor C" },
	{ matmul_src, "C: tile i 8 k 8\nC: parallel k.o\n", 0,
		":3:4: error: 'parallel' is illegal: parallel loop 'k.o'" },
	{ matmul_src, "C: reorder i j k\nC: vectorize k 8\n", 1,
		":3:4: error: 'vectorize' is illegal: vectorised loop 'k' of "
		"S0 would break" },
	{ matmul_src, "C: tile i 8 k 4\nC: reorder k.i k.o\n", 1,
		":3:4: error: 'reorder' is illegal: it breaks the output "
		"dependence (reduction) of S0 on S0 through tensor C: S0[i=" },
	{ matmul_src, "C: tile q 8\n", 0,
		":2:9: error: statement C has no loop 'q'\n" },
	{ matmul_src, "D: parallel i\n", 0,
		":2:1: error: no statement writes 'D'" },
	{ matmul_src, "C#2: parallel i\n", 0,
		":2:1: error: 'C#2': only 1 statement writes 'C'" },
	{ shift_src, "T.init: parallel i\n", 0,
		":2:1: error: 'T' has no initialisation" },
	{ matmul_src, "C: vectorize i 8\n", 0,
		":2:14: error: cannot vectorise loop 'i': it is not the "
		"innermost loop of C" },
	{ matmul_src, "C: gpu_blocks i j\n", 0,
		":2:4: error: 'gpu_blocks' is reserved for the GPU backend" },
	{ matmul_src, "C: local A at k\n", 0,
		":2:4: error: 'local' is reserved for the GPU backend" },
	{ shift_src, "T: fuse C\n", 0,
		":2:4: error: 'fuse' is illegal: it breaks the flow dependence "
		"of S1 on S0 through tensor T" },
	{ shift_src, "C: fuse T\n", 0,
		":2:4: error: 'fuse' is illegal: it breaks the flow dependence "
		"of S1 on S0 through tensor T: S0[i=1] must run before "
		"S1[i=0]" },
	{ softmax_src, "mx: fuse e 1\ne: fuse Y 1\n", 0,
		":3:4: error: 'fuse' is illegal: it breaks the flow dependence "
		"of S2 on S1 through tensor e" },
	{ shift_src, "C: compute_at T i\n", 0,
		":2:4: error: cannot compute_at C there: it writes elements "
		"that the target statement never reads" },
	{ shift_src, "T: fuse C 2\n", 0,
		":2:11: error: cannot fuse 2 loops: T has 1 and C has 1" },
	{ softmax_src, "e: compute_at Y q\n", 0,
		":2:17: error: statement e has no loop 'q'" },
	{ softmax_src, "e: compute_at Y i\ne: fuse Y\n", 0,
		":3:4: error: statement e is already placed" },
	{ softmax_src, "e: compute_at Y i\nY: compute_at e i\n", 0,
		":3:4: error: cannot compute_at Y there: the placement would "
		"be circular" },
	{ softmax_src, "Y: compute_at e i\n", 0,
		":2:4: error: cannot compute_at Y there: it writes elements "
		"that the target statement never reads" },
	{ softmax_src, "s: parallel j\n", 0,
		":2:4: error: 'parallel' is illegal: parallel loop 'j' of S2 "
		"would break the output dependence (reduction) of S2 on S2 "
		"through tensor s: S2[i=0, j=0] must run in the same iteration "
		"of the loop as S2[i=0, j=1]" },
	{ chain_src, "T: fuse U 2\nT: parallel k\n", 0,
		":2:4: error: 'fuse' is illegal" },
	{ chain_src, "T: compute_at R i\n", 0,
		":2:4: error: cannot compute_at T there: it writes elements "
		"that the target statement never reads" },
	{ matmul_src, "C: unroll j full\n", 0,
		":2:13: error: cannot unroll loop 'j' fully: its number of "
		"iterations is not bounded by a constant" },
	{ matmul_src, "C: split j 512\nC: unroll j.i full\n", 0,
		":3:15: error: cannot unroll loop 'j.i' fully: it runs up to "
		"512 iterations (at most 256)" },
	{ chain_src, "T: compute_at U i\nU: pack T at i\n", 0,
		":3:4: error: 'pack' is illegal: S1 reads T from a copy made "
		"in each iteration of its loop 'i', but S0_init writes T in "
		"that loop" },
	{ chain_src, "U: pack T at i\nT: compute_at U i\n", 0,
		":3:4: error: 'compute_at' is illegal: S1 reads T from a "
		"copy" },
	{ softmax_src, "s: compute_at Y i\nY: pack s at i\n", 0,
		":3:4: error: 'pack' is illegal: S3 reads s from a copy made "
		"in each iteration of its loop 'i', but S2_init writes s in "
		"that loop" },
	{ chain_src, "U: fuse T 1\nT: accumulate i\n", 0,
		":3:4: error: 'accumulate' is illegal: S0 keeps T in a local "
		"buffer during each iteration of its loop 'i', but S1 reads T "
		"in that loop" },
	/* The initialisation inside the loop writes the elements of the
	 * first iteration of k.o only: the others need a copy in. */
	{ matmul_src, "C: tile i 4 j 16 k 8\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\n"
		"C.init: compute_at C k.o\nC: accumulate k.o\n", 0,
		":5:4: error: 'accumulate' is illegal: S0 keeps C in a local "
		"buffer during each iteration of its loop 'k.o', but S0_init "
		"writes C in that loop" },
	{ matmul_src, "C: pack Q at k\n", 0,
		":2:9: error: no tensor 'Q'\n" },
	{ softmax_src, "e: pack Y at j\n", 0,
		":2:9: error: statement e does not read 'Y'\n" },
	{ matmul_src, "C: pack C at k\n", 0,
		":2:9: error: cannot pack 'C': statement C writes it" },
	{ matmul_src, "C: pack A at q\n", 0,
		":2:14: error: statement C has no loop 'q'" },
	{ matmul_src, "C: accumulate q\n", 0,
		":2:15: error: statement C has no loop 'q'" },
	{ matmul_src, "C: pack A at k\nC: split k 4\n", 0,
		":3:10: error: cannot split loop 'k' of C: a pack, "
		"accumulate or prefetch directive works in it" },
	{ softmax_src, "e: prefetch mx at j\n", 0,
		":2:13: error: cannot prefetch 'mx': it is a temporary of the "
		"definition" },
	{ softmax_src, "e: prefetch Y at j\n", 0,
		":2:13: error: statement e does not access 'Y'" },
	{ matmul_src, "C: prefetch A at i from k\n", 0,
		":2:25: error: loop 'k' is inside loop 'i'" },
	{ matmul_src, "C: vectorize j 8\nC: prefetch A at j\n", 0,
		":3:4: error: loop 'j' of C cannot both be vectorised and "
		"prefetch" },
	{ matmul_src, "C: prefetch A at j\nC: vectorize j 8\n", 0,
		":3:4: error: loop 'j' of C cannot both be vectorised and "
		"prefetch" },
	{ matmul_src, "C: prefetch A at j from i\nC: split i 4\n", 0,
		":2:4: error: 'prefetch' counts the iterations of loop 'i', "
		"which is no longer loop 'j' or around it" },
	{ matmul_src, "C: stream j\n", 0,
		":2:11: error: cannot stream loop 'j' of C: it is not "
		"vectorised" },
	{ matmul_src, "C: stream j\nC: split j 8\n", 0,
		":2:11: error: cannot stream loop 'j.i' of C: it is not "
		"vectorised" },
	{ matmul_src, "C: prefetch A at k from i\nC: reorder k i\n", 0,
		"which is no longer loop 'k' or around it" },
	{ matmul_src, "C: accumulate i\nC: tile i 4 j 4\n", 0,
		":3:9: error: cannot split loop 'i' of C" },
	{ matmul_src, "C: pack A at k\nC: pack A at j\n", 0,
		":3:9: error: 'A' is already packed for statement C, in loop "
		"'k'" },
	{ matmul_src, "C: accumulate k\nC: accumulate i\n", 0,
		":3:4: error: statement C already accumulates in loop 'k'" },
	{ matmul_src, "C: pack A at k\nD: pack B at k\n", 0,
		":3:1: error: no statement writes 'D'" },
	{ matmul_src, "C: pack A at k layout k\n", 0,
		":2:23: error: the layout of 'A' leaves out its dimension 0, "
		"which is not read at a constant" },
	{ matmul_src, "C: pack A at k layout k i k\n", 0,
		":2:23: error: the layout of 'A' lists 3 indices, but 'A' has 2 "
		"dimensions" },
	{ matmul_src, "C: pack A at k layout k q\n", 0,
		":2:25: error: no dimension of 'A' is the index 'q'" },
	{ matmul_src, "C: pack A at k layout k k\n", 0,
		":2:25: error: index 'k' appears twice in the layout" },
	{ matmul_src, "C: pack A at k layout\n", 0,
		":2:22: error: no index after 'layout' for 'pack'" },
	{ matmul_src, "C: pack A at k lay k i\n", 0,
		":2:16: error: too many arguments for 'pack'" },
	{ conv_src, "O: pack I at c layout n c h w\n", 0,
		":2:27: error: no dimension of 'I' is the index 'h'" },
	{ conv_src, "O: accumulate c layout n h w\n", 0,
		":2:24: error: the layout of 'O' leaves out its dimension 1, "
		"which is not read at a constant" },
	{ conv_src, "O: accumulate c layout n h w c\n", 0,
		":2:30: error: no dimension of 'O' is the index 'c'" },
	{ conv_src, "O: accumulate c layout\n", 0,
		":2:23: error: no index after 'layout' for 'accumulate'" },
	/* Indices split into blocks: both terms, of one size, and not
	 * the index whole as well. */
	{ matmul_src, "C: pack B at k layout j/16 k\n", 0,
		":2:23: error: the layout has 'j/16' but not 'j%16'" },
	{ matmul_src, "C: pack B at k layout k j%8\n", 0,
		":2:25: error: the layout has 'j%8' but not 'j/8'" },
	{ matmul_src, "C: pack B at k layout j/16 k j%8\n", 0,
		":2:30: error: the layout splits 'j' into blocks of 16 and of "
		"8" },
	{ matmul_src, "C: pack B at k layout j/16 j j%16\n", 0,
		":2:28: error: index 'j' appears twice in the layout" },
	{ matmul_src, "C: pack B at k layout j/0 k j%16\n", 0,
		":2:23: error: expected INDEX, INDEX/N or INDEX%N in a layout, "
		"got 'j/0'" },
	{ matmul_src, "C: pack B at k layout j/x k\n", 0,
		":2:23: error: expected INDEX, INDEX/N or INDEX%N in a layout, "
		"got 'j/x'" },
	/* Stored, every row of T must be read (it is not where H < 3). */
	{ blur_src, "C: split i 8\nT: compute_at C i.o\n", 0,
		":3:4: error: cannot compute_at T there: it writes elements "
		"that the target statement never reads" },
	{ chain_src, "T: compute_at U i recompute\n", 0,
		":2:19: error: cannot recompute T: it is a reduction ('=' "
		"statements only)" },
	{ chain_src, "U: compute_at R i recompute\n", 0,
		":2:19: error: cannot recompute U: it reads a tensor that is not "
		"an input" },
	{ softmax_src, "e: compute_at Y i recompute\n", 0,
		":2:19: error: cannot recompute e: it reads a tensor that is not "
		"an input" },
	{ matmul_src, "C: tiel i 8\n", 0, ":2:4: error: unknown directive" },
	{ matmul_src, "C tile i 8\n", 0, ":2:2: error: missing ':'" },
	{ matmul_src, "C: split i 0\n", 0, ":2:12: error: " },
};

START_TEST(bad_schedules)
{
	const struct bad *b = &bads[_i];
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = compile_with(ctx, &prog, b->src, b->sched, b->strict);

	ck_assert_msg(k == NULL, "schedule\n%s accepted", b->sched);
	ck_assert_int_eq(ein_ctx_last_status(ctx), EIN_ERROR_SOURCE);
	ck_assert_msg(strstr(ein_ctx_last_error(ctx), b->expect) != NULL,
		"schedule\n%s: expected \"%s\", got \"%s\"", b->sched,
		b->expect, ein_ctx_last_error(ctx));
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

START_TEST(def_mismatch)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = compile_with(ctx, &prog, matmul_src,
		"def conv\nC: parallel i\n", 0);

	ck_assert_ptr_null(k);
	ck_assert_msg(strstr(ein_ctx_last_error(ctx), "the schedule is for "
		"definition 'conv', not 'matmul'") != NULL, "%s",
		ein_ctx_last_error(ctx));
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* What "ein show --stage=ast" prints of pack and accumulate: the buffers,
 * then each copy as the assignment it makes, at its place in the loops. */
START_TEST(show_copies)
{
	static const char *const expect[] = {
		"// C_acc0: float32[4][16], a local buffer of C\n"
		"// A_pack0: float32[4][64], a local buffer of A\n",
		"    for (int c1 = 0; c1 <= (N - 1) / 16; c1 += 1) {\n"
		"      for (int c2 = 4 * c0; c2 <= min(M - 1, 4 * c0 + 3); "
		"c2 += 1)\n",
		"          C_acc0[-4 * c0 + c2][-16 * c1 + c3] = C[c2][c3];\n"
		"      for (int c2 = 0; c2 <= (K - 1) / 64; c2 += 1) {\n",
		"            A_pack0[-4 * c0 + c3][-64 * c2 + c4] = "
		"A[c3][c4];\n"
		"        for (int c3 = 0; c3 <= min(63, K - 64 * c2 - 1); ",
		"              S0(4 * c0 + c4, 16 * c1 + c5, 64 * c2 + c3);\n"
		"      }\n",
		"          C[c2][c3] = C_acc0[-4 * c0 + c2][-16 * c1 + c3];\n"
		"    }\n}\n",
	};
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, matmul_src, "test.ein");
	char *path = write_temp("ein-schedule 1\nC: tile i 4 j 16 k 64\n"
		"C: reorder i.o j.o k.o k.i i.i j.i\nC: pack A at k.o\n"
		"C: accumulate j.o\n");
	ein_options *opts = ein_options_alloc();
	char *ast;
	const char *at;
	size_t i;

	ein_options_set_schedule(opts, path);
	ast = ein_program_show_with(prog, NULL, EIN_STAGE_AST, opts);
	ck_assert_msg(ast != NULL, "%s", ein_ctx_last_error(ctx));
	for (i = 0, at = ast; i < sizeof(expect) / sizeof(expect[0]); ++i) {
		const char *found = strstr(at, expect[i]);

		ck_assert_msg(found != NULL, "expected, in order:\n%s\nin\n%s",
			expect[i], ast);
		at = found + strlen(expect[i]);
	}
	free(ast);
	ein_options_free(opts);
	unlink(path);
	free(path);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* The AST of "def" in "src" with schedule "sched" (to free). */
static char *show_ast(ein_ctx *ctx, const char *src, const char *sched)
{
	ein_program *prog = ein_program_parse(ctx, src, "test.ein");
	char *path = write_temp(sched);
	ein_options *opts = ein_options_alloc();
	char *ast;

	ck_assert_msg(prog != NULL, "%s", ein_ctx_last_error(ctx));
	ein_options_set_schedule(opts, path);
	ast = ein_program_show_with(prog, NULL, EIN_STAGE_AST, opts);
	ck_assert_msg(ast != NULL, "%s", ein_ctx_last_error(ctx));
	ein_options_free(opts);
	unlink(path);
	free(path);
	ein_program_free(prog);
	return ast;
}

/* Temporaries computed where they are used are stored for one iteration
 * of the deepest loop that holds their lifetimes, and kept whole when a
 * value lives longer. */
START_TEST(show_storage)
{
	ein_ctx *ctx = ein_ctx_alloc();
	char *ast;

	ast = show_ast(ctx, softmax_src, "ein-schedule 1\n"
		"e: compute_at Y i\ns: compute_at Y i\nmx: compute_at Y i\n");
	ck_assert_msg(strstr(ast, "// e_local0: float32[1][M], the storage "
		"of e for one iteration of c0\n") &&
		strstr(ast, "// mx_local0: float32[1], the storage of mx") &&
		strstr(ast, "// s_local0: float32[1], the storage of s"),
		"%s", ast);
	free(ast);
	ast = show_ast(ctx, chain_src, "ein-schedule 1\nR: tile i 4 j 4\n"
		"U: compute_at R j.o\nT: compute_at U i\n");
	ck_assert_msg(strstr(ast, "// U_local0: float32[4][4], the storage "
		"of U for one iteration of c0, c1\n") &&
		strstr(ast, "// T_local0: float32[1][4], the storage of T "
		"for one iteration of c0, c1, c2\n"), "%s", ast);
	free(ast);
	ast = show_ast(ctx, prev_src, "ein-schedule 1\nT: compute_at C i\n");
	ck_assert_msg(!strstr(ast, "_local"), "%s", ast);
	free(ast);
	/* An accumulated tile that its initialisation fills in the loop is
	 * copied out, never in. */
	ast = show_ast(ctx, matmul_src, "ein-schedule 1\n"
		"C: tile i 4 j 16 k 64\nC: reorder i.o j.o k.o k.i i.i j.i\n"
		"C.init: compute_at C j.o\nC: accumulate j.o\n");
	ck_assert_msg(!strstr(ast, "= C[") &&
		strstr(ast, "C[c2][c3] = C_acc0[-4 * c0 + c2][-16 * c1 + c3];"),
		"%s", ast);
	free(ast);
	/* Recomputed per tile of C: ten rows of T for eight of C. */
	ast = show_ast(ctx, blur_src, "ein-schedule 1\nC: tile i 8 j 16\n"
		"T: compute_at C j.o recompute\n");
	ck_assert_msg(strstr(ast, "// T_local0: float32[10][16], the storage "
		"of T for one iteration of c0, c1\n") &&
		strstr(ast, "c2 <= min(H - 1, 8 * c0 + 9)") &&
		strstr(ast, "S0(c0, c1, c2, c3);"), "%s", ast);
	free(ast);
	/* Without compute_at, a temporary lives across loop nests. */
	ast = show_ast(ctx, softmax_src, "ein-schedule 1\n");
	ck_assert_msg(!strstr(ast, "_local"), "%s", ast);
	free(ast);
	ein_ctx_free(ctx);
}
END_TEST

/* A max= reduction keeps IEEE fmax under --strict-fp (which allows no
 * vectorised reduction): a NaN among a row's values is ignored (without --strict-fp the result
 * of a row with a NaN is unspecified, docs/language.md). */
START_TEST(strict_max_nan)
{
	static const char src[] = "def rmax(float32(N, M) X) -> (Y) {\n"
		"    Y(i) max=! X(i, j)\n}\n";
	int64_t sizes[2] = { 3, 37 }, xs[2] = { 3, 37 }, ys[1] = { 3 };
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = compile_with(ctx, &prog, src,
		"Y: split j 8\nY: unroll j.i 2\n", 1);
	struct tt x, y;
	DLTensor *ta[2] = { &x.dl, &y.dl };
	int i, j;

	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	tt_alloc(&x, 2, xs);
	tt_alloc(&y, 1, ys);
	tt_randomize(&x, 5);
	x.f[0 * 37 + 20] = NAN;
	x.f[1 * 37 + 0] = NAN;
	for (j = 0; j < 37; ++j)
		x.f[2 * 37 + j] = j == 29 ? 7.0f : NAN;
	ck_assert_int_eq(ein_kernel_call(k, ta, 2, sizes, 2), EIN_OK);
	for (i = 0; i < 3; ++i) {
		float m = -INFINITY;

		for (j = 0; j < 37; ++j)
			m = fmaxf(m, x.f[i * 37 + j]);
		ck_assert_msg(y.f[i] == m, "row %d: max %g, expected %g", i,
			y.f[i], m);
	}
	tt_free(&x);
	tt_free(&y);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}
END_TEST

/* ---- random schedules -------------------------------------------------- */

/* A kernel for the differential test: its statements (by the name the
 * schedule uses) with their default loops, the tensors they read other
 * than their outputs, sizes and reduction length; for layouts, the
 * indices of each read and of each write ("i k"; NULL where a dimension
 * is not a single index, or a constant). */
struct rkernel {
	const char *src;
	int n_stmt;
	const char *stmt[4];
	const char *loops[4][8];
	const char *reads[4][3];
	int64_t sizes[8];
	int red;
	const char *read_idx[4][3];
	const char *write_idx[4];
};

static const struct rkernel rkernels[] = {
	{ matmul_src, 1, { "C" }, { { "i", "k", "j" } }, { { "A", "B" } },
		{ 19, 13, 23 }, 13, { { "i k", "k j" } }, { "i j" } },
	{ conv_src, 1, { "O" }, { { "n", "f", "h", "c", "r", "s", "w" } },
		{ { "I", "Wt" } }, { 1, 3, 7, 9, 2 }, 27,
		{ { NULL, "f c r s" } }, { "n f h w" } },
	{ softmax_src, 4, { "mx", "e", "s", "Y" },
		{ { "i", "j" }, { "i", "j" }, { "i", "j" }, { "i", "j" } },
		{ { "X" }, { "X", "mx" }, { "e" }, { "e", "s" } },
		{ 5, 11 }, 11,
		{ { "i j" }, { "i j", "i" }, { "i j" }, { "i j", "i" } },
		{ "i", "i j", "i", "i j" } },
	{ chain_src, 3, { "T", "U", "R" },
		{ { "i", "k", "j" }, { "i", "j" }, { "i", "j" } },
		{ { "A", "B" }, { "T", "bias" }, { "U" } },
		{ 9, 7, 11 }, 7,
		{ { "i k", "k j" }, { "i j", "j" }, { "i j" } },
		{ "i j", "i j", "i j" } },
	/* A strided read: packed tiles of I are compacted. */
	{ conv2_src, 1, { "O" }, { { "n", "f", "h", "c", "w" } },
		{ { "I", "Wt" } }, { 1, 3, 9, 11, 5 }, 3,
		{ { NULL, "f c" } }, { "n f h w" } },
};

#define N_RKERNEL (sizeof(rkernels) / sizeof(rkernels[0]))

static uint64_t rnd_state;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned) (rnd_state >> 33) % n;
}

/* " layout ..." in "buf": the indices "idx" ("i k") in a random order,
 * one of them maybe split into blocks of 2 to 5 ("k/3 ... k%3"); nothing
 * if "idx" is NULL or by chance. */
static size_t random_layout(const char *idx, char *buf, size_t len)
{
	char words[8][32], tmp[32];
	int n = 0, i, j, b;
	size_t at = 0;
	const char *p = idx;

	if (!idx || rnd(2))
		return 0;
	while (*p && n < 6) {
		int w = strcspn(p, " ");

		snprintf(words[n++], sizeof(words[0]), "%.*s", w, p);
		p += w + (p[w] == ' ');
	}
	b = rnd(2) ? -1 : (int) rnd(n);
	if (b >= 0) {
		int size = 2 + rnd(4);

		memcpy(tmp, words[b], sizeof(tmp));
		snprintf(words[b], sizeof(words[0]), "%.20s/%d", tmp, size);
		snprintf(words[n++], sizeof(words[0]), "%.20s%%%d", tmp, size);
	}
	for (i = n - 1; i > 0; --i) {
		j = rnd(i + 1);
		memcpy(tmp, words[i], sizeof(tmp));
		memcpy(words[i], words[j], sizeof(tmp));
		memcpy(words[j], tmp, sizeof(tmp));
	}
	at += snprintf(buf + at, len - at, " layout");
	for (i = 0; i < n; ++i)
		at += snprintf(buf + at, len - at, " %s", words[i]);
	return at;
}

/* Is "name" an input of "rk" (a tensor no statement writes)? */
static int is_input(const struct rkernel *rk, const char *name)
{
	int s;

	for (s = 0; s < rk->n_stmt; ++s)
		if (!strcmp(rk->stmt[s], name))
			return 0;
	return 1;
}

/* "S: prefetch X at L [from F [N]]\n" in "buf" for statement "s" of
 * "rk" with loops[0 .. n-1], the last vectorised if "vec": an input it
 * reads, in a loop other than the vectorised one, for a later iteration
 * of that loop or of one around it.  Nothing if there is no such input
 * or loop. */
static size_t random_prefetch(const struct rkernel *rk, int s,
	char (*loops)[40], int n, int vec, char *buf, size_t len)
{
	const char *in[3];
	int i, m = 0, at, from;

	for (i = 0; rk->reads[s][i]; ++i)
		if (is_input(rk, rk->reads[s][i]))
			in[m++] = rk->reads[s][i];
	if (m == 0 || n - vec < 1)
		return 0;
	at = rnd(n - vec);
	from = rnd(at + 1);
	if (rnd(3) == 0)
		return snprintf(buf, len, "%s: prefetch %s at %s\n",
			rk->stmt[s], in[rnd(m)], loops[at]);
	return snprintf(buf, len, "%s: prefetch %s at %s from %s %d\n",
		rk->stmt[s], in[rnd(m)], loops[at], loops[from], 1 + rnd(3));
}

/* A random schedule for "rk" in "buf": per statement, splits and tiles
 * of its loops, a reordering, marks, then local buffers (a pack of a
 * tensor it reads, an accumulate), a prefetch and non-temporal stores of
 * the vectorised loop; for multi-statement
 * kernels a placement of a producer in a later statement. */
static void random_schedule(const struct rkernel *rk, char *buf, size_t len)
{
	int s, i, n, vec;
	size_t at = 0;
	char first[4][32];

	buf[0] = '\0';
	for (s = 0; s < rk->n_stmt; ++s) {
		char loops[16][40];
		const char *name = rk->stmt[s];

		for (n = 0; rk->loops[s][n]; ++n)
			snprintf(loops[n], sizeof(loops[n]), "%s",
				rk->loops[s][n]);
		if (rnd(2)) {
			int l = rnd(n), f = 1 + rnd(8);

			at += snprintf(buf + at, len - at, "%s: split %s %d\n",
				name, loops[l], f);
			memmove(loops[l + 2], loops[l + 1],
				(n - l - 1) * sizeof(loops[0]));
			strcpy(loops[l + 1], loops[l]);
			strcat(loops[l + 1], ".i");
			strcat(loops[l], ".o");
			n++;
		}
		if (rnd(2)) {
			at += snprintf(buf + at, len - at, "%s: reorder", name);
			for (i = n - 1; i > 0; --i) {
				char tmp[40];
				int j = rnd(i + 1);

				memcpy(tmp, loops[i], sizeof(tmp));
				memcpy(loops[i], loops[j], sizeof(tmp));
				memcpy(loops[j], tmp, sizeof(tmp));
			}
			for (i = 0; i < n; ++i)
				at += snprintf(buf + at, len - at, " %s",
					loops[i]);
			at += snprintf(buf + at, len - at, "\n");
		}
		if (rnd(3) == 0)
			at += snprintf(buf + at, len - at, "%s: parallel %s\n",
				name, loops[rnd(n)]);
		if (rnd(3) == 0)
			at += snprintf(buf + at, len - at, "%s: unroll %s %d\n",
				name, loops[rnd(n)], 2 + rnd(3));
		vec = rnd(3) == 0;
		if (vec)
			at += snprintf(buf + at, len - at,
				"%s: vectorize %s %d\n", name, loops[n - 1],
				4 << rnd(2));
		if (vec && rnd(3) == 0)
			at += snprintf(buf + at, len - at, "%s: stream %s\n",
				name, loops[n - 1]);
		for (i = 0; rk->reads[s][i]; ++i)
			;
		if (rnd(3) == 0) {
			int r = rnd(i);

			at += snprintf(buf + at, len - at,
				"%s: pack %s at %s", name, rk->reads[s][r],
				loops[rnd(n)]);
			at += random_layout(rk->read_idx[s][r], buf + at,
				len - at);
			at += snprintf(buf + at, len - at, "\n");
		}
		if (rnd(4) == 0) {
			at += snprintf(buf + at, len - at,
				"%s: accumulate %s", name, loops[rnd(n)]);
			at += random_layout(rk->write_idx[s], buf + at,
				len - at);
			at += snprintf(buf + at, len - at, "\n");
		}
		if (rnd(3) == 0)
			at += random_prefetch(rk, s, loops, n, vec, buf + at,
				len - at);
		strcpy(first[s], loops[0]);
	}
	if (rk->n_stmt > 1 && rnd(2)) {
		int p = rnd(rk->n_stmt - 1);
		int c = p + 1 + rnd(rk->n_stmt - p - 1);

		at += snprintf(buf + at, len - at, rnd(2) ?
			"%s: compute_at %s %s\n" : "%s: fuse %s\n",
			rk->stmt[p], rk->stmt[c], first[c]);
	}
}

/* The kernel of schedule "sched" compiled for rk's sizes (the code then
 * differs: constant trip counts, partial vector tiles run as whole
 * vectors where they may, codegen/walk.c), against the reference; "any"
 * is the kernel for any sizes. */
static void compare_fixed(const struct rkernel *rk, const char *sched,
	const ein_kernel *any, const char *what)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = compile_fixed(ctx, &prog, rk->src, sched, 0, any,
		rk->sizes);
	char fixed[2300];

	ck_assert_msg(k != NULL, "%s\nfor fixed sizes: %s", what,
		ein_ctx_last_error(ctx));
	snprintf(fixed, sizeof(fixed), "%s\n(sizes fixed)", what);
	compare(k, rk->sizes, rk->red, fixed);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
}

/* Random sizes "v" (for the sizes named "names") in kernel "k"'s order. */
static void sizes_by_name(const ein_kernel *k, const char *const *names,
	const int64_t *v, int64_t *sizes)
{
	int i, j;

	for (i = 0; i < ein_kernel_n_size(k); ++i)
		for (j = 0; names[j]; ++j)
			if (!strcmp(ein_kernel_get_size_name(k, i), names[j]))
				sizes[i] = v[j];
}

/* Register tiles whose edges do not divide random sizes, with the tile of
 * the output accumulated and the input packed, so that the edge tiles run
 * as whole vectors when compiled for the sizes (docs/schedules.md,
 * "Partial tiles as whole vectors"): against the reference, compiled for
 * any sizes and for these. */
START_TEST(padded_tiles)
{
	static const char *const mm_names[] = { "M", "K", "N", NULL };
	static const char *const cv_names[] = { "N", "C", "H", "W", "F",
		NULL };
	int t;

	rnd_state = 20261124;
	for (t = 0; t < 24; ++t) {
		char sched[512], what[700];
		struct rkernel rk = { 0 };
		int64_t v[5] = { 0 };
		int w = 4 << rnd(3);
		ein_ctx *ctx = ein_ctx_alloc();
		ein_program *prog;
		ein_kernel *k;

		if (t % 2 == 0) {
			rk.src = matmul_src;
			v[0] = 1 + rnd(20), v[1] = 1 + rnd(20);
			v[2] = 1 + rnd(50);
			rk.red = v[1];
			snprintf(sched, sizeof(sched), "C: split i %d\n"
				"C: split j %d\nC: reorder i.o j.o k i.i j.i\n"
				"C: pack B at j.o\nC: accumulate j.o\n%s%s"
				"C: vectorize j.i %d\n", 1 + rnd(5), w,
				rnd(2) ? "C: unroll i.i full\n" : "",
				rnd(3) ? "" : "C: parallel i.o\n", w);
		} else {
			rk.src = conv_src;
			v[0] = 1, v[1] = 1 + rnd(4), v[2] = 3 + rnd(10);
			v[3] = 3 + rnd(40), v[4] = 1 + rnd(5);
			rk.red = 9 * v[1];
			snprintf(sched, sizeof(sched), "O: split h %d\n"
				"O: split w %d\n"
				"O: reorder n h.o w.o f c r s h.i w.i\n"
				"O: pack I at w.o\nO: accumulate f\n"
				"O: vectorize w.i %d\n", 1 + rnd(3), w, w);
		}
		k = compile_with(ctx, &prog, rk.src, sched, 0);
		ck_assert_msg(k != NULL, "%s: %s", sched,
			ein_ctx_last_error(ctx));
		sizes_by_name(k, t % 2 == 0 ? mm_names : cv_names, v,
			rk.sizes);
		snprintf(what, sizeof(what), "trial %d at %lld %lld %lld "
			"%lld %lld:\n%s", t, (long long) v[0],
			(long long) v[1], (long long) v[2], (long long) v[3],
			(long long) v[4], sched);
		compare(k, rk.sizes, rk.red, what);
		compare_fixed(&rk, sched, k, what);
		ein_kernel_free(k);
		ein_program_free(prog);
		ein_ctx_free(ctx);
	}
}
END_TEST

START_TEST(random_schedules)
{
	const char *seed_env = getenv("EIN_SCHED_SEED");
	const char *trials_env = getenv("EIN_SCHED_TRIALS");
	int trials = trials_env ? atoi(trials_env) : tt_quick() ? 20 : 60;
	int t, accepted = 0;

	rnd_state = seed_env ? strtoull(seed_env, NULL, 0) : 20261123;
	for (t = 0; t < trials; ++t) {
		const struct rkernel *rk = &rkernels[rnd(N_RKERNEL)];
		char sched[2048], what[2200];
		ein_ctx *ctx = ein_ctx_alloc();
		ein_program *prog;
		ein_kernel *k;

		random_schedule(rk, sched, sizeof(sched));
		k = compile_with(ctx, &prog, rk->src, sched, 0);
		snprintf(what, sizeof(what), "trial %d:\n%s", t, sched);
		if (k) {
			accepted++;
			compare(k, rk->sizes, rk->red, what);
			compare_fixed(rk, sched, k, what);
		} else {
			/* Only a legality verdict may reject a schedule
			 * that the generator made well-formed. */
			ck_assert_msg(strstr(ein_ctx_last_error(ctx),
				"is illegal") ||
				strstr(ein_ctx_last_error(ctx),
				"cannot compute_at") ||
				strstr(ein_ctx_last_error(ctx),
				"cannot vectorise"),
				"%s rejected: %s", what,
				ein_ctx_last_error(ctx));
		}
		ein_kernel_free(k);
		ein_program_free(prog);
		ein_ctx_free(ctx);
	}
	ck_assert_msg(accepted * 3 >= trials, "only %d of %d random schedules "
		"were legal", accepted, trials);
}
END_TEST

/* ---- random OpenCL schedules ------------------------------------------ */

/* Is there an OpenCL device to run kernels on? */
static int have_opencl(void)
{
	char *list = ein_opencl_devices();
	int yes = list && strstr(list, "opencl:") != NULL;

	free(list);
	return yes;
}

/* Append the words loops[from .. to-1] to "buf" at "at". */
static size_t words(char *buf, size_t len, char (*loops)[40], int from,
	int to)
{
	size_t at = 0;
	int i;

	for (i = from; i < to; ++i)
		at += snprintf(buf + at, len - at, " %s", loops[i]);
	return at;
}

/* Is the index of loop "loop" ("i", "i.o") one of "idx" ("i j")? */
static int is_index_of(const char *loop, const char *idx)
{
	size_t len = strcspn(loop, ".");
	const char *p = idx;

	while (p && *p) {
		size_t w = strcspn(p, " ");

		if (w == len && !strncmp(p, loop, len))
			return 1;
		p += w + (p[w] == ' ');
	}
	return 0;
}

/* Move the loops of loops[0 .. n-1] that index the output "idx" to the
 * front, keeping their order (the loops a grid may map). */
static void outputs_first(char (*loops)[40], int n, const char *idx)
{
	char tmp[16][40];
	int i, m = 0;

	for (i = 0; i < n; ++i)
		if (is_index_of(loops[i], idx))
			memcpy(tmp[m++], loops[i], sizeof(tmp[0]));
	for (i = 0; i < n; ++i)
		if (!is_index_of(loops[i], idx))
			memcpy(tmp[m++], loops[i], sizeof(tmp[0]));
	memcpy(loops, tmp, n * sizeof(tmp[0]));
}

/* Maybe (one time in two) vectorise loop "loop" of statement "name",
 * with a width of 2 to 16, at "at" in "buf"; returns the new end. */
static size_t maybe_vectorize(char *buf, size_t len, size_t at,
	const char *name, const char *loop)
{
	if (rnd(2))
		return at;
	return at + snprintf(buf + at, len - at, "%s: vectorize %s %d\n",
		name, loop, 2 << rnd(4));
}

/* A random OpenCL schedule for "rk" in "buf" (docs/schedules.md): per
 * statement, up to two loops split by 2 to 16, the outer loops in a
 * random order before the inner ones (mostly those of the output's
 * indices first, which carry no dependence), the first one or two outer loops
 * mapped to work-groups and one or two inner loops to work-items (the
 * other outer loops sequential between them), maybe a tile of a tensor
 * the statement reads in __local memory at a loop between the blocks'
 * and the threads' loops, an accumulator at or inside the last thread
 * loop, an unrolled inner loop, the innermost loop vectorised (widths 2
 * to 16) where it is not mapped.  Statements the file does not map run
 * in one work-item. */
static void random_gpu_schedule(const struct rkernel *rk, char *buf,
	size_t len)
{
	int s, i, no, ni, nb, nt, r;
	size_t at = 0;

	buf[0] = '\0';
	for (s = 0; s < rk->n_stmt; ++s) {
		char loops[16][40], inner[8][40], tmp[40];
		const char *name = rk->stmt[s];
		int n_split;

		for (no = 0; rk->loops[s][no]; ++no)
			snprintf(loops[no], sizeof(loops[no]), "%s",
				rk->loops[s][no]);
		n_split = (int) rnd(3) < no ? (int) rnd(3) : 0;
		for (ni = 0; ni < n_split; ++ni) {
			int l = rnd(no);

			if (strchr(loops[l], '.'))
				break;
			at += snprintf(buf + at, len - at, "%s: split %s %d\n",
				name, loops[l], 2 << rnd(4));
			snprintf(inner[ni], sizeof(inner[ni]), "%.30s.i",
				loops[l]);
			strcat(loops[l], ".o");
		}
		for (i = no - 1; i > 0; --i) {
			int j = rnd(i + 1);

			memcpy(tmp, loops[i], sizeof(tmp));
			memcpy(loops[i], loops[j], sizeof(tmp));
			memcpy(loops[j], tmp, sizeof(tmp));
		}
		if (rnd(4))
			outputs_first(loops, no, rk->write_idx[s]);
		for (i = 0; i < ni; ++i)
			memcpy(loops[no + i], inner[i], sizeof(tmp));
		if (rnd(4))
			outputs_first(loops + no, ni, rk->write_idx[s]);
		if (no + ni > 1) {
			at += snprintf(buf + at, len - at, "%s: reorder", name);
			at += words(buf + at, len - at, loops, 0, no + ni);
			at += snprintf(buf + at, len - at, "\n");
		}
		if (rnd(4) == 0) {
			at = maybe_vectorize(buf, len, at, name,
				loops[no + ni - 1]);
			continue;
		}
		nb = 1 + rnd(no < 2 ? no : 2);
		at += snprintf(buf + at, len - at, "%s: gpu_blocks", name);
		at += words(buf + at, len - at, loops, 0, nb);
		at += snprintf(buf + at, len - at, "\n");
		nt = ni ? 1 + rnd(ni) : 0;
		if (!nt && no + ni > nb)
			at = maybe_vectorize(buf, len, at, name,
				loops[no + ni - 1]);
		if (!nt)
			continue;
		at += snprintf(buf + at, len - at, "%s: gpu_threads", name);
		at += words(buf + at, len - at, loops, no, no + nt);
		at += snprintf(buf + at, len - at, "\n");
		for (r = 0; rk->reads[s][r]; ++r)
			;
		if (rnd(2))
			at += snprintf(buf + at, len - at, "%s: local %s at %s\n",
				name, rk->reads[s][rnd(r)],
				loops[nb - 1 + rnd(no - nb + 1)]);
		if (rnd(3) == 0)
			at += snprintf(buf + at, len - at,
				"%s: accumulate %s\n", name,
				loops[no + nt - 1 + rnd(ni - nt + 1)]);
		if (ni > nt && rnd(3) == 0)
			at += snprintf(buf + at, len - at, "%s: unroll %s %s\n",
				name, loops[no + nt + rnd(ni - nt)],
				rnd(2) ? "full" : "2");
		if (ni > nt)
			at = maybe_vectorize(buf, len, at, name,
				loops[no + ni - 1]);
	}
}

/* The kernel of "prog" for any sizes, on the CPU, with the default
 * schedule (quick to compile): its sizes' names. */
static ein_kernel *any_sizes(ein_program *prog)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k;

	ein_options_set_auto(opts, 0);
	k = ein_kernel_compile_with(prog, NULL, opts);
	ein_options_free(opts);
	return k;
}

/* Compile "src" with schedule "sched" for the OpenCL target, with rk's
 * sizes fixed if "fixed"; NULL on error, with the message in ctx. */
static ein_kernel *compile_gpu(ein_ctx *ctx, ein_program **prog,
	const struct rkernel *rk, const char *sched, int fixed)
{
	char text[4096];
	char *path;
	ein_options *opts = ein_options_alloc();
	ein_kernel *k, *any;
	int i;

	*prog = ein_program_parse(ctx, rk->src, "test.ein");
	ck_assert_msg(*prog != NULL, "%s", ein_ctx_last_error(ctx));
	snprintf(text, sizeof(text), "ein-schedule 1\n%s", sched);
	path = write_temp(text);
	ein_options_set_schedule(opts, path);
	ck_assert_int_eq(ein_options_set_target(opts, "opencl"), EIN_OK);
	any = fixed ? any_sizes(*prog) : NULL;
	for (i = 0; any && i < ein_kernel_n_size(any); ++i)
		ck_assert_int_eq(ein_options_fix_size(opts,
			ein_kernel_get_size_name(any, i), rk->sizes[i]),
			EIN_OK);
	ein_kernel_free(any);
	k = ein_kernel_compile_with(*prog, NULL, opts);
	ein_options_free(opts);
	unlink(path);
	free(path);
	return k;
}

/* The messages with which a well-formed random OpenCL schedule may be
 * rejected: a broken dependence, or a tile a work-group cannot hold. */
static int gpu_verdict(const char *msg)
{
	return strstr(msg, "is illegal") || strstr(msg, "no constant size");
}

/* Random legal OpenCL schedules (random_gpu_schedule) against the
 * reference interpreter, on the device: odd trials compiled for any
 * sizes, even ones for rk's.  Few trials, as each builds a program on
 * the device (EIN_SCHED_GPU_TRIALS for more, EIN_SCHED_SEED;
 * EIN_SCHED_GPU_ONLY=T runs trial T alone, to reproduce it). */
START_TEST(random_gpu_schedules)
{
	const char *seed_env = getenv("EIN_SCHED_SEED");
	const char *trials_env = getenv("EIN_SCHED_GPU_TRIALS");
	const char *only_env = getenv("EIN_SCHED_GPU_ONLY");
	int trials = trials_env ? atoi(trials_env) : 16, t, accepted = 0;
	int only = only_env ? atoi(only_env) : -1;

	if (!have_opencl()) {
		printf("random_gpu_schedules: no OpenCL device, not run\n");
		return;
	}
	rnd_state = seed_env ? strtoull(seed_env, NULL, 0) : 20261126;
	for (t = 0; t < trials; ++t) {
		const struct rkernel *rk = &rkernels[rnd(N_RKERNEL)];
		char sched[2048], what[2200];
		ein_ctx *ctx = ein_ctx_alloc();
		ein_program *prog;
		ein_kernel *k;

		random_gpu_schedule(rk, sched, sizeof(sched));
		if (only >= 0 && t != only) {	/* counted as legal */
			accepted++;
			ein_ctx_free(ctx);
			continue;
		}
		k = compile_gpu(ctx, &prog, rk, sched, t % 2 == 0);
		snprintf(what, sizeof(what), "OpenCL trial %d%s:\n%s", t,
			t % 2 == 0 ? " (sizes fixed)" : "", sched);
		if (k) {
			accepted++;
			compare(k, rk->sizes, rk->red, what);
		} else {
			if (getenv("EIN_SCHED_VERBOSE"))
				printf("%s rejected: %s\n", what,
					ein_ctx_last_error(ctx));
			ck_assert_msg(gpu_verdict(ein_ctx_last_error(ctx)),
				"%s rejected: %s", what,
				ein_ctx_last_error(ctx));
		}
		ein_kernel_free(k);
		ein_program_free(prog);
		ein_ctx_free(ctx);
	}
	ck_assert_msg(accepted * 2 >= trials, "only %d of %d random OpenCL "
		"schedules were legal", accepted, trials);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schedule");
	TCase *tc = tcase_create("schedule");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, good_schedules, 0,
		sizeof(goods) / sizeof(goods[0]));
	tcase_add_loop_test(tc, bad_schedules, 0,
		sizeof(bads) / sizeof(bads[0]));
	tcase_add_test(tc, def_mismatch);
	tcase_add_test(tc, show_copies);
	tcase_add_test(tc, show_storage);
	tcase_add_test(tc, strict_max_nan);
	tcase_add_test(tc, random_schedules);
	tcase_add_test(tc, padded_tiles);
	suite_add_tcase(s, tc);
	tc = tcase_create("opencl");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, random_gpu_schedules);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
