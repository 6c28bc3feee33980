/*
 * cmd_demo.c: "ein demo", the built-in matmul example against OpenBLAS.
 *
 * The kernel is examples/matmul/matmul.ein, built in so that the demo
 * runs from any directory.  At each size it is compiled as a user's
 * program gets it (the installed schedule found by lookup for those
 * sizes) and run next to the default schedule and cblas_sgemm, on the
 * same inputs and the same number of threads (one unless --threads).
 *
 * OpenBLAS is loaded here, with dlopen, rather than linked into ein: it
 * starts its threads when it is loaded, and they spin for a while, taking
 * a core from every other ein command on a small machine.
 */
#include <dlfcn.h>
#include <unistd.h>
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

/* The demo's context, program, and kernel with the default schedule
 * ("plain"); the kernel a program gets by lookup is compiled at each
 * size. */
struct demo {
	ein_ctx *ctx;
	ein_program *prog;
	ein_kernel *plain;
	int threads;
};

/* The kernel a user's program gets at n x n x n: lookup on, the sizes
 * given as hints so that the nearest tuned variant is chosen. */
static ein_kernel *compile_user(const struct demo *d, int64_t n)
{
	ein_options *opts = ein_options_alloc();
	ein_kernel *k = NULL;

	if (opts && ein_options_set_size(opts, "M", n) == EIN_OK &&
	    ein_options_set_size(opts, "K", n) == EIN_OK &&
	    ein_options_set_size(opts, "N", n) == EIN_OK)
		k = ein_kernel_compile_with(d->prog, "matmul", opts);
	ein_options_free(opts);
	return k;
}

/* The schedule's file name without its directory, or "default". */
static const char *schedule_name(const ein_kernel *k)
{
	const char *path = ein_kernel_get_schedule(k), *slash;

	if (!path)
		return "default";
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Does "got" match OpenBLAS's "ref"? */
static int matches(const struct ein_cli_tensor *got,
	const struct ein_cli_tensor *ref, double *err)
{
	double scale;

	ein_cli_tensor_compare(got, ref, err, &scale);
	return *err <= 1e-4 * scale;
}

/* Run and compare at n x n x n; returns -1 on error or mismatch.
 * t[0], t[1]: A and B; t[2]: C of the user's kernel, t[3]: C of the
 * default schedule, t[4]: OpenBLAS's. */
static int demo_size(const struct demo *d, int64_t n)
{
	int64_t sizes[3] = { n, n, n };
	struct ein_cli_tensor t[5];
	DLTensor *args[3] = { &t[0].dl, &t[1].dl, &t[2].dl };
	ein_kernel *user = compile_user(d, n);
	uint64_t seed = 7;
	double user_s, plain_s, blas_s, err, err2;
	double gflop = 2.0 * n * n * n * 1e-9;
	int i, ok = user ? 0 : -1;

	memset(t, 0, sizeof(t));
	for (i = 0; i < 5 && ok == 0; ++i)
		ok = ein_cli_tensor_alloc(&t[i], d->plain, i < 3 ? i : 2,
			sizes);
	if (ok == 0) {
		ein_cli_tensor_randomize(&t[0], &seed);
		ein_cli_tensor_randomize(&t[1], &seed);
		user_s = ein_cli_time_call(user, args, 3, sizes, 10, NULL,
			NULL);
		args[2] = &t[3].dl;
		plain_s = ein_cli_time_call(d->plain, args, 3, sizes, 10,
			NULL, NULL);
		blas_s = time_sgemm(t[0].dl.data, t[1].dl.data, t[4].dl.data,
			n, 10);
		ok = user_s < 0 || plain_s < 0 ||
			!matches(&t[2], &t[4], &err) ||
			!matches(&t[3], &t[4], &err2) ? -1 : 0;
		printf("%6lld %-22s %9.3f %8.2f %10.3f %8.2f %9.3f %8.2f "
			"%8.2f %11.2e%s\n", (long long) n, schedule_name(user),
			user_s * 1e3, gflop / user_s, plain_s * 1e3,
			gflop / plain_s, blas_s * 1e3, gflop / blas_s,
			blas_s / user_s, err > err2 ? err : err2,
			ok == 0 ? "" : "  MISMATCH");
	}
	if (!user)
		fputs(ein_ctx_last_error(d->ctx), stderr);
	for (i = 0; i < 5; ++i)
		ein_cli_tensor_free(&t[i]);
	ein_kernel_free(user);
	return ok;
}

/* An ein that is not installed has no installed schedules: it reads
 * those of the source tree it was built from, as an installed one would
 * read its copies, and says so.  EIN_SCHEDULE_PATH, when set, is left as
 * the user set it. */
static void use_source_schedules(void)
{
	if (getenv("EIN_SCHEDULE_PATH") || access(EIN_SCHEDULE_DIR, R_OK) == 0
	    || access(EIN_SOURCE_SCHEDULE_DIR, R_OK) != 0)
		return;
	setenv("EIN_SCHEDULE_PATH", EIN_SOURCE_SCHEDULE_DIR, 1);
	printf("ein is not installed: schedules from %s\n",
		EIN_SOURCE_SCHEDULE_DIR);
}

/* Parse the options into "spec" and "d->threads"; -1 after a message. */
static int parse_args(int argc, char **argv, const char **spec,
	struct demo *d)
{
	int i;

	for (i = 1; i < argc; ++i) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--sizes") && v) {
			*spec = v;
			++i;
		} else if (!strcmp(argv[i], "--threads") && v) {
			int64_t n;

			if (ein_cli_parse_int("ein demo", "--threads", v, 1,
					256, &n) < 0)
				return -1;
			d->threads = n;
			++i;
		} else {
			ein_cli_unexpected("ein demo", argv[i]);
			return -1;
		}
	}
	return 0;
}

