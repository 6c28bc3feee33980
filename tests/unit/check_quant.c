/*
 * check_quant.c: the requantisation arithmetic (qmul, clamp; docs/
 * quantization.md) in compiled kernels (explicit vectors and scalar
 * loops) and in the reference interpreter, against a reference written
 * here a second way: the exact product in 128 bits, divided by 2^s with
 * floor division, the remainder compared with half of 2^s.
 *
 * The table holds the edges with their values worked by hand: ties in
 * both signs (round half away from zero: 2.5 gives 3, -2.5 gives -3),
 * saturation of the int32 result (INT32_MIN * INT32_MIN / 2^31 = 2^31),
 * shifts of 0, 63 and outside 0..63 (clamped), Q31 multipliers near
 * 2^31; then random values over the whole int32 range, and the
 * requantisation to int8 with negative zero points and saturation.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ein.h"
#include "onnx/calib.h"
#include "testutil.h"
#include "rng.h"

/* The reference: x * m / 2^s (s clamped to 0..63), rounded to nearest,
 * ties away from zero, saturated to int32. */
static int32_t ref_qmul(int32_t x, int32_t m, int32_t s)
{
	__int128 p = (__int128) x * m, q, rem, d;
	int sh = s < 0 ? 0 : s > 63 ? 63 : s;

	d = (__int128) 1 << sh;
	q = p >= 0 ? p / d : -((-p) / d);
	rem = p - q * d;
	if (rem < 0)
		rem = -rem;
	if (2 * rem >= d)
		q += p >= 0 ? 1 : -1;
	return q > INT32_MAX ? INT32_MAX : q < INT32_MIN ? INT32_MIN :
		(int32_t) q;
}

/* x, m, s and qmul(x, m, s), worked by hand. */
static const int32_t edges[][4] = {
	{ 3, 1, 1, 2 }, { -3, 1, 1, -2 }, { 5, 1, 1, 3 }, { -5, 1, 1, -3 },
	{ 1, 1, 1, 1 }, { -1, 1, 1, -1 }, { 2, 1, 2, 1 }, { -2, 1, 2, -1 },
	{ 1, 1, 2, 0 }, { -1, 1, 2, 0 }, { 3, 1, 2, 1 }, { -3, 1, 2, -1 },
	{ 1, 1 << 30, 31, 1 }, { -1, 1 << 30, 31, -1 },
	{ 3, 1 << 30, 31, 2 }, { -3, 1 << 30, 31, -2 },
	{ 1000, 1518500250, 31, 707 }, { -1000, 1518500250, 31, -707 },
	{ 7, -1, 0, -7 }, { 7, 1, -5, 7 }, { 65536, 65536, 0, INT32_MAX },
	{ -65536, 65536, 0, INT32_MIN }, { INT32_MIN, 1, 0, INT32_MIN },
	{ INT32_MIN, -1, 0, INT32_MAX },
	{ INT32_MAX, INT32_MAX, 31, 2147483646 },
	{ INT32_MIN, INT32_MIN, 31, INT32_MAX },
	{ INT32_MIN, INT32_MAX, 31, -2147483647 },
	{ INT32_MIN, INT32_MIN, 62, 1 }, { INT32_MIN, INT32_MIN, 63, 1 },
	{ INT32_MIN, INT32_MAX, 63, 0 }, { INT32_MIN, INT32_MIN, 100, 1 },
	{ INT32_MAX, 1, 32, 0 }, { INT32_MAX, 2, 32, 1 },
	{ -1073741824, 1, 31, -1 }, { -1073741823, 1, 31, 0 },
};

#define N_EDGE ((int) (sizeof(edges) / sizeof(edges[0])))
#define N_RANDOM 2000

