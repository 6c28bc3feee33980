/*
 * outfile.h: output files (objects, archives, headers, assembly) written
 * whole or not at all.
 *
 * A file is written under a temporary name in its directory and renamed
 * over "path" once complete, so that an interrupted or failed compile
 * leaves the previous file, never half of a new one (paths that exist
 * but are not regular files, such as /dev/null or a symbolic link, are
 * written in place).  A piece backed by a file (the weights of a
 * constant tensor) is copied by the kernel with copy_file_range, without
 * passing through this process's memory.
 */
#ifndef EIN_DRIVER_OUTFILE_H
#define EIN_DRIVER_OUTFILE_H

#include <stddef.h>
#include <stdint.h>
#include "ein.h"

/* "len" bytes of the file: at "data", which must stay valid, and if
 * fd >= 0 also in the open file "fd" at offset "off" (copied from there
 * where the file system allows it). */
struct ein_out_piece {
	const void *data;
	size_t len;
	int fd;
	int64_t off;
};

/* Write the "n" pieces one after the other as the file "path".  Returns
 * -1 after an EIN_ERROR_IO error naming the path; "path" is then as it
 * was. */
int ein_outfile_write(ein_ctx *ctx, const char *path,
	const struct ein_out_piece *piece, int n);

/* Write the "len" bytes at "data" as the file "path", as above. */
int ein_outfile_write_bytes(ein_ctx *ctx, const char *path,
	const void *data, size_t len);

#endif
