/*
 * archive.c: a one-member "ar" archive with a symbol index.
 *
 * The format is "!<arch>\n", then members, each a 60-byte header
 *
 *	name[16] mtime[12] uid[6] gid[6] mode[8] size[10] "`\n"
 *
 * (decimal fields padded with spaces, octal mode) and its data padded to
 * an even length with "\n".  The first member, named "/", is the symbol
 * index: the number of symbols, then the offset of the member defining
 * each, as 4-byte big-endian numbers, then the symbols' names, each ended
 * by a NUL.  Timestamps and owners are 0, so that builds are
 * reproducible.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"
#include "driver/archive.h"

#define AR_MAGIC "!<arch>\n"
#define AR_HEADER 60

/* Print a member header for "name" (at most 15 characters, "/" added
 * unless it is the index) of "size" bytes. */
static void put_header(FILE *f, const char *name, size_t size)
{
	char buf[AR_HEADER + 1];

	snprintf(buf, sizeof(buf), "%-16.16s%-12d%-6d%-6d%-8o%-10zu`\n",
		name, 0, 0, 0, 0644, size);
	fwrite(buf, 1, AR_HEADER, f);
}

static void put_be32(FILE *f, unsigned long v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };

	fwrite(b, 1, 4, f);
}

/* The size of the symbol index's data. */
static size_t index_size(int n_sym, const char *const *syms)
{
	size_t size = 4 + 4 * (size_t) n_sym;
	int i;

	for (i = 0; i < n_sym; ++i)
		size += strlen(syms[i]) + 1;
	return size;
}

static void put_index(FILE *f, int n_sym, const char *const *syms,
	size_t size, unsigned long member_offset)
{
	int i;

	put_header(f, "/", size);
	put_be32(f, n_sym);
	for (i = 0; i < n_sym; ++i)
		put_be32(f, member_offset);
	for (i = 0; i < n_sym; ++i)
		fwrite(syms[i], 1, strlen(syms[i]) + 1, f);
	if (size % 2)
		fputc('\n', f);
}

int ein_archive_write(ein_ctx *ctx, const char *path, const char *member,
	const struct iovec *iov, int n_iov, int n_sym,
	const char *const *syms)
{
	FILE *f = fopen(path, "wb");
	size_t isize = index_size(n_sym, syms), size = 0;
	char name[17];
	int i, bad;

	if (!f) {
		ein_error(ctx, EIN_ERROR_IO, "cannot write '%s': %s", path,
			strerror(errno));
		return -1;
	}
	snprintf(name, sizeof(name), "%.15s/", member);
	fputs(AR_MAGIC, f);
	put_index(f, n_sym, syms, isize, strlen(AR_MAGIC) + AR_HEADER +
		isize + isize % 2);
	for (i = 0; i < n_iov; ++i)
		size += iov[i].iov_len;
	put_header(f, name, size);
	for (i = 0; i < n_iov; ++i)
		fwrite(iov[i].iov_base, 1, iov[i].iov_len, f);
	if (size % 2)
		fputc('\n', f);
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		ein_error(ctx, EIN_ERROR_IO, "cannot write '%s'", path);
		return -1;
	}
	return 0;
}
