/*
 * cmd_demo.c: "ein demo", the built-in matmul example against OpenBLAS.
 *
 * The kernel is examples/matmul/matmul.ein, built in so that the demo
 * runs from any directory; it is compiled once with symbolic sizes and
 * run at each size next to cblas_sgemm on the same inputs.  Both run on
 * one thread: ein's default schedule is sequential until the schedules
 * issue adds "parallel".
 *
 * OpenBLAS is loaded here, with dlopen, rather than linked into ein: it
 * starts its threads when it is loaded, and they spin for a while, taking
 * a core from every other ein command on a small machine.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "cli.h"

/* The largest n of "ein demo --sizes": three n x n matrices of floats
 * take 48 GiB at 65536. */
#define MAX_DEMO_SIZE 65536

/* The library and the functions the demo calls. */
static const char *const blas_libs[] = { "libopenblas.so.0",
	"libopenblas.so" };
static __typeof__(cblas_sgemm) *sgemm;
static __typeof__(openblas_set_num_threads) *set_num_threads;

/* Load OpenBLAS; returns -1 (after printing why) if it cannot be. */
static int load_blas(void)
{
	void *lib = NULL;
	size_t i;

	for (i = 0; !lib && i < sizeof(blas_libs) / sizeof(blas_libs[0]); ++i)
		lib = dlopen(blas_libs[i], RTLD_NOW | RTLD_LOCAL);
	if (lib) {
		sgemm = (__typeof__(sgemm)) dlsym(lib, "cblas_sgemm");
		set_num_threads = (__typeof__(set_num_threads)) dlsym(lib,
			"openblas_set_num_threads");
	}
	if (sgemm)
		return 0;
	fprintf(stderr, "ein demo: error: cannot load OpenBLAS's cblas_sgemm "
		"(%s); install the Debian package libopenblas0\n",
		lib ? "no such symbol" : dlerror());
	return -1;
}

static const char matmul_source[] =
"def matmul(float32(M, K) A, float32(K, N) B) -> (C) {\n"
"    C(i, j) +=! A(i, k) * B(k, j)\n"
"}\n";

/* The median time of cblas_sgemm computing c = a b, all n x n. */
static double time_sgemm(const float *a, const float *b, float *c, int n,
	int repeat)
{
	double t[repeat], start = ein_cli_now();
	int i;

	sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n,
		b, n, 0.0f, c, n);
	for (i = 0; i < repeat; ++i) {
		double t0 = ein_cli_now();

		sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
			1.0f, a, n, b, n, 0.0f, c, n);
		t[i] = ein_cli_now() - t0;
		if (i >= 2 && ein_cli_now() - start > 2.0) {
			repeat = i + 1;
			break;
		}
	}
	return ein_cli_median(t, repeat);
}

/* Run and compare at n x n x n; returns -1 on error or mismatch. */
static int demo_size(ein_kernel *k, int64_t n)
{
	int64_t sizes[3] = { n, n, n };
	struct ein_cli_tensor t[4];
	DLTensor *args[3] = { &t[0].dl, &t[1].dl, &t[2].dl };
	uint64_t seed = 7;
	double ein_s, blas_s, err, scale, gflop = 2.0 * n * n * n * 1e-9;
	int i, ok = 0;

	/* Tensors after a failed allocation are freed too: start empty. */
	memset(t, 0, sizeof(t));
	for (i = 0; i < 4 && ok == 0; ++i)
		ok = ein_cli_tensor_alloc(&t[i], k, i < 3 ? i : 2, sizes);
	if (ok == 0) {
		ein_cli_tensor_randomize(&t[0], &seed);
		ein_cli_tensor_randomize(&t[1], &seed);
		ein_s = ein_cli_time_call(k, args, 3, sizes, 10, NULL);
		blas_s = time_sgemm(t[0].dl.data, t[1].dl.data, t[3].dl.data,
			n, 10);
		ein_cli_tensor_compare(&t[2], &t[3], &err, &scale);
		ok = ein_s < 0 || !(err <= 1e-4 * scale) ? -1 : 0;
		printf("%6lld %10.3f %9.2f %10.3f %9.2f %8.2f %12.2e%s\n",
			(long long) n, ein_s * 1e3, gflop / ein_s,
			blas_s * 1e3, gflop / blas_s, blas_s / ein_s, err,
			ok == 0 ? "" : "  MISMATCH");
	}
	for (i = 0; i < 4; ++i)
		ein_cli_tensor_free(&t[i]);
	return ok;
}

int ein_cmd_demo(int argc, char **argv)
{
	const char *spec = "128,256,512,1024";
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog;
	ein_kernel *k = NULL;
	double t0 = ein_cli_now();
	int ok = 0;

	if (argc >= 3 && !strcmp(argv[1], "--sizes"))
		spec = argv[2];
	else if (argc >= 2) {
		ein_cli_unexpected("ein demo", argv[1]);
		return (ein_ctx_free(ctx), 2);
	}
	if (load_blas() < 0) {
		ein_ctx_free(ctx);
		return 1;
	}
	prog = ein_program_parse(ctx, matmul_source, "matmul.ein");
	if (prog)
		k = ein_kernel_compile(prog, "matmul");
	if (!k) {
		fputs(ein_ctx_last_error(ctx), stderr);
		ok = -1;
	} else {
		if (set_num_threads)
			set_num_threads(1);
		printf("ein %s: matmul C(i, j) +=! A(i, k) * B(k, j), default "
			"schedule, compiled in %.1f ms; 1 thread\n",
			ein_version(), (ein_cli_now() - t0) * 1e3);
		printf("%6s %10s %9s %10s %9s %8s %12s\n", "n", "ein ms",
			"GFLOP/s", "BLAS ms", "GFLOP/s", "ein/BLAS",
			"max |error|");
	}
	while (k && *spec) {
		size_t len = strcspn(spec, ",");
		char *one = strndup(spec, len);
		int64_t n;

		if (!one || ein_cli_parse_int("ein demo", "--sizes", one, 1,
				MAX_DEMO_SIZE, &n) < 0) {
			free(one);
			ok = -1;
			break;
		}
		free(one);
		if (demo_size(k, n) < 0)
			ok = -1;
		spec += spec[len] ? len + 1 : len;
	}
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
	return ok == 0 ? 0 : 1;
}
