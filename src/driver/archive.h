/*
 * archive.h: a static library (an "ar" archive) holding one object file.
 */
#ifndef EIN_DRIVER_ARCHIVE_H
#define EIN_DRIVER_ARCHIVE_H

#include <stddef.h>
#include "ein.h"
#include "outfile.h"

/* Add to "set" as "path" (with ein_outfile_set_add) an archive in the System V /
 * GNU format holding the object made of the "n" pieces "piece" as member
 * "member", with the symbol index that linkers need ("ranlib"), listing
 * syms[0 .. n_sym-1] as defined by it.  Returns -1 after an error. */
int ein_archive_write(ein_ctx *ctx, struct ein_outfile_set *set,
	const char *path, const char *member,
	const struct ein_out_piece *piece, int n, int n_sym,
	const char *const *syms);

#endif
