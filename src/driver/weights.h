/*
 * weights.h: the data of a tensor embedded in an object as a constant,
 * read from a raw little-endian file or a NumPy .npy file.
 */
#ifndef EIN_DRIVER_WEIGHTS_H
#define EIN_DRIVER_WEIGHTS_H

#include <stdint.h>
#include "ein.h"
#include "frontend/sema.h"

/* The data of a tensor, mapped from its file (read-only).
 * data: its first byte; map, map_size: the mapping;
 * fd, offset: the file, kept open (-1 if none), and where the data start
 *	in it, so that they can be copied from file to file. */
struct ein_weights {
	const void *data;
	void *map;
	size_t map_size;
	int fd;
	int64_t offset;
};

/* Map the data of tensor "t" of shape shape[0 .. t->n_dim-1] from
 * "path": a .npy file (recognised by its magic string) whose dtype,
 * C order and shape must match, or else raw little-endian elements whose
 * byte count must match.  The file is mapped, not read: the data are
 * copied once, into the object.  Returns -1 after an error naming the
 * file. */
int ein_weights_map(ein_ctx *ctx, const char *path,
	const struct ein_tensor *t, const int64_t *shape, int64_t bytes,
	struct ein_weights *w);
void ein_weights_unmap(struct ein_weights *w);

#endif
