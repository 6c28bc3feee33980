/*
 * specialize.h: a scop specialised to known size values.
 */
#ifndef EIN_POLY_SPECIALIZE_H
#define EIN_POLY_SPECIALIZE_H

#include <isl/set.h>
#include "poly/scop.h"

/* Restrict the context of "scop" (taken) to "sizes" (a parameter set over
 * the sizes, kept), typically the values a kernel compiled ahead of time
 * is specialised to, so that the AST generator and the extents see
 * constants.  The generated code is then only valid for sizes in "sizes".
 * Returns NULL on error (the scop is freed). */
struct ein_scop *ein_specialize_scop(struct ein_scop *scop,
	__isl_keep isl_set *sizes);

#endif
