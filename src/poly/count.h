/*
 * count.h: the number of integer points of a set with known sizes,
 * counted without visiting them.
 */
#ifndef EIN_POLY_COUNT_H
#define EIN_POLY_COUNT_H

#include <isl/set.h>

/* The most slices of a set that ein_count_points examines before it
 * estimates the rest. */
#define EIN_COUNT_MAX_SLICES 4096

/* The number of integer points of "set" (kept), a bounded set whose
 * parameters, if any, are fixed to single values.  A union of boxes is
 * counted as a product; any other set slice by slice along its first
 * dimension, where the number of points of a slice is a polynomial in the
 * slice's coordinate between the vertices: each stretch is summed in
 * closed form from as many slices as the polynomial's degree plus one,
 * after three more slices confirm the polynomial, and split in two where
 * they do not.  So the work grows with the number of breakpoints, never
 * with the number of points.  After EIN_COUNT_MAX_SLICES slices, a stretch
 * not confirmed is estimated (piecewise linearly between the slices seen)
 * and *exact is set to 0; otherwise *exact is 1.  Returns -1 on error
 * (an unbounded set). */
double ein_count_points(__isl_keep isl_set *set, int *exact);

/* Counts already made, by the text of the set counted: a caller that
 * counts the same sets again and again (the cost model's features of
 * one definition's candidate schedules, sched/auto.c) counts each once.
 * The text names the parameters' fixed values, so a memo may serve any
 * sizes. */
struct ein_count_memo;

struct ein_count_memo *ein_count_memo_alloc(void);
void ein_count_memo_free(struct ein_count_memo *memo);
/* ein_count_points(set, exact), found in "memo" when it was counted
 * before, else counted and recorded there ("memo" NULL: counted). */
double ein_count_points_memo(struct ein_count_memo *memo,
	__isl_keep isl_set *set, int *exact);

#endif
