/*
 * bench.c: the benchmark of issue 5 (make bench): what ein generates
 * today, with the default schedule and with the hand-written schedules of
 * bench/schedules/, side by side with OpenBLAS and oneDNN, on
 *  - SGEMM (gemm.c),
 *  - the convolutions of ResNet-50 (conv.c),
 *  - softmax, layer normalisation and bias + GELU against a triad
 *    (memory.c),
 *  - int8 GEMM against oneDNN (int8.c),
 *  - SGEMM on OpenCL (PoCL here) against CLBlast on the same device
 *    (opencl.c),
 *  - issue 22's kernels, only when --only names them (make bench-issue22,
 *    issue22.h): the TCCG contractions against OpenBLAS TTGT (tccg.c),
 *    BERT-base attention against OpenBLAS (attention.c), PolyBench
 *    against clang with Polly (polybench.c), ein default, --no-auto and
 *    tuned,
 * each as a fraction of the FP32 peak of an FMA loop (peak.c).  The output is
 * Markdown, ready for docs/performance.md.
 *
 *     bench/bench [--quick | --small] [--threads 1|2] [--only SECTIONS]
 *                 [--dir DIR]
 *
 * --quick runs fewer sizes and rounds (under a minute); --small runs tiny
 * sizes and only checks the results (make check runs it); without
 * --only it leaves the opencl group out, whose device compiles take
 * seconds (tests/opencl.test checks ein's OpenCL kernels).  The exit
 * status is 1 if any result was wrong or any kernel failed.  Timings are
 * never checked: they depend on what else the machine runs.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <cblas.h>
#include <config.h>
#include "bench.h"
#include "issue22.h"
#include "onednn.h"

/* The sections, in the order they run. */
struct section {
	const char *name;
	int (*run)(struct bench_program *p, const struct bench_opts *o);
};

static const struct section sections[] = {
	{ "gemm", &bench_gemm },
	{ "conv", &bench_conv },
	{ "memory", &bench_memory },
	{ "int8", &bench_int8 },
	{ "opencl", &bench_opencl },
	{ "tccg", &bench_tccg },
	{ "attention", &bench_attention },
	{ "polybench", &bench_polybench },
};

/* The value of "key" in a "key : value" file such as /proc/cpuinfo, in
 * buf ("?" if absent). */
static const char *file_value(const char *path, const char *key, char *buf,
	size_t len)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = strlen(key);

	snprintf(buf, len, "?");
	while (f && fgets(line, sizeof(line), f)) {
		char *v = line + n;

		if (strncmp(line, key, n) != 0)
			continue;
		v += strspn(v, " \t:=\"");
		v[strcspn(v, "\"\n")] = '\0';
		snprintf(buf, len, "%s", v);
		break;
	}
	if (f)
		fclose(f);
	return buf;
}

