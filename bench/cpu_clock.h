/*
 * cpu_clock.h: the clock and the sort of the stand-alone CPU-time tools
 * (bench/cpu_time.c, bench/model_cpu_time.c), each built by one cc
 * command without the bench library.
 */
#ifndef EIN_BENCH_CPU_CLOCK_H
#define EIN_BENCH_CPU_CLOCK_H

#include <time.h>

/* The time of "clock" in seconds. */
static inline double seconds(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* qsort's comparison of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

#endif
