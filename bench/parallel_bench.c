/*
 * parallel_bench.c: the speedup of ein_rt_parallel_for on a compute-bound
 * loop (a sum of splitmix64 hashes, no memory traffic), N threads against
 * 1, measured interleaved with a warm-up, each result checked against the
 * sequential one.  Prints the medians and the median of the per-round
 * ratios.
 *
 *     make bench-parallel            (N = 2)
 *     bench/parallel_bench [N [LOG2_ITERATIONS [ROUNDS]]]
 *
 * Not part of make check: a timing depends on what else the machine runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "ein.h"
#include "runtime/parallel.h"

/* The sum of the hashes of the iterations, added to by every chunk. */
struct sum {
	uint64_t total;
};

/* splitmix64's output function: a dozen dependent integer operations. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

static void sum_body(void *closure, int64_t lo, int64_t hi)
{
	struct sum *sum = closure;
	uint64_t s = 0;
	int64_t i;

	for (i = lo; i < hi; ++i)
		s += mix(i);
	__atomic_add_fetch(&sum->total, s, __ATOMIC_RELAXED);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Time one parallel sum of [0, n) on "threads" threads into *total. */
static double run(int threads, int64_t n, uint64_t *total)
{
	struct sum sum = { 0 };
	double t;

	ein_set_num_threads(threads);
	t = now();
	ein_rt_parallel_for(&sum_body, &sum, 0, n);
	t = now() - t;
	*total = sum.total;
	return t;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), &by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	int log2n = argc > 2 ? atoi(argv[2]) : 27;
	int rounds = argc > 3 ? atoi(argv[3]) : 11;
	int64_t n;
	double *t1, *tn, *ratio;
	uint64_t want, got;
	int r;

	if (threads < 1 || threads > 256 || log2n < 10 || log2n > 40 ||
	    rounds < 1) {
		fprintf(stderr, "usage: %s [THREADS [LOG2_ITERATIONS "
			"[ROUNDS]]]\n", argv[0]);
		return 2;
	}
	n = (int64_t) 1 << log2n;
	t1 = calloc(rounds, sizeof(*t1));
	tn = calloc(rounds, sizeof(*tn));
	ratio = calloc(rounds, sizeof(*ratio));
	if (!t1 || !tn || !ratio)
		return 1;
	run(1, n, &want);
	run(threads, n, &got);
	for (r = 0; r < rounds; ++r) {
		t1[r] = run(1, n, &want);
		tn[r] = run(threads, n, &got);
		if (got != want) {
			fprintf(stderr, "wrong sum on %d threads: %llx, not "
				"%llx\n", threads, (unsigned long long) got,
				(unsigned long long) want);
			return 1;
		}
		ratio[r] = t1[r] / tn[r];
	}
	printf("parallel sum of 2^%d hashes, %d rounds: 1 thread %.1f ms, "
		"%d threads %.1f ms (medians), speedup %.2fx (median ratio)\n",
		log2n, rounds, 1e3 * median(t1, rounds), threads,
		1e3 * median(tn, rounds), median(ratio, rounds));
	free(t1);
	free(tn);
	free(ratio);
	return 0;
}
