/*
 * canon.h: a definition's text modulo its names, to find definitions
 * that compile to the same code (a network repeats the same convolution
 * under other names: the graph level compiles it once).
 */
#ifndef EIN_FRONTEND_CANON_H
#define EIN_FRONTEND_CANON_H

#include <isl/ctx.h>
#include "frontend/sema.h"

/* The text of "func"'s definition, from "def" to its closing brace, with
 * comments left out, each run of blanks and newlines as one space, the
 * definition's name as "$def" and each of its tensors' names (parameters
 * and temporaries) as "$N", N the tensor's position in func.  Keywords,
 * builtins, sizes, index variables and numbers stay as written.  Two
 * definitions with the same text here differ only by a renaming of their
 * tensors and name: they check, schedule and compile alike, and their
 * signatures agree position by position.  NULL when out of memory or when
 * the definition's text is not available (no source). */
__isl_give char *ein_canon_func(const struct ein_func *func);

#endif
