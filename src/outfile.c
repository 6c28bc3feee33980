/*
 * outfile.c: output files written as temporaries and renamed together.
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

/* A new name next to "path", "path.ein-PID-N", into "tmp" (of "len"
 * bytes).  The counter only makes names distinct between threads; a name
 * taken is retried by the callers. */
static int create_temp_name(const char *path, char *tmp, size_t len)
{
	static unsigned counter;
	unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);

	if ((size_t) snprintf(tmp, len, "%s.ein-%ld-%u", path,
			(long) getpid(), n) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Create a new file next to "path" under a name from create_temp_name.
 * O_EXCL rather than mkstemp: the file gets the mode the umask allows, as
 * the file it replaces did, and no umask() call (which is process-wide)
 * is needed. */
static int create_temp(const char *path, char *tmp, size_t len)
{
	int i, fd = -1;

	for (i = 0; i < 100 && fd < 0; ++i) {
		if (create_temp_name(path, tmp, len) < 0)
			return -1;
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

/* One file of a set: its path, and either an open temporary "fd" next
 * to it (unnamed if "tmp" is NULL: O_TMPFILE) or, for a path written in
 * place, the bytes to write at commit ("data", "len"). */
struct out_file {
	char *path;
	int fd;
	char *tmp;
	char *data;
	size_t len;
	unsigned flags;
};

/* The files of one command, committed together (outfile.h). */
struct ein_outfile_set {
	ein_ctx *ctx;
	int n;
	struct out_file *file;
};

struct ein_outfile_set *ein_outfile_set_alloc(ein_ctx *ctx)
{
	struct ein_outfile_set *set = calloc(1, sizeof(*set));

	if (!set)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	else
		set->ctx = ctx;
	return set;
}

/* Close and remove the temporary of "f" (an unnamed one goes with its
 * descriptor); free the rest. */
static void file_drop(struct out_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	free(f->data);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void ein_outfile_set_free(struct ein_outfile_set *set)
{
	int i;

	if (!set)
		return;
	for (i = 0; i < set->n; ++i)
		file_drop(&set->file[i]);
	free(set->file);
	free(set);
}

/* Open an unnamed temporary in the directory of "path" (O_TMPFILE: it
 * disappears with the process however that ends, so that an interrupted
 * compile leaves nothing), -1 if the file system cannot. */
static int create_unnamed(const char *path)
{
	char *copy = strdup(path);
	int fd = -1;

	if (copy && access("/proc/self/fd", X_OK) == 0)
		fd = open(dirname(copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(copy);
	return fd;
}

/* Open the temporary of "f": unnamed if possible, else named. */
static int open_temp(struct out_file *f)
{
	size_t len = strlen(f->path) + 64;
	int err;

	f->fd = create_unnamed(f->path);
	if (f->fd >= 0)
		return 0;
	f->tmp = malloc(len);
	if (!f->tmp)
		return -1;
	f->fd = create_temp(f->path, f->tmp, len);
	if (f->fd >= 0)
		return 0;
	err = errno;
	free(f->tmp);
	f->tmp = NULL;
	errno = err;
	return -1;
}

/* Keep the pieces of a path written in place in memory until commit. */
static int keep_data(struct out_file *f, const struct ein_out_piece *piece,
	int n)
{
	int i;

	for (i = 0; i < n; ++i)
		f->len += piece[i].len;
	f->data = malloc(f->len ? f->len : 1);
	if (!f->data)
		return -1;
	for (f->len = 0, i = 0; i < n; f->len += piece[i++].len)
		memcpy(f->data + f->len, piece[i].data, piece[i].len);
	return 0;
}

/* Write the temporary of "f" (or keep the data of a path written in
 * place). */
static int file_write(struct out_file *f, const struct ein_out_piece *piece,
	int n)
{
	if (in_place(f->path))
		return keep_data(f, piece, n);
	if (open_temp(f) < 0 || write_pieces(f->fd, piece, n) < 0)
		return -1;
	if ((f->flags & EIN_OUTFILE_DURABLE) &&
	    (fchmod(f->fd, durable_mode(f->path)) < 0 || fsync(f->fd) < 0))
		return -1;
	return 0;
}

/* The error of "path" from errno, returned as -1. */
static int io_error(ein_ctx *ctx, const char *path)
{
	ein_error(ctx, EIN_ERROR_IO, "cannot write '%s': %s", path,
		strerror(errno ? errno : EIO));
	return -1;
}

int ein_outfile_set_add(struct ein_outfile_set *set, const char *path,
	const struct ein_out_piece *piece, int n, unsigned flags)
{
	struct out_file *grown, *f;

	if (!set)
		return -1;
	grown = realloc(set->file, (set->n + 1) * sizeof(*grown));
	if (!grown) {
		ein_error(set->ctx, EIN_ERROR_NOMEM, "out of memory");
		return -1;
	}
	set->file = grown;
	f = &set->file[set->n++];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->flags = flags;
	f->path = strdup(path);
	errno = 0;
	if (!f->path || file_write(f, piece, n) < 0)
		return io_error(set->ctx, path);
	return 0;
}

/* Give the unnamed temporary of "f" a name next to its path, so that it
 * can be renamed over it (a file cannot be linked over another). */
static int name_unnamed(struct out_file *f)
{
	char proc[64];
	size_t len = strlen(f->path) + 64;
	int i, r = -1;

	f->tmp = malloc(len);
	if (!f->tmp)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	for (i = 0; i < 100 && r < 0; ++i) {
		if (create_temp_name(f->path, f->tmp, len) < 0)
			break;
		r = linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp,
			AT_SYMLINK_FOLLOW);
		if (r < 0 && errno != EEXIST)
			break;
	}
	if (r < 0) {
		int err = errno;

		free(f->tmp);
		f->tmp = NULL;
		errno = err;
	}
	return r;
}

/* Put "f" in place: rename its temporary over the path, or write the
 * kept data to a path written in place. */
static int file_commit(struct out_file *f)
{
	struct ein_out_piece p = { f->data, f->len, -1, 0 };
	int fd, ok;

	if (f->data) {
		fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			0666);
		if (fd < 0)
			return -1;
		ok = write_pieces(fd, &p, 1);
		return close(fd) < 0 ? -1 : ok;
	}
	if (!f->tmp && name_unnamed(f) < 0)
		return -1;
	if (close(f->fd) < 0) {
		f->fd = -1;
		return -1;
	}
	f->fd = -1;
	if (rename(f->tmp, f->path) < 0)
		return -1;
	free(f->tmp);
	f->tmp = NULL;
	if (f->flags & EIN_OUTFILE_DURABLE)
		sync_dir(f->path);
	return 0;
}

int ein_outfile_set_commit(struct ein_outfile_set *set)
{
	int i;

	if (!set)
		return -1;
	for (i = 0; i < set->n; ++i) {
		errno = 0;
		if (file_commit(&set->file[i]) < 0)
			return io_error(set->ctx, set->file[i].path);
	}
	return 0;
}

int ein_outfile_write(ein_ctx *ctx, const char *path,
	const struct ein_out_piece *piece, int n, unsigned flags)
{
	struct ein_outfile_set *set = ein_outfile_set_alloc(ctx);
	int ok = ein_outfile_set_add(set, path, piece, n, flags);

	if (ok == 0)
		ok = ein_outfile_set_commit(set);
	ein_outfile_set_free(set);
	return ok;
}

int ein_outfile_write_bytes(ein_ctx *ctx, const char *path,
	const void *data, size_t len, unsigned flags)
{
	struct ein_out_piece p = { data, len, -1, 0 };

	return ein_outfile_write(ctx, path, &p, 1, flags);
}
