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
#include <stdio.h>
#include <stdlib.h>
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

/* The archive's bytes before its member's data, in a buffer of *len
 * bytes (to be freed), or NULL if out of memory. */
static char *prefix(const char *member, size_t size, int n_sym,
	const char *const *syms, size_t *len)
{
	size_t isize = index_size(n_sym, syms);
	char name[17], *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	snprintf(name, sizeof(name), "%.15s/", member);
	fputs(AR_MAGIC, f);
	put_index(f, n_sym, syms, isize, strlen(AR_MAGIC) + AR_HEADER +
		isize + isize % 2);
	put_header(f, name, size);
	if (ferror(f) | fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int ein_archive_write(ein_ctx *ctx, struct ein_outfile_set *set,
	const char *path, const char *member,
	const struct ein_out_piece *piece, int n, int n_sym,
	const char *const *syms)
{
	struct ein_out_piece all[n + 2];
	size_t size = 0, len;
	char *head;
	int i, ok;

	for (i = 0; i < n; ++i)
		size += piece[i].len;
	head = prefix(member, size, n_sym, syms, &len);
	if (!head) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
		return -1;
	}
	all[0] = (struct ein_out_piece) { head, len, -1, 0 };
	memcpy(all + 1, piece, n * sizeof(*piece));
	all[n + 1] = (struct ein_out_piece) { "\n", size % 2, -1, 0 };
	ok = ein_outfile_set_add(set, path, all, n + 2, 0);
	free(head);
	return ok;
}
