/*
 * archive.h: a static library (an "ar" archive) holding one object file.
 */
#ifndef EIN_DRIVER_ARCHIVE_H
#define EIN_DRIVER_ARCHIVE_H

#include <stddef.h>
#include <sys/uio.h>
#include "ein.h"

/* Write to "path" an archive in the System V / GNU format holding the
 * object made of the n_iov pieces "iov" as member "member", with the
 * symbol index that linkers need ("ranlib"), listing syms[0 .. n_sym-1]
 * as defined by it.  Returns -1 after an EIN_ERROR_IO error. */
int ein_archive_write(ein_ctx *ctx, const char *path, const char *member,
	const struct iovec *iov, int n_iov, int n_sym,
	const char *const *syms);

#endif
