/*
 * calib.h: the range an activation is quantised over, chosen from its
 * profiled histogram (docs/quantization.md, "Scales and zero points").
 */
#ifndef EIN_ONNX_CALIB_H
#define EIN_ONNX_CALIB_H

#include <stddef.h>
#include "ein.h"

/* The percentile calibration's tail, cut from each end (0.01%). */
#define EIN_CALIB_PERCENTILE_TAIL 1e-4

/* The range [*a, *b] that calibration "cal" chooses for a tensor whose
 * values fell in the n equal bins "counts" over [lo, hi]: minmax gives
 * [lo, hi]; percentile the 0.01% and 99.99% points; kl the clipping
 * threshold T that minimises the Kullback-Leibler divergence between the
 * histogram of |x| clipped at T (the clipped values in its last bin)
 * and that histogram quantised to the levels uint8 has over |x| <= T
 * (TensorRT's entropy calibration, on magnitudes: the range is then [lo,
 * hi] cut to [-T, T]).  -1 if the histogram is malformed (a negative
 * count, no count, hi < lo) or "cal" is unknown. */
int ein_calib_range(ein_calibration cal, double lo, double hi,
	const double *counts, size_t n, double *a, double *b);
/* The same for activations of levels 0..qmax (ein_calib_range's are
 * 0..255): only kl's levels over [0, T] depend on it. */
int ein_calib_range_levels(ein_calibration cal, int qmax, double lo,
	double hi, const double *counts, size_t n, double *a, double *b);

#endif
