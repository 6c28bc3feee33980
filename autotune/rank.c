/*
 * rank.c: the tuner's decisions on measured times (rank.h).
 */
#include <stdlib.h>
#include "autotune/rank.h"

#define MAX_VALUES 64

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

double ein_rank_median(const double *v, int n)
{
	double ok[MAX_VALUES];
	int m = 0, i;

	for (i = 0; i < n && m < MAX_VALUES; ++i)
		if (v[i] >= 0)
			ok[m++] = v[i];
	if (m == 0 || 2 * m < n)
		return -1;
	qsort(ok, m, sizeof(*ok), &cmp_double);
	return m % 2 ? ok[m / 2] : (ok[m / 2 - 1] + ok[m / 2]) / 2;
}

int ein_rank_choose(const double *t, int n_cand, int n_round)
{
	double v[MAX_VALUES], best = -1;
	int c, r, win = -1;

	if (n_round > MAX_VALUES)
		n_round = MAX_VALUES;
	for (c = 0; c < n_cand; ++c) {
		double med;

		for (r = 0; r < n_round; ++r)
			v[r] = t[r * n_cand + c];
		med = ein_rank_median(v, n_round);
		if (med >= 0 && (win < 0 || med < best)) {
			win = c;
			best = med;
		}
	}
	return win;
}

int ein_rank_too_slow(double first, double best, double factor)
{
	return best > 0 && factor > 0 && first > factor * best;
}

int ein_rank_confirms(double again, double best_again)
{
	return again >= 0 && (best_again < 0 || again < best_again);
}

double ein_rank_confirmed_time(double first, double again)
{
	return first > again ? first : again;
}

int ein_rank_keeps_seed(double best, double seed)
{
	if (seed < 0)
		return 0;
	return best < 0 || best * EIN_RANK_NOISE_MARGIN >= seed;
}
