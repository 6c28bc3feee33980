/*
 * outfile.h: output files (objects, archives, headers, assembly) written
 * whole or not at all, and the outputs of one command all or none.
 *
 * A file is written as a temporary in its directory and renamed over
 * "path" once complete, so that an interrupted or failed compile leaves
 * the previous file, never half of a new one.  The temporary has no name
 * while it is written (O_TMPFILE, which ext4, XFS, Btrfs and tmpfs
 * allow): a compile killed by SIGINT, SIGTERM or anything else leaves no
 * large temporary behind; it is named "path.ein-PID-N" only for the
 * rename.  On a file system without O_TMPFILE (or without /proc) the
 * temporary has that name from the start, and a killed compile can
 * leave it.  The files of one set (an object and
 * its header) are all written before any is renamed, so that a failure
 * to write one (a header in a directory that cannot be written) leaves
 * every path as it was.  Paths that exist but are not regular files,
 * such as /dev/null or a symbolic link, are written in place at commit,
 * from a copy kept in memory.  A piece backed by a file (the weights of a
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

/* The output files of one command, committed together. */
struct ein_outfile_set;

/* An empty set; NULL after an error if out of memory. */
struct ein_outfile_set *ein_outfile_set_alloc(ein_ctx *ctx);
/* Write the "n" pieces one after the other as the temporary of "path";
 * "flags": 0 or EIN_OUTFILE_DURABLE.  Returns -1 after an EIN_ERROR_IO
 * error naming the path; no path has changed. */
int ein_outfile_set_add(struct ein_outfile_set *set, const char *path,
	const struct ein_out_piece *piece, int n, unsigned flags);
/* Rename every temporary of "set" over its path, in the order added.
 * Returns -1 after an EIN_ERROR_IO error (a rename that fails: rare, once
 * every file is written). */
int ein_outfile_set_commit(struct ein_outfile_set *set);
/* Free "set", removing the temporaries not committed. */
void ein_outfile_set_free(struct ein_outfile_set *set);

/* Write the "n" pieces one after the other as the file "path"; "flags":
 * 0 or EIN_OUTFILE_DURABLE.  Returns -1 after an EIN_ERROR_IO error
 * naming the path; "path" is then as it was. */
int ein_outfile_write(ein_ctx *ctx, const char *path,
	const struct ein_out_piece *piece, int n, unsigned flags);

/* Write the "len" bytes at "data" as the file "path", as above. */
int ein_outfile_write_bytes(ein_ctx *ctx, const char *path,
	const void *data, size_t len, unsigned flags);

#endif
