/*
 * outfile.c: output files written under a temporary name and renamed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "outfile.h"

/* Create a new file next to "path", named "path.ein-PID-N", into "tmp"
 * (of "len" bytes).  O_EXCL rather than mkstemp: the file gets the mode
 * the umask allows, as the file it replaces did, and no umask() call
 * (which is process-wide) is needed. */
static int create_temp(const char *path, char *tmp, size_t len)
{
	static unsigned counter;
	int i, fd = -1;

	for (i = 0; i < 100 && fd < 0; ++i) {
		unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);

		if ((size_t) snprintf(tmp, len, "%s.ein-%ld-%u", path,
				(long) getpid(), n) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	return fd;
}

/* Write "len" bytes at "data" to "fd". */
static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= n;
	}
	return 0;
}

/* Copy piece "p" to "fd": from its file with copy_file_range if it has
 * one and the file systems allow it (the first call fails with EXDEV,
 * EINVAL, ENOSYS or EOPNOTSUPP otherwise), else from memory. */
static int write_piece(int fd, const struct ein_out_piece *p)
{
	loff_t off = p->off;
	size_t done = 0;

	while (p->fd >= 0 && done < p->len) {
		ssize_t n = copy_file_range(p->fd, &off, fd, NULL,
			p->len - done, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && done == 0)
			break;
		if (n <= 0)
			return -1;
		done += n;
	}
	return write_all(fd, (const char *) p->data + done, p->len - done);
}

static int write_pieces(int fd, const struct ein_out_piece *piece, int n)
{
	int i;

	for (i = 0; i < n; ++i)
		if (write_piece(fd, &piece[i]) < 0)
			return -1;
	return 0;
}

/* Is "path" something other than a regular file that exists (a device
 * such as /dev/null, a pipe, a symbolic link)?  Renaming over it would
 * replace it rather than write to it. */
static int in_place(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static int write_in_place(const char *path,
	const struct ein_out_piece *piece, int n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	int ok;

	if (fd < 0)
		return -1;
	ok = write_pieces(fd, piece, n);
	if (close(fd) < 0)
		ok = -1;
	return ok;
}

/* The permissions of a durable file: those of the file it replaces, else
 * rw-r--r-- (independent of the umask: a schedule directory may be
 * shared by other users). */
static mode_t durable_mode(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return st.st_mode & 07777;
	return 0644;
}

/* Make the rename of a file in "path"'s directory durable.  Best effort:
 * the file is already in place, and some file systems cannot fsync a
 * directory. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

static int write_renamed(const char *path,
	const struct ein_out_piece *piece, int n, unsigned flags)
{
	int durable = flags & EIN_OUTFILE_DURABLE;
	size_t len = strlen(path) + 64;
	char *tmp = malloc(len);
	int fd = tmp ? create_temp(path, tmp, len) : -1;
	int ok = fd < 0 ? -1 : write_pieces(fd, piece, n);
	int err;

	if (fd >= 0 && ok == 0 && durable &&
	    (fchmod(fd, durable_mode(path)) < 0 || fsync(fd) < 0))
		ok = -1;
	if (fd >= 0 && close(fd) < 0)
		ok = -1;
	if (fd >= 0 && ok == 0)
		ok = rename(tmp, path);
	err = errno;
	if (fd >= 0 && ok < 0)
		unlink(tmp);
	if (ok == 0 && durable)
		sync_dir(path);
	free(tmp);
	errno = err;
	return ok;
}

int ein_outfile_write(ein_ctx *ctx, const char *path,
	const struct ein_out_piece *piece, int n, unsigned flags)
{
	int ok;

	errno = 0;
	if (in_place(path))
		ok = write_in_place(path, piece, n);
	else
		ok = write_renamed(path, piece, n, flags);
	if (ok < 0)
		ein_error(ctx, EIN_ERROR_IO, "cannot write '%s': %s", path,
			strerror(errno ? errno : EIO));
	return ok;
}

int ein_outfile_write_bytes(ein_ctx *ctx, const char *path,
	const void *data, size_t len, unsigned flags)
{
	struct ein_out_piece p = { data, len, -1, 0 };

	return ein_outfile_write(ctx, path, &p, 1, flags);
}