static const char *loadavg(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");

	snprintf(buf, len, "?");
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, " ")] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* OpenBLAS 0.3.21 (Debian 12) does not know CPUs newer than its release
 * (Emerald Rapids, family 6 model 207, seen on this project's machines):
 * its DYNAMIC_ARCH build then falls back to its Prescott kernels (SSE3,
 * a fifth of such a machine's speed), and every ratio against it would
 * flatter ein.  The library reads OPENBLAS_CORETYPE as it loads, so the
 * benchmark names the kernels for the vector ISA the CPU reports
 * (SkylakeX for AVX-512, Haswell for AVX2) and runs itself again; the
 * machine line says so.  A value the user set is kept. */
static void fix_openblas_core(char **argv)
{
	const char *isa = NULL;

#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx512f"))
		isa = "SkylakeX";
	else if (__builtin_cpu_supports("avx2") &&
		 __builtin_cpu_supports("fma"))
		isa = "Haswell";
#endif
	if (!isa || getenv("OPENBLAS_CORETYPE") ||
	    strcmp(openblas_get_corename(), "Prescott") != 0)
		return;
	setenv("OPENBLAS_CORETYPE", isa, 1);
	setenv("EIN_BENCH_OPENBLAS_DETECTED", openblas_get_corename(), 1);
	execv("/proc/self/exe", argv);
	unsetenv("OPENBLAS_CORETYPE");	/* exec failed: keep what was found */
	unsetenv("EIN_BENCH_OPENBLAS_DETECTED");
}

/* How OpenBLAS's kernels were chosen, when not by its own detection. */
static void print_openblas_core(void)
{
	const char *detected = getenv("EIN_BENCH_OPENBLAS_DETECTED");

	if (detected)
		printf("  OpenBLAS's kernels: %s, named by OPENBLAS_CORETYPE "
			"(set by the benchmark: OpenBLAS's detection gave %s, "
			"its fallback for a CPU it does not know).",
			openblas_get_corename(), detected);
	else if (getenv("OPENBLAS_CORETYPE"))
		printf("  OpenBLAS's kernels: %s (OPENBLAS_CORETYPE=%s).",
			openblas_get_corename(), getenv("OPENBLAS_CORETYPE"));
}

/* The machine line, the date and the versions. */
static void print_machine(int argc, char **argv)
{
	char cpu[256], os[256], load[64], date[64];
	struct utsname u;
	time_t now = time(NULL);
	int i;

	uname(&u);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M", localtime(&now));
	printf("## Benchmark (issue 5)\n\n");
	printf("Machine: %s, %ld CPUs online, %s; %s, Linux %s.  "
		"ein %s, LLVM %s, %s, %s.",
		file_value("/proc/cpuinfo", "model name", cpu, sizeof(cpu)),
		sysconf(_SC_NPROCESSORS_ONLN),
		bench_cpu_isa(),
		file_value("/etc/os-release", "PRETTY_NAME", os, sizeof(os)),
		u.release, ein_version(), BENCH_LLVM_VERSION,
		openblas_get_config(),
		bench_onednn_version() ? bench_onednn_version() :
			"no oneDNN");
	print_openblas_core();
	printf("\n\nCommand: `bench/bench");
	for (i = 1; i < argc; ++i)
		printf(" %s", argv[i]);
	printf("`, %s, load average %s at the start.\n", date,
		loadavg(load, sizeof(load)));
}

/* How the tables were measured, and the FP32 peak on an idle moment. */
static void print_method(const struct bench_opts *o)
{
	struct bench_peak pk;

	if (o->small)
		return;
	bench_peak_init(&pk, 1, 0.2);
	printf("\nTimes are medians of %d interleaved rounds after a warm-up; "
		"each sample repeats a call for at least %.0f ms.  The FP32 "
		"peak is the FMA loop of bench/fma_loop.c (%s, 12 independent "
		"chains), timed as one more variant of each group so that it "
		"sees the same load as the kernels.\n", o->rounds,
		o->sample_s * 1e3, pk.isa);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--quick | --small] [--threads 1|2] "
		"[--only gemm,conv,memory,int8,opencl,tccg,attention,polybench] "
		"[--dir DIR]\n", argv0);
	return 2;
}

/* Parse the command line into *o and *only; -1 on a bad argument. */
static int parse_args(int argc, char **argv, struct bench_opts *o,
	const char **only)
{
	int i;

	for (i = 1; i < argc; ++i) {
		if (!strcmp(argv[i], "--quick"))
			o->quick = 1;
		else if (!strcmp(argv[i], "--small"))
			o->small = 1;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			o->max_threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			*only = argv[++i];
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			o->dir = argv[++i];
		else
			return -1;
	}
	if (o->max_threads < 1 || o->max_threads > 2)
		return -1;
	o->rounds = o->small ? 1 : o->quick ? 3 : 7;
	o->sample_s = o->quick ? 0.01 : 0.05;
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_opts o = { 0, 0, 0, 0, 2, "bench" };
	struct bench_program p;
	const char *only = NULL;
	char load[64];
	size_t i;
	int failed = 0;

	if (parse_args(argc, argv, &o, &only) != 0)
		return usage(argv[0]);
	if (!only)
		only = o.small ? "gemm,conv,memory,int8" :
			"gemm,conv,memory,int8,opencl";
	fix_openblas_core(argv);
	if (bench_program_read(&p, &o) != 0)
		return 1;
	print_machine(argc, argv);
	print_method(&o);
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); ++i)
		if (strstr(only, sections[i].name))
			failed += sections[i].run(&p, &o);
	bench_program_free(&p);
	printf("\nLoad average at the end: %s.  %s\n",
		loadavg(load, sizeof(load)), failed ? "FAILED: see the "
		"messages above." : "Every result was checked first: all "
		"correct.");
	return failed ? 1 : 0;
}