static const char src[] =
	"def rq(int32(N) X, int32(N) M, int32(N) S, int32(N) Z)\n"
	"    -> (int32(N) Q, int8(N) Y, uint8(N) U) {\n"
	"    Q(i) = qmul(X(i), M(i), S(i))\n"
	"    Y(i) = int8(clamp(qmul(X(i), M(i), S(i)) + Z(i), -128, 127))\n"
	"    U(i) = uint8(clamp(qmul(X(i), M(i), S(i)) + Z(i), 0, 255))\n"
	"}\n";

/* The inputs: the edges, then random x and m over int32, shifts in
 * -2..65 (some random x small, so that results do not all saturate),
 * and zero points in -300..299 (wider than int8, negative ones
 * included). */
static void fill(int32_t *x, int32_t *m, int32_t *s, int32_t *z, int n)
{
	uint64_t seed = 25;
	int i;

	for (i = 0; i < n; ++i) {
		if (i < N_EDGE) {
			x[i] = edges[i][0];
			m[i] = edges[i][1];
			s[i] = edges[i][2];
		} else {
			x[i] = (int32_t) ein_rng_next(&seed);
			if (i % 2)
				x[i] >>= ein_rng_next(&seed) % 31;
			m[i] = (int32_t) ein_rng_next(&seed);
			s[i] = (int32_t) (ein_rng_next(&seed) % 68) - 2;
		}
		z[i] = (int32_t) (ein_rng_next(&seed) % 600) - 300;
	}
}

/* Check the outputs q, y, u of the kernel (or the interpreter: "who")
 * against the reference, and the hand-worked values of the edges. */
static void check_outputs(const char *who, const int32_t *x, const int32_t *m,
	const int32_t *s, const int32_t *z, const int32_t *q, const int8_t *y,
	const uint8_t *u, int n)
{
	int i;

	for (i = 0; i < n; ++i) {
		int32_t r = ref_qmul(x[i], m[i], s[i]);
		int64_t t = (int32_t) ((uint32_t) r + (uint32_t) z[i]);

		if (i < N_EDGE)
			ck_assert_msg(r == edges[i][3], "reference: qmul(%d, "
				"%d, %d) = %d, worked by hand %d", x[i], m[i],
				s[i], r, edges[i][3]);
		ck_assert_msg(q[i] == r, "%s: qmul(%d, %d, %d) = %d, "
			"expected %d", who, x[i], m[i], s[i], q[i], r);
		ck_assert_msg(y[i] == (t < -128 ? -128 : t > 127 ? 127 : t),
			"%s: int8 requantisation of %d + %d gives %d", who, r,
			z[i], y[i]);
		ck_assert_msg(u[i] == (t < 0 ? 0 : t > 255 ? 255 : t),
			"%s: uint8 requantisation of %d + %d gives %d", who, r,
			z[i], u[i]);
	}
}

/* Run the kernel compiled with the automatic schedule (explicit
 * vectors along i) or the default one (scalar loop), and the
 * interpreter, on the same inputs. */
static void check_rq(int automatic)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *opts = ein_options_alloc();
	ein_program *prog = ein_program_parse(ctx, src, "rq.ein");
	ein_kernel *k;
	int n = N_EDGE + N_RANDOM, pass, i;
	int64_t sizes[1] = { n };
	struct anyt t[7];
	static const uint8_t code[7] = { kDLInt, kDLInt, kDLInt, kDLInt,
		kDLInt, kDLInt, kDLUInt };
	static const uint8_t bits[7] = { 32, 32, 32, 32, 32, 8, 8 };
	DLTensor *args[7];

	ck_assert_msg(prog && opts, "%s", ein_ctx_last_error(ctx));
	ein_options_set_auto(opts, automatic);
	k = ein_kernel_compile_with(prog, "rq", opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	for (i = 0; i < 7; ++i) {
		anyt_alloc(&t[i], code[i], bits[i], 1, sizes);
		args[i] = &t[i].dl;
	}
	fill(t[0].dl.data, t[1].dl.data, t[2].dl.data, t[3].dl.data, n);
	for (pass = 0; pass < 2; ++pass) {
		ck_assert_int_eq(pass ? ein_kernel_call_reference(k, args, 7,
			sizes, 1) : ein_kernel_call(k, args, 7, sizes, 1),
			EIN_OK);
		check_outputs(pass ? "interpreter" : "compiled",
			t[0].dl.data, t[1].dl.data, t[2].dl.data,
			t[3].dl.data, t[4].dl.data, t[5].dl.data,
			t[6].dl.data, n);
	}
	for (i = 0; i < 7; ++i)
		free(t[i].dl.data);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_options_free(opts);
	ein_ctx_free(ctx);
}

