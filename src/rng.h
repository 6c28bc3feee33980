#ifndef EIN_RNG_H
#define EIN_RNG_H

#include <stdint.h>

/* splitmix64: a small, good generator whose whole state is one integer
 * the caller owns, so that the same seed gives the same numbers in every
 * run and no thread shares state.  One copy for the CLI's random inputs,
 * the tuner's search, the tests and the benchmarks. */
static inline uint64_t ein_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n), 0 when n < 1. */
static inline int ein_rng_below(uint64_t *state, int n)
{
	if (n < 1)
		return 0;
	return (int) (ein_rng_next(state) % (uint64_t) n);
}

/* A float uniform in [-1, 1): the benchmarks' and tests' input data. */
static inline float ein_rng_signed_unit(uint64_t *state)
{
	return (float) ((ein_rng_next(state) >> 11) * 0x1p-52 - 1.0);
}

#endif
