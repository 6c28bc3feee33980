/*
 * cheader.h: the C header that declares the kernels of an object compiled
 * ahead of time.
 *
 * The header needs nothing but <stdint.h>: include guards, extern "C" for
 * C++, the return codes, and for each kernel its source, the shape of
 * each tensor in terms of the sizes, the conditions the sizes must meet,
 * and its prototype (wrap.h gives the calling convention).
 */
#ifndef EIN_CODEGEN_CHEADER_H
#define EIN_CODEGEN_CHEADER_H

#include <stdio.h>
#include "ein.h"
#include "codegen/wrap.h"

/* Print the start of a header whose include guard is derived from
 * "name" (a file name: "kernels.h" gives KERNELS_H). */
void ein_cheader_begin(FILE *out, const char *name);
/* Print the documented prototype of the kernel "spec" describes.
 * Returns -1 after an internal error. */
int ein_cheader_print_def(ein_ctx *ctx, FILE *out,
	const struct ein_wrap_spec *spec);
/* Print the end of the header "name". */
void ein_cheader_end(FILE *out, const char *name);

#endif