START_TEST(requantize_vectors_vs_reference)
{
	check_rq(1);
}
END_TEST

START_TEST(requantize_scalar_vs_reference)
{
	check_rq(0);
}
END_TEST

/* qmul takes integers: a float argument is an error at the call, with
 * a hint (the message the user sees). */
START_TEST(qmul_of_float_is_an_error)
{
	static const char bad[] =
		"def f(float32(N) X, int32(N) M) -> (Y) {\n"
		"    Y(i) = qmul(X(i), M(i), 31)\n"
		"}\n";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ein_program_parse(ctx, bad, "bad.ein");

	ck_assert_ptr_null(prog);
	ck_assert_msg(strstr(ein_ctx_last_error(ctx), "bad.ein:2:12: error: "
		"qmul takes integer arguments, not float32") != NULL,
		"%s", ein_ctx_last_error(ctx));
	ein_ctx_free(ctx);
}
END_TEST

/* The int8 GEMM of schedules/x86_64-avx512/qgemm.sched: u8 x s8 dot
 * products of 4 consecutive k (B in VNNI's layout), which the codegen
 * computes with vpdpbusd on a CPU with AVX512-VNNI (the LLVM code must
 * then call it) and with plain vectors elsewhere.  N = 200 = 3 x 64 + 8
 * gives full micro-tiles (explicit vectors) and an edge (masked or scalar
 * code); M = 20 is not a multiple of the 6 rows; K = 280 sums reach
 * 280 x 255 x 128.  The compiled kernel and the interpreter equal the
 * C loop exactly.  The last case packs A into micro-panels of 6 rows,
 * k-major, with "pack A at i.o layout i/6 k i%6": the four bytes q of
 * A(i, k, q), read at four constants and left out of the layout, stay
 * innermost, so that vpdpbusd still reads them (docs/schedules.md). */
static const char *const qgemm_src[] = {
	"def qgemm(uint8(M, K4, 4) A, int8(K4, N, 4) B) -> (int32(M, N) C) {\n"
	"    C(i, j) +=! A(i, k, 0) * B(k, j, 0) + A(i, k, 1) * B(k, j, 1)\n"
	"        + A(i, k, 2) * B(k, j, 2) + A(i, k, 3) * B(k, j, 3)\n"
	"}\n",
	/* The products in another order, factors swapped, a cast. */
	"def qgemm(uint8(M, K4, 4) A, int8(K4, N, 4) B) -> (int32(M, N) C) {\n"
	"    C(i, j) +=! A(i, k, 3) * B(k, j, 3) + B(k, j, 1) * A(i, k, 1)\n"
	"        + int32(A(i, k, 0)) * B(k, j, 0) + A(i, k, 2) * B(k, j, 2)\n"
	"}\n",
};

/* The directives that case "i" adds to qgemm.sched (NULL: none). */
static const char *qgemm_extra(int i)
{
	return i == 2 ? "C: pack A at i.o layout i/6 k i%6\n" : NULL;
}

/* The schedule file of case "i": qgemm.sched, or for the last case the
 * one for 1024^3 (B packed in micro-panels, C.init inside the tiles). */
static const char *qgemm_file(int i)
{
	return i == 3 ? "qgemm.large1024.sched" : "qgemm.sched";
}

/* Write the schedule file "path" with "extra" appended to a copy of it
 * into "out" (a temporary file) and its name into "tmp". */
