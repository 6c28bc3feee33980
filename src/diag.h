/*
 * diag.h: user errors with source positions, and internal errors.
 *
 * A user error is printed as a compiler does:
 *
 *     matmul.ein:2:27: error: unknown tensor 'D'
 *         C(i, j) +=! A(i, k) * D(k, j)
 *                               ^
 *     hint: the tensors in scope are A, B, C
 *
 * Messages accumulate in the context (several errors in one file are
 * reported together) until the next public API call clears them.
 */
#ifndef EIN_DIAG_H
#define EIN_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include "ein.h"

/* A source file held in memory: its name (for messages) and its text (for
 * the quoted line under each message).  Owned by whoever parsed it. */
struct ein_src {
	char *name;
	char *text;
};

/* A position in a source: 1-based line and column.  src may be NULL for
 * positions without a file (then only "error: ..." is printed). */
struct ein_loc {
	const struct ein_src *src;
	int line;
	int col;
};

__attribute__((format(printf, 3, 4)))
void ein_error_at(ein_ctx *ctx, struct ein_loc loc, const char *fmt, ...);
/* Append "hint: ..." to the last error. */
__attribute__((format(printf, 2, 3)))
void ein_hint(ein_ctx *ctx, const char *fmt, ...);
/* A user error without a position (API misuse, wrong shapes, I/O). */
__attribute__((format(printf, 3, 4)))
void ein_error(ein_ctx *ctx, ein_status status, const char *fmt, ...);
/* A bug in ein, recorded with the place in ein's source that found it. */
__attribute__((format(printf, 4, 5)))
void ein_internal_at(ein_ctx *ctx, const char *file, int line,
	const char *fmt, ...);
#define ein_internal(ctx, ...) \
	ein_internal_at(ctx, __FILE__, __LINE__, __VA_ARGS__)

/* The number of errors recorded since the last clear. */
int ein_diag_n_error(const ein_ctx *ctx);

/* The largest source (or schedule) file read: 64 MiB.  Beyond it, or
 * with a NUL byte, a file is not a source; the bound also stops a read of
 * an endless device or pipe (/dev/zero). */
#define EIN_SRC_MAX_BYTES (64 << 20)

/* A point in the messages of the current call (their length, the number
 * of errors and the status then), to go back to after trying something
 * whose failure is not the user's error (the automatic scheduler's
 * candidates, sched/auto.c). */
struct ein_diag_mark {
	size_t len;
	int n_error;
	ein_status status;
};

struct ein_diag_mark ein_diag_get_mark(ein_ctx *ctx);
/* Forget the messages recorded since "mark".  Returns the first line of
 * what was forgotten (the caller frees it), NULL if nothing was. */
char *ein_diag_rollback(ein_ctx *ctx, struct ein_diag_mark mark);

struct ein_src *ein_src_alloc(const char *name, const char *text);
/* Read the file at "path" into a source named "path".  Returns NULL after
 * an EIN_ERROR_IO error when it cannot be read, is larger than
 * EIN_SRC_MAX_BYTES or holds a NUL byte. */
struct ein_src *ein_src_read(ein_ctx *ctx, const char *path);
void ein_src_free(struct ein_src *src);

/* The edit distance between s[0 .. n) and t (insertions, deletions and
 * substitutions), or a large number for strings over 32 characters: for
 * "did you mean" hints. */
int ein_diag_edit_distance(const char *s, int n, const char *t);

#endif
