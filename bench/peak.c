/*
 * peak.c: the machine's FP32 peak, measured with the FMA-throughput loop
 * of fma_loop.c for the widest instruction set that both the compiler
 * (configure) and the CPU (at run time) support, on 1 or more threads
 * started together.  The sections time it as one more variant of each
 * group (see bench.h), so that on a shared machine a kernel's % of peak
 * compares figures measured under the same load.
 */
#include <pthread.h>
#include <config.h>
#include "bench.h"
#include "fma_loop.h"

/* An FMA loop: its name, vector width in floats, the loop, and whether
 * this CPU can run it. */
struct isa {
	const char *name;
	int lanes;
	float (*loop)(long n);
	int (*supported)(void);
};

#ifdef HAVE_FMA_AVX512
static int has_avx512(void)
{
	return __builtin_cpu_supports("avx512f");
}
#endif

#ifdef HAVE_FMA_AVX2
static int has_avx2(void)
{
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

#if defined(__x86_64__) || defined(__i386__)
const char *bench_cpu_isa(void)
{
	if (__builtin_cpu_supports("avx512f"))
		return "AVX2, FMA and AVX-512F";
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return "AVX2 and FMA, no AVX-512";
	return "no AVX2";
}
#else
const char *bench_cpu_isa(void)
{
	return "not x86";
}
#endif

static int always(void)
{
	return 1;
}

/* The loops, widest first. */
static const struct isa isas[] = {
#ifdef HAVE_FMA_AVX512
	{ "AVX-512 FMA", 16, &bench_fma_avx512, &has_avx512 },
#endif
#ifdef HAVE_FMA_AVX2
	{ "AVX2 FMA", 8, &bench_fma_avx2, &has_avx2 },
#endif
	{ "128-bit vectors, no FMA", 4, &bench_fma_generic, &always },
};

/* A thread's work: "n" iterations of "isa"'s loop; "sink" keeps the
 * result. */
struct job {
	const struct isa *isa;
	long n;
	float sink;
};

static void *run_job(void *arg)
{
	struct job *job = arg;

	job->sink = job->isa->loop(job->n);
	return NULL;
}

/* The seconds "threads" threads take to run "n" iterations each. */
static double run(const struct isa *isa, int threads, long n)
{
	pthread_t tid[threads];
	struct job job[threads];
	double t = bench_now();
	int i, started = 0;

	for (i = 0; i < threads; ++i) {
		job[i].isa = isa;
		job[i].n = n;
		if (i > 0 && pthread_create(&tid[i], NULL, &run_job,
			&job[i]) == 0)
			started++;
	}
	run_job(&job[0]);
	for (i = 1; i <= started; ++i)
		pthread_join(tid[i], NULL);
	return started == threads - 1 ? bench_now() - t : -1;
}

/* The widest loop this CPU runs. */
static const struct isa *best_isa(void)
{
	const struct isa *isa = &isas[0];

	while (!isa->supported())
		isa++;
	return isa;
}

void bench_peak_init(struct bench_peak *pk, int threads, double seconds)
{
	const struct isa *isa = best_isa();
	long n = 1 << 16;
	double t;

	run(isa, 1, n);
	t = run(isa, 1, n);
	pk->isa = isa->name;
	pk->threads = threads;
	pk->n = t > 0 ? (long) (n * seconds / t) + 1 : n;
	pk->gflop = threads * 2e-9 * pk->n * BENCH_FMA_CHAINS * isa->lanes;
}

int bench_peak_run(void *arg)
{
	const struct bench_peak *pk = arg;

	return run(best_isa(), pk->threads, pk->n) > 0 ? 0 : -1;
}

double bench_peak_gflops(const struct bench_peak *pk, double median)
{
	return median > 0 ? pk->gflop / median : -1;
}
