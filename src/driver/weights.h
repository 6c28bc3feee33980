/*
 * weights.h: the data of a tensor embedded in an object as a constant,
 * read from a raw little-endian file or a NumPy .npy file.
 */
#ifndef EIN_DRIVER_WEIGHTS_H
#define EIN_DRIVER_WEIGHTS_H

#include <stdint.h>
#include "ein.h"
#include "frontend/sema.h"

/* The bytes of one element of "type" in memory (bool: 1). */
int ein_weights_elem_size(enum ein_type type);

/* Read the data of tensor "t" of shape shape[0 .. t->n_dim-1] from
 * "path": a .npy file (recognised by its magic string) whose dtype,
 * C order and shape must match, or else raw little-endian elements whose
 * byte count must match.  Returns the "bytes" bytes of data in memory the
 * caller frees, NULL after an error naming the file. */
void *ein_weights_read(ein_ctx *ctx, const char *path,
	const struct ein_tensor *t, const int64_t *shape, int64_t bytes);

#endif
