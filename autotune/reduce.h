/*
 * reduce.h: a smaller problem of the same shape, to rank the candidates
 * of a slow kernel on.
 *
 * When one call of a definition at its tuning sizes takes seconds, a
 * search limited in time measures only a handful of candidates
 * (TCCG's abcde-efbad-cf: 4 in 60 s).  The tuner then ranks candidates
 * at reduced sizes (tune.c) and measures only its leaders at the full
 * sizes.  What keeps the ranking predictive is that the reduction keeps
 * the shape of the work that schedules differ on: only the sizes of the
 * main statement's outer output loops are halved, outermost first and
 * in turn, never below EIN_REDUCE_MIN_EXTENT (a vector of 16 lanes, and
 * more than the register tiles the space tries), and never the size of
 * the output's innermost loop (the one vectorised and stored
 * contiguously) or of a reduction (the depth of every accumulation and
 * the panels that packing copies stay as they are).  An outer loop runs
 * the same inner work fewer times, so a candidate's time shrinks with
 * the operations.
 */
#ifndef EIN_AUTOTUNE_REDUCE_H
#define EIN_AUTOTUNE_REDUCE_H

#include <stdint.h>
#include "ein.h"

#define EIN_REDUCE_MIN_EXTENT 16

/* Halve the sizes of "sizes" (the n_size sizes of kernel "k" of
 * definition "def" of "prog", in the kernel's order), as the head
 * comment says, into "out" until a call's operations are at most
 * 1/"factor" of theirs or no size can be halved further.  Returns the
 * ratio of the operations (full / reduced; 1: nothing could be halved),
 * -1 after a message on prog's context. */
double ein_reduce_sizes(ein_program *prog, const char *def, ein_kernel *k,
	const int64_t *sizes, int n_size, double factor, int64_t *out);

#endif
