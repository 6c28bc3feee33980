/*
 * peak.c: the machine's FP32 peak, measured with the FMA-throughput loop
 * of fma_loop.c for the widest instruction set that both the compiler
 * (configure) and the CPU (at run time) support, on 1 or more threads
 * started together.  The peak is the best of several runs: interference
 * from other processes only ever lowers a figure.
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

/* The GFLOP/s of "threads" threads each running "n" iterations. */
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
	t = bench_now() - t;
	return (1 + started) * 2.0 * n * BENCH_FMA_CHAINS * isa->lanes /
		t * 1e-9;
}

double bench_peak_gflops(int threads, const char **name)
{
	const struct isa *isa = &isas[0];
	long n = 1 << 20;
	double best = 0;
	int r;

	while (!isa->supported())
		isa++;
	*name = isa->name;
	run(isa, 1, n);
	n = (long) (n * 0.2 / (2.0 * n * BENCH_FMA_CHAINS * isa->lanes /
		(run(isa, 1, n) * 1e9)));
	for (r = 0; r < 5; ++r) {
		double g = run(isa, threads, n);

		if (g > best)
			best = g;
	}
	return best;
}