/* Parse the comma-separated list "spec" into sizes[0 .. *n) (at most
 * "max"); -1 after a message. */
static int parse_size_list(const char *spec, int64_t *sizes, int max,
	int *n)
{
	char item[32];
	size_t len;

	for (*n = 0; *spec; spec += len + (spec[len] == ',')) {
		len = strcspn(spec, ",");
		if (*n == max) {
			fprintf(stderr, "ein demo: error: --sizes takes at most "
				"%d sizes\n", max);
			return -1;
		}
		snprintf(item, sizeof(item), "%.*s", (int) len, spec);
		if (len >= sizeof(item) || ein_cli_parse_int("ein demo",
				"--sizes", item, 1, 16384, &sizes[(*n)++]) < 0) {
			if (len >= sizeof(item))
				ein_cli_bad_value("ein demo", "--sizes",
					spec, "an integer from 1 to 16384");
			return -1;
		}
	}
	return 0;
}

int ein_cmd_demo(int argc, char **argv)
{
	const char *spec = "128,256,512,1024";
	struct demo d = { NULL, NULL, NULL, 1 };
	ein_options *plain;
	int64_t sizes[64];
	int i, n, ok = 0;

	if (parse_args(argc, argv, &spec, &d) < 0 ||
	    parse_size_list(spec, sizes, 64, &n) < 0)
		return 2;
	if (load_blas() < 0)
		return 1;
	use_source_schedules();
	d.ctx = ein_ctx_alloc();
	plain = ein_options_alloc();
	d.prog = ein_program_parse(d.ctx, matmul_source, "matmul.ein");
	if (d.prog && plain &&
	    ein_options_set_schedule_lookup(plain, 0) == EIN_OK)
		d.plain = ein_kernel_compile_with(d.prog, "matmul", plain);
	ein_options_free(plain);
	if (!d.plain) {
		fputs(ein_ctx_last_error(d.ctx), stderr);
		ok = -1;
	} else {
		ein_set_num_threads(d.threads);
		if (set_num_threads)
			set_num_threads(d.threads);
		printf("ein %s: matmul C(i, j) +=! A(i, k) * B(k, j) on %d "
			"thread%s; 'ein' is the schedule a program gets by "
			"lookup, 'default' the default schedule\n",
			ein_version(), d.threads, d.threads == 1 ? "" : "s");
		printf("%6s %-22s %9s %8s %10s %8s %9s %8s %8s %11s\n", "n",
			"schedule", "ein ms", "GFLOP/s", "default ms",
			"GFLOP/s", "BLAS ms", "GFLOP/s", "ein/BLAS",
			"max |error|");
	}
	for (i = 0; d.plain && i < n; ++i)
		if (demo_size(&d, sizes[i]) < 0)
			ok = -1;
	ein_kernel_free(d.plain);
	ein_program_free(d.prog);
	ein_ctx_free(d.ctx);
	return ok == 0 ? 0 : 1;
}
