/*
 * calib.c: the range of an activation from its histogram (calib.h).
 *
 * The KL (entropy) calibration is TensorRT's, on the histogram of |x|:
 * for each threshold T (a number i of magnitude bins of the profile's
 * width), P is the histogram of |x| cut at T with the values beyond it
 * added to its last bin (what clipping does to them), and Q is P's bins
 * merged into the levels uint8 has over [0, T] (255 T / width of the
 * range cut to [-T, T]) and spread again evenly over the bins of each
 * level that P does not leave empty (what rounding does).  The T whose
 * KL(P || Q) is least wins: a long tail of rare outliers costs little
 * when clipped and much resolution when kept.  Thresholds whose bins are
 * no finer than the levels are not compared (there Q = P, KL 0, and the
 * clipping would be free); the whole range always is, so a histogram too
 * coarse to tell gives minmax's range.
 */
#include <math.h>
#include <stdlib.h>
#include "onnx/calib.h"

/* At most this many thresholds are compared (a stride through the bins
 * beyond), which bounds the search at O(n * KL_STEPS). */
#define KL_STEPS 2048
/* The most magnitude bins, in times the histogram's (kl_range). */
#define MAX_SPAN 4

/* The sum of counts[0 .. n-1]; -1 if one is negative or NaN. */
static double total_count(const double *counts, size_t n)
{
	double total = 0;
	size_t i;

	for (i = 0; i < n; ++i) {
		if (!(counts[i] >= 0))
			return -1;
		total += counts[i];
	}
	return total;
}

/* The lower edge of the first bin where the count from below passes the
 * tail, and the upper edge of the last where the count from above does. */
static void percentile_range(double lo, double width, const double *counts,
	size_t n, double total, double *a, double *b)
{
	double cum = 0;
	size_t i;

	for (i = 0; i < n; ++i) {
		cum += counts[i];
		if (cum > total * EIN_CALIB_PERCENTILE_TAIL)
			break;
	}
	*a = lo + width * i;
	cum = 0;
	for (i = n; i-- > 0;) {
		cum += counts[i];
		if (cum > total * EIN_CALIB_PERCENTILE_TAIL)
			break;
	}
	*b = lo + width * (i + 1);
}

/* The histogram of |x| in bins of "width" from 0: each bin of "counts"
 * goes to the magnitude bin of its centre.  Its length in *m. */
static double *magnitudes(double lo, double hi, double width,
	const double *counts, size_t n, size_t *m)
{
	double top = fmax(fabs(lo), fabs(hi)), *mag;
	size_t k, j;

	*m = (size_t) ceil(top / width);
	*m = *m < 1 ? 1 : *m;
	mag = calloc(*m, sizeof(*mag));
	for (k = 0; mag && k < n; ++k) {
		j = (size_t) (fabs(lo + (k + 0.5) * width) / width);
		mag[j < *m ? j : *m - 1] += counts[k];
	}
	return mag;
}

/* The number of levels (of 0..qmax) over [0, T] when the range is [lo,
 * hi] cut to [-T, T] and widened to hold 0. */
static size_t levels(int qmax, double lo, double hi, double t)
{
	double a = fmin(fmax(lo, -t), 0), b = fmax(fmin(hi, t), 0);
	double v = b > a ? floor(qmax * t / (b - a) + 0.5) : qmax;

	return v < 1 ? 1 : (size_t) v;
}

/* KL(P || Q) for the threshold of i magnitude bins (of m) and "nlev"
 * levels (nlev < i), as the head comment states; p and q have room for
 * i values.  Bin k belongs to level k nlev / i. */
static double kl_at(const double *mag, size_t m, size_t i, size_t nlev,
	double *p, double *q)
{
	double sp = 0, sq = 0, kl = 0;
	size_t k, start, end;

	for (k = 0; k < i; ++k)
		p[k] = mag[k];
	for (k = i; k < m; ++k)
		p[i - 1] += mag[k];
	for (start = 0; start < i; start = end) {
		double sum = 0;
		size_t nz = 0, g = start * nlev / i;

		for (end = start; end < i && end * nlev / i == g; ++end) {
			sum += mag[end];
			nz += p[end] != 0;
		}
		for (k = start; k < end; ++k)
			q[k] = p[k] != 0 ? sum / nz : 0;
	}
	for (k = 0; k < i; ++k) {
		sp += p[k];
		sq += q[k];
	}
	for (k = 0; k < i; ++k)
		if (p[k] > 0)
			kl += p[k] / sp * log(p[k] / sp /
				(q[k] > 0 ? q[k] / sq : 1e-12));
	return kl;
}

/* The KL threshold's range into [*a, *b]; -1 when out of memory.  A
 * histogram far from 0 (its largest |x| more than MAX_SPAN times its
 * width) keeps [lo, hi]: magnitudes from 0 in its bins would be too
 * many, and clipping towards 0 is not what such a range needs. */
static int kl_range(int qmax, double lo, double hi, double width,
	const double *counts, size_t n, double *a, double *b)
{
	size_t m, i, best, step;
	double *mag, *p, *q;
	double best_kl = INFINITY;

	if (fmax(fabs(lo), fabs(hi)) / width > MAX_SPAN * (double) n)
		return 0;
	mag = magnitudes(lo, hi, width, counts, n, &m);
	p = malloc(m * sizeof(*p));
	q = malloc(m * sizeof(*q));
	if (!mag || !p || !q)
		return (free(mag), free(p), free(q), -1);
	step = m / KL_STEPS + 1;
	best = m;
	for (i = m; i >= 1; i = i > step ? i - step : 0) {
		size_t nlev = levels(qmax, lo, hi, i * width);
		double kl;

		if (i <= nlev && i < m)
			continue;
		kl = i <= nlev ? 0 : kl_at(mag, m, i, nlev, p, q);
		if (kl < best_kl) {
			best_kl = kl;
			best = i;
		}
	}
	free(mag);
	free(p);
	free(q);
	*a = fmax(lo, -(double) best * width);
	*b = fmin(hi, (double) best * width);
	return 0;
}

int ein_calib_range(ein_calibration cal, double lo, double hi,
	const double *counts, size_t n, double *a, double *b)
{
	return ein_calib_range_levels(cal, 255, lo, hi, counts, n, a, b);
}

int ein_calib_range_levels(ein_calibration cal, int qmax, double lo,
	double hi, const double *counts, size_t n, double *a, double *b)
{
	double total = total_count(counts, n), width;

	*a = lo;
	*b = hi;
	if (cal == EIN_CALIBRATION_MINMAX)
		return 0;
	if (!n || !(total > 0) || !(hi >= lo))
		return -1;
	width = (hi - lo) / n;
	if (cal == EIN_CALIBRATION_PERCENTILE) {
		percentile_range(lo, width, counts, n, total, a, b);
		return 0;
	}
	if (cal != EIN_CALIBRATION_KL)
		return -1;
	if (!(width > 0))
		return 0;
	return kl_range(qmax, lo, hi, width, counts, n, a, b);
}
