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
 *
 * EIN_OUTFILE_DURABLE (schedule files, whose loss would lose a tuning
 * run) also flushes the file and the rename to disk, and gives a new file
 * the permissions of the one it replaces, else rw-r--r--.  Without it
 * (objects, headers: outputs a build remakes) the file gets 0666 less the
 * umask, as a compiler's outputs do, and nothing waits for the disk.
 */
#ifndef EIN_OUTFILE_H
#define EIN_OUTFILE_H

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

#define EIN_OUTFILE_DURABLE	1

/* Write the "n" pieces one after the other as the file "path"; "flags":
 * 0 or EIN_OUTFILE_DURABLE.  Returns -1 after an EIN_ERROR_IO error
 * naming the path; "path" is then as it was. */
int ein_outfile_write(ein_ctx *ctx, const char *path,
	const struct ein_out_piece *piece, int n, unsigned flags);

/* Write the "len" bytes at "data" as the file "path", as above. */
int ein_outfile_write_bytes(ein_ctx *ctx, const char *path,
	const void *data, size_t len, unsigned flags);

#endif