static void schedule_with(const char *path, const char *extra, char *tmp)
{
	FILE *in = fopen(path, "r"), *out;
	char buf[4096];
	size_t n;
	int fd;

	strcpy(tmp, "/tmp/check_quant_XXXXXX");
	fd = mkstemp(tmp);
	ck_assert_msg(in && fd >= 0, "cannot copy %s", path);
	out = fdopen(fd, "w");
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fputs(extra, out);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

/* Does the host have AVX512-VNNI, so that ein's host target does? */
static int host_has_vnni(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") &&
		__builtin_cpu_supports("avx512vnni");
}

START_TEST(qgemm_vnni_vs_loop)
{
	const char *srcdir = getenv("EIN_SRCDIR");
	char path[4096];
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *opts = ein_options_alloc();
	ein_program *prog = ein_program_parse(ctx, qgemm_src[_i % 2],
		"qgemm.ein");
	char tmp[64] = "";
	int64_t m = 20, k4 = 70, n = 200, sizes[3] = { m, k4, n }, i, j, p;
	struct anyt a, b, c, r;
	DLTensor *args[3] = { &a.dl, &b.dl, &c.dl };
	DLTensor *rargs[3] = { &a.dl, &b.dl, &r.dl };
	uint64_t seed = 7;
	uint8_t *pa;
	int8_t *pb;
	ein_kernel *k;
	char *llvm;

	ck_assert_msg(prog && opts, "%s", ein_ctx_last_error(ctx));
	snprintf(path, sizeof(path), "%s/schedules/x86_64-avx512/%s",
		srcdir ? srcdir : ".", qgemm_file(_i));
	if (qgemm_extra(_i))
		schedule_with(path, qgemm_extra(_i), tmp);
	ck_assert_int_eq(ein_options_set_schedule(opts, tmp[0] ? tmp : path),
		EIN_OK);
	/* Fixed sizes: isl builds the tiles' code in a tenth of the time. */
	ck_assert_int_eq(ein_options_fix_size(opts, "M", m), EIN_OK);
	ck_assert_int_eq(ein_options_fix_size(opts, "K4", k4), EIN_OK);
	ck_assert_int_eq(ein_options_fix_size(opts, "N", n), EIN_OK);
	k = ein_kernel_compile_with(prog, "qgemm", opts);
	ck_assert_msg(k != NULL, "%s", ein_ctx_last_error(ctx));
	llvm = ein_program_show_with(prog, "qgemm", EIN_STAGE_LLVM, opts);
	ck_assert_ptr_nonnull(llvm);
	if (tmp[0])
		remove(tmp);
	if (host_has_vnni())
		ck_assert_msg(strstr(llvm, "vpdpbusd") != NULL,
			"no vpdpbusd on a CPU with AVX512-VNNI");
	free(llvm);
	anyt_alloc(&a, kDLUInt, 8, 3, (int64_t[]) { m, k4, 4 });
	anyt_alloc(&b, kDLInt, 8, 3, (int64_t[]) { k4, n, 4 });
	anyt_alloc(&c, kDLInt, 32, 2, (int64_t[]) { m, n });
	anyt_alloc(&r, kDLInt, 32, 2, (int64_t[]) { m, n });
	pa = a.dl.data;
	pb = b.dl.data;
	for (i = 0; i < a.n; ++i)
		pa[i] = (uint8_t) ein_rng_next(&seed);
	for (i = 0; i < b.n; ++i)
		pb[i] = (int8_t) ein_rng_next(&seed);
	ck_assert_int_eq(ein_kernel_call(k, args, 3, sizes, 3), EIN_OK);
	ck_assert_int_eq(ein_kernel_call_reference(k, rargs, 3, sizes, 3),
		EIN_OK);
	for (i = 0; i < m; ++i)
		for (j = 0; j < n; ++j) {
			int32_t s = 0;

			for (p = 0; p < 4 * k4; ++p)
				s += pa[i * 4 * k4 + p] *
					pb[(p / 4 * n + j) * 4 + p % 4];
			ck_assert_msg(((int32_t *) c.dl.data)[i * n + j] == s,
				"compiled C(%d, %d) = %d, expected %d", (int) i,
				(int) j, ((int32_t *) c.dl.data)[i * n + j], s);
			ck_assert_int_eq(((int32_t *) r.dl.data)[i * n + j], s);
		}
	free(a.dl.data);
	free(b.dl.data);
	free(c.dl.data);
	free(r.dl.data);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_options_free(opts);
	ein_ctx_free(ctx);
}
END_TEST

/* The 3x3 stride-2 int8 convolution in VNNI's layout with
 * bench/schedules/x86_64-avx512/qconv_vnni_s2.sched (bench/kernels.ein): the
 * register tile of 7 columns x 32 output channels, each term a sum of
 * four u8 x s8 products over consecutive input channels, vpdpbusd on a
 * CPU with AVX512-VNNI.  M = 40 (one full block of 32 channels and an
 * edge of 8), Q = 8 (a tile of 7 columns and an edge of 1), C4 = 3; the
 * compiled kernel and the interpreter equal the C loop exactly. */
static const char qconv_src[] =
	"def qconv_vnni_s2(uint8(C4, H, W, 4) X, int8(C4, 3, 3, M, 4) K)\n"
	"    -> (int32(M, (H - 1) / 2, (W - 1) / 2) Y) {\n"
	"    Y(m, p, q) +=! X(c, 2 * p + r, 2 * q + s, 0) * K(c, r, s, m, 0)\n"
	"        + X(c, 2 * p + r, 2 * q + s, 1) * K(c, r, s, m, 1)\n"
	"        + X(c, 2 * p + r, 2 * q + s, 2) * K(c, r, s, m, 2)\n"
	"        + X(c, 2 * p + r, 2 * q + s, 3) * K(c, r, s, m, 3)\n"
	"}\n";

/* Y(m, p, q) of qconv_src, computed here. */
static int32_t qconv_ref(const uint8_t *x, const int8_t *k, int64_t c4,
	int64_t h, int64_t w, int64_t m, int64_t mo, int64_t p, int64_t q)
{
	int64_t c, r, s, e;
	int32_t sum = 0;

	(void) h;
	for (c = 0; c < c4; ++c)
		for (r = 0; r < 3; ++r)
			for (s = 0; s < 3; ++s)
				for (e = 0; e < 4; ++e)
					sum += x[((c * h + 2 * p + r) * w +
						2 * q + s) * 4 + e] *
						k[(((c * 3 + r) * 3 + s) * m +
						mo) * 4 + e];
	return sum;
}

START_TEST(qconv_vnni_vs_loop)
{
	const char *srcdir = getenv("EIN_SRCDIR");
	char path[4096];
	ein_ctx *ctx = ein_ctx_alloc();
	ein_options *opts = ein_options_alloc();
	ein_program *prog = ein_program_parse(ctx, qconv_src, "qconv.ein");
	int64_t c4 = 3, h = 15, w = 17, m = 40, pp = 7, qq = 8;
	int64_t sizes[4], i, mo, p, q;
	struct anyt x, k, y, r;
	DLTensor *args[3] = { &x.dl, &k.dl, &y.dl };
	DLTensor *rargs[3] = { &x.dl, &k.dl, &r.dl };
	uint64_t seed = 11;
	ein_kernel *kern;
	char *llvm;

	ck_assert_msg(prog && opts, "%s", ein_ctx_last_error(ctx));
	snprintf(path, sizeof(path),
		"%s/bench/schedules/x86_64-avx512/qconv_vnni_s2.sched",
		srcdir ? srcdir : ".");
	ck_assert_int_eq(ein_options_set_schedule(opts, path), EIN_OK);
	ck_assert_int_eq(ein_options_fix_size(opts, "C4", c4), EIN_OK);
	ck_assert_int_eq(ein_options_fix_size(opts, "H", h), EIN_OK);
	ck_assert_int_eq(ein_options_fix_size(opts, "W", w), EIN_OK);
	ck_assert_int_eq(ein_options_fix_size(opts, "M", m), EIN_OK);
	kern = ein_kernel_compile_with(prog, "qconv_vnni_s2", opts);
	ck_assert_msg(kern != NULL, "%s", ein_ctx_last_error(ctx));
	llvm = ein_program_show_with(prog, "qconv_vnni_s2", EIN_STAGE_LLVM,
		opts);
	ck_assert_ptr_nonnull(llvm);
	if (host_has_vnni())
		ck_assert_msg(strstr(llvm, "vpdpbusd") != NULL,
			"no vpdpbusd on a CPU with AVX512-VNNI");
	free(llvm);
	for (i = 0; i < ein_kernel_n_size(kern); ++i) {
		const char *n = ein_kernel_get_size_name(kern, i);

		sizes[i] = !strcmp(n, "C4") ? c4 : !strcmp(n, "H") ? h :
			!strcmp(n, "W") ? w : m;
	}
	anyt_alloc(&x, kDLUInt, 8, 4, (int64_t[]) { c4, h, w, 4 });
	anyt_alloc(&k, kDLInt, 8, 5, (int64_t[]) { c4, 3, 3, m, 4 });
	anyt_alloc(&y, kDLInt, 32, 3, (int64_t[]) { m, pp, qq });
	anyt_alloc(&r, kDLInt, 32, 3, (int64_t[]) { m, pp, qq });
	for (i = 0; i < x.n; ++i)
		((uint8_t *) x.dl.data)[i] = (uint8_t) ein_rng_next(&seed);
	for (i = 0; i < k.n; ++i)
		((int8_t *) k.dl.data)[i] = (int8_t) ein_rng_next(&seed);
	ck_assert_int_eq(ein_kernel_call(kern, args, 3, sizes,
		ein_kernel_n_size(kern)), EIN_OK);
	ck_assert_int_eq(ein_kernel_call_reference(kern, rargs, 3, sizes,
		ein_kernel_n_size(kern)), EIN_OK);
	for (mo = 0; mo < m; ++mo)
		for (p = 0; p < pp; ++p)
			for (q = 0; q < qq; ++q) {
				int32_t want = qconv_ref(x.dl.data, k.dl.data,
					c4, h, w, m, mo, p, q);
				int64_t e = (mo * pp + p) * qq + q;

				ck_assert_msg(((int32_t *) y.dl.data)[e] == want,
					"compiled Y(%d, %d, %d) = %d, expected "
					"%d", (int) mo, (int) p, (int) q,
					((int32_t *) y.dl.data)[e], want);
				ck_assert_int_eq(((int32_t *) r.dl.data)[e],
					want);
			}
	free(x.dl.data);
	free(k.dl.data);
	free(y.dl.data);
	free(r.dl.data);
	ein_kernel_free(kern);
	ein_program_free(prog);
	ein_options_free(opts);
	ein_ctx_free(ctx);
}
END_TEST

/* The calibrations on synthetic histograms (src/onnx/calib.c).  The
 * bulk: 2048 bins, counts 1000 exp(-(x / 1.5)^2) for |x| < 5; one
 * outlier, a single value in the last bin.  "lo" is 0 (a Relu's output,
 * one-sided) or -5 (two-sided).  KL must clip the outlier (the range
 * ends below 20, far from 100: its smallest threshold is the one of as
 * many bins as levels, 255 / 2048 of 100 here, as TensorRT's is 128 of
 * 2048) and keep the bulk (beyond 2, where the counts are still 170);
 * minmax keeps the outlier; percentile cuts both tails. */
static void bulk_with_outlier(double lo, double hi, double *c, int n)
{
	double w = (hi - lo) / n;
	int k;

	for (k = 0; k < n; ++k) {
		double x = lo + (k + 0.5) * w;

		c[k] = fabs(x) < 5 ? floor(1000 * exp(-(x / 1.5) * (x / 1.5))) : 0;
	}
	c[n - 1] = 1;
}

START_TEST(calibration_clips_an_outlier)
{
	static const double los[] = { 0, -5 };
	double c[2048], a, b;

	bulk_with_outlier(los[_i], 100, c, 2048);
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_MINMAX, los[_i], 100,
		c, 2048, &a, &b), 0);
	ck_assert(a == los[_i] && b == 100);
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_KL, los[_i], 100, c,
		2048, &a, &b), 0);
	ck_assert_msg(b > 2 && b < 20 && a == los[_i], "kl: [%g, %g]", a, b);
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_PERCENTILE, los[_i],
		100, c, 2048, &a, &b), 0);
	ck_assert_msg(b > 2 && b < 5 && a >= los[_i] && a <= 0,
		"percentile: [%g, %g]", a, b);
}
END_TEST

