/*
 * specialize.h: a scop specialised to known size values.
 */
#ifndef EIN_POLY_SPECIALIZE_H
#define EIN_POLY_SPECIALIZE_H

#include <stdint.h>
#include <isl/set.h>
#include "poly/scop.h"

/* Restrict the context of "scop" (taken) to "sizes" (a parameter set over
 * the sizes, kept), typically the values a kernel compiled ahead of time
 * is specialised to, so that the AST generator and the extents see
 * constants.  The generated code is then only valid for sizes in "sizes".
 * Returns NULL on error (the scop is freed). */
struct ein_scop *ein_specialize_scop(struct ein_scop *scop,
	__isl_keep isl_set *sizes);

/* "set" (taken) with dimension "pos" of type "type" (a size parameter, or
 * an index) equal to "value".  Sizes are int64 and isl_set_fix_si takes an
 * int, which would silently turn M = 2^32 + 1 into M = 1: every size goes
 * into isl through this function (or an isl_val) instead. */
__isl_give isl_set *ein_specialize_fix(__isl_take isl_set *set,
	enum isl_dim_type type, unsigned pos, int64_t value);

#endif