/* Without an outlier KL keeps (nearly) the whole range: a uniform
 * histogram loses more by clipping than by rounding; a histogram no finer
 * than the levels gives minmax's range, and so does one far from 0; a
 * negative count or no count is malformed. */
START_TEST(calibration_kl_edges)
{
	double c[2048], a, b;
	int k;

	for (k = 0; k < 2048; ++k)
		c[k] = 10;
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_KL, -1, 1, c, 2048,
		&a, &b), 0);
	ck_assert_msg(a <= -0.95 && b >= 0.95, "uniform: [%g, %g]", a, b);
	bulk_with_outlier(0, 100, c, 64);
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_KL, 0, 100, c, 64,
		&a, &b), 0);
	ck_assert(a == 0 && b == 100);
	/* 200 bins: no finer than uint8's 255 levels, finer than 7-bit
	 * activations' 127 (--activation-bits 7), which clip the outlier
	 * (at no fewer than 128 bins: thresholds of no more bins than
	 * levels are not compared). */
	bulk_with_outlier(0, 100, c, 200);
	ck_assert_int_eq(ein_calib_range_levels(EIN_CALIBRATION_KL, 255, 0,
		100, c, 200, &a, &b), 0);
	ck_assert(a == 0 && b == 100);
	ck_assert_int_eq(ein_calib_range_levels(EIN_CALIBRATION_KL, 127, 0,
		100, c, 200, &a, &b), 0);
	ck_assert_msg(a == 0 && b >= 64 && b < 100, "127 levels: [%g, %g]",
		a, b);
	/* Far from 0 (a million bins of magnitude): the range kept. */
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_KL, 1e6, 1e6 + 1, c,
		64, &a, &b), 0);
	ck_assert(a == 1e6 && b == 1e6 + 1);
	c[3] = -1;
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_KL, 0, 100, c, 64,
		&a, &b), -1);
	memset(c, 0, sizeof(c));
	ck_assert_int_eq(ein_calib_range(EIN_CALIBRATION_KL, 0, 100, c, 64,
		&a, &b), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("quant");
	TCase *tc = tcase_create("requantize");
	SRunner *sr;
	int failed;

	/* JIT compiles with LLVM's O3 pipeline, slow under sanitizers. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, requantize_vectors_vs_reference);
	tcase_add_test(tc, requantize_scalar_vs_reference);
	tcase_add_test(tc, qmul_of_float_is_an_error);
	tcase_add_loop_test(tc, qgemm_vnni_vs_loop, 0,
		sizeof(qgemm_src) / sizeof(qgemm_src[0]) + 2);
	tcase_add_test(tc, qconv_vnni_vs_loop);
	tcase_add_loop_test(tc, calibration_clips_an_outlier, 0, 2);
	tcase_add_test(tc, calibration_kl_edges);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
