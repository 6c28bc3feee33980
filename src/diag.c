/*
 * diag.c: formatting of user and internal errors into the context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ein.h"
#include "diag.h"
#include "ctx_private.h"

/* The longest run of identifier characters a message shows whole, and
 * how much of a longer one it keeps before "...": a source may hold a
 * 1 MB identifier, and each message that names it would echo it whole. */
#define LONG_NAME 64
#define LONG_KEEP 40

/* Append text[0 .. n) to ctx->msg as it is; ctx->lock is held. */
static void append_raw(ein_ctx *ctx, const char *text, size_t n)
{
	char *msg = realloc(ctx->msg, ctx->len + n + 1);

	if (!msg)
		return;
	ctx->msg = msg;
	memcpy(ctx->msg + ctx->len, text, n);
	ctx->len += n;
	ctx->msg[ctx->len] = '\0';
}

/* Is "c" a control character that a message shows escaped, as \xNN, so
 * that a source cannot drive the terminal?  Newlines separate the lines
 * of a message, and tabs keep the caret under a quoted line in place. */
static int is_control(unsigned char c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
}

static int is_name_char(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9');
}

/* The width of "c" as a message shows it. */
static int shown_width(unsigned char c)
{
	return is_control(c) ? 4 : 1;
}

/* Append text[0 .. n) with its control characters escaped and, if
 * "shorten", its runs of identifier characters longer than LONG_NAME cut
 * to LONG_KEEP and "...". */
static void append_clean(ein_ctx *ctx, const char *text, size_t n,
	int shorten)
{
	char *out = malloc(4 * n + 1), *o = out;
	size_t i = 0, run;

	if (!out)
		return;
	while (i < n) {
		for (run = 0; i + run < n && is_name_char(text[i + run]); ++run)
			;
		if (shorten && run > LONG_NAME) {
			memcpy(o, text + i, LONG_KEEP);
			memcpy(o + LONG_KEEP, "...", 3);
			o += LONG_KEEP + 3;
			i += run;
		} else if (run > 0) {
			memcpy(o, text + i, run);
			o += run;
			i += run;
		} else if (is_control(text[i])) {
			o += sprintf(o, "\\x%02x", (unsigned char) text[i++]);
		} else {
			*o++ = text[i++];
		}
	}
	append_raw(ctx, out, o - out);
	free(out);
}

/* Append the formatted text to ctx->msg, cleaned (append_clean); ctx->lock
 * is held. */
static void append_v(ein_ctx *ctx, const char *fmt, va_list ap)
{
	char *text = NULL;
	int n = vasprintf(&text, fmt, ap);

	if (n >= 0)
		append_clean(ctx, text, n, 1);
	free(text);
}

__attribute__((format(printf, 2, 3)))
static void append(ein_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append_v(ctx, fmt, ap);
	va_end(ap);
}

static void record(ein_ctx *ctx, ein_status status)
{
	if (ctx->n_error == 0)
		ctx->status = status;
	if (ctx->n_error < INT_MAX)
		ctx->n_error++;
}

/* The most errors whose text one call keeps: a file of junk has an
 * error every few characters, and each quotes its line, so that without a
 * limit the messages would grow as the square of the text (the limit of
 * clang's -ferror-limit); and a caller that never clears the context's
 * error would have it grow with every failed call. */
#define MAX_SHOWN_ERRORS 20

/* Has ctx (locked) recorded more errors than it keeps the text of?  The
 * first time, say so.  This also bounds the text a context gathers over
 * calls that do not clear it. */
static int too_many(ein_ctx *ctx)
{
	if (ctx->n_error <= MAX_SHOWN_ERRORS)
		return 0;
	if (ctx->n_error == MAX_SHOWN_ERRORS + 1)
		append(ctx, "error: too many errors; the others are not "
			"shown\n");
	return 1;
}

/* The widest part of a line quoted under a message, and how much of it
 * comes before the caret. */
#define QUOTE_WIDTH 120
#define QUOTE_BEFORE 60

/* Append line "line" of "text" and a caret under column "col", so that the
 * user sees what the message is about.  Tabs are kept under the caret so it
 * lines up however the terminal expands them.  Of a line longer than
 * QUOTE_WIDTH, only the part around the caret is quoted, between "...". */
static void quote_line(ein_ctx *ctx, const char *text, int line, int col)
{
	const char *p = text, *end, *from, *to;
	int i;

	for (i = 1; i < line && p; ++i) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return;
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	from = p;
	if (end - p > QUOTE_WIDTH && col - 1 > QUOTE_BEFORE)
		from = p + (col - 1 < end - p ? col - 1 : end - p) -
			QUOTE_BEFORE;
	to = end - from > QUOTE_WIDTH ? from + QUOTE_WIDTH : end;
	append(ctx, "    %s", from > p ? "..." : "");
	append_clean(ctx, from, to - from, 0);
	append(ctx, "%s\n    %s", to < end ? "..." : "",
		from > p ? "   " : "");
	for (i = from - p + 1; i < col && p + i - 1 < end; ++i)
		append(ctx, "%*s", p[i - 1] == '\t' ? 0 : shown_width(p[i - 1]),
			p[i - 1] == '\t' ? "\t" : "");
	append(ctx, "^\n");
}

void ein_error_at(ein_ctx *ctx, struct ein_loc loc, const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	record(ctx, EIN_ERROR_SOURCE);
	if (too_many(ctx)) {
		pthread_mutex_unlock(&ctx->lock);
		return;
	}
	if (loc.src)
		append(ctx, "%s:%d:%d: ",
			loc.src->name ? loc.src->name : "<input>",
			loc.line, loc.col);
	append(ctx, "error: ");
	va_start(ap, fmt);
	append_v(ctx, fmt, ap);
	va_end(ap);
	append(ctx, "\n");
	if (loc.src && loc.src->text)
		quote_line(ctx, loc.src->text, loc.line, loc.col);
	pthread_mutex_unlock(&ctx->lock);
}

void ein_hint(ein_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->n_error > MAX_SHOWN_ERRORS) {
		pthread_mutex_unlock(&ctx->lock);
		return;
	}
	append(ctx, "hint: ");
	va_start(ap, fmt);
	append_v(ctx, fmt, ap);
	va_end(ap);
	append(ctx, "\n");
	pthread_mutex_unlock(&ctx->lock);
}

void ein_error(ein_ctx *ctx, ein_status status, const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	record(ctx, status);
	if (too_many(ctx)) {
		pthread_mutex_unlock(&ctx->lock);
		return;
	}
	append(ctx, "error: ");
	va_start(ap, fmt);
	append_v(ctx, fmt, ap);
	va_end(ap);
	append(ctx, "\n");
	pthread_mutex_unlock(&ctx->lock);
}

void ein_internal_at(ein_ctx *ctx, const char *file, int line,
	const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	record(ctx, EIN_ERROR_INTERNAL);
	if (too_many(ctx)) {
		pthread_mutex_unlock(&ctx->lock);
		return;
	}
	append(ctx, "internal error (%s:%d): ", file, line);
	va_start(ap, fmt);
	append_v(ctx, fmt, ap);
	va_end(ap);
	append(ctx, "\nplease report this as a bug in ein\n");
	pthread_mutex_unlock(&ctx->lock);
}

int ein_diag_n_error(const ein_ctx *ctx)
{
	return ctx ? ctx->n_error : 0;
}

struct ein_diag_mark ein_diag_get_mark(ein_ctx *ctx)
{
	struct ein_diag_mark mark = { 0, 0, EIN_OK };

	pthread_mutex_lock(&ctx->lock);
	mark.len = ctx->len;
	mark.n_error = ctx->n_error;
	mark.status = ctx->status;
	pthread_mutex_unlock(&ctx->lock);
	return mark;
}

char *ein_diag_rollback(ein_ctx *ctx, struct ein_diag_mark mark)
{
	char *first = NULL;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->msg && ctx->len > mark.len) {
		const char *text = ctx->msg + mark.len;

		first = strndup(text, strcspn(text, "\n"));
		ctx->msg[mark.len] = '\0';
	}
	ctx->len = mark.len;
	ctx->n_error = mark.n_error;
	ctx->status = mark.status;
	pthread_mutex_unlock(&ctx->lock);
	return first;
}

struct ein_src *ein_src_alloc(const char *name, const char *text)
{
	struct ein_src *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->name = strdup(name ? name : "<input>");
	src->text = strdup(text ? text : "");
	if (!src->name || !src->text) {
		ein_src_free(src);
		return NULL;
	}
	return src;
}

/* Read at most EIN_SRC_MAX_BYTES + 1 bytes of "f" into a string the
 * caller frees, its length in *len.  Reading with a bound (rather than
 * asking for the file's size) also serves pipes and devices: /dev/zero
 * ends at the bound instead of filling the memory. */
static char *read_bounded(FILE *f, size_t *len)
{
	size_t cap = 65536, n;
	char *text = malloc(cap + 1), *grown;

	*len = 0;
	while (text && *len <= EIN_SRC_MAX_BYTES) {
		if (*len == cap) {
			cap *= 2;
			grown = realloc(text, cap + 1);
			if (!grown)
				return (free(text), NULL);
			text = grown;
		}
		n = fread(text + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	if (text)
		text[*len] = '\0';
	return text;
}

/* Read all of "path" into a string the caller frees: a text of at most
 * EIN_SRC_MAX_BYTES bytes without NUL. */
static char *read_text(ein_ctx *ctx, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	size_t len;

	if (!f) {
		ein_error(ctx, EIN_ERROR_IO, "cannot open '%s': %s", path,
			strerror(errno));
		return NULL;
	}
	text = read_bounded(f, &len);
	if (!text)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory reading '%s'",
			path);
	else if (ferror(f))
		ein_error(ctx, EIN_ERROR_IO, "cannot read '%s': %s", path,
			strerror(errno ? errno : EIO));
	else if (len > EIN_SRC_MAX_BYTES)
		ein_error(ctx, EIN_ERROR_IO, "'%s' is larger than %d MiB, "
			"the most a source file may hold", path,
			EIN_SRC_MAX_BYTES >> 20);
	else if (strlen(text) != len)
		ein_error(ctx, EIN_ERROR_IO, "'%s' is not a text file: it "
			"holds a NUL byte at offset %zu", path, strlen(text));
	else
		return (fclose(f), text);
	free(text);
	fclose(f);
	return NULL;
}

struct ein_src *ein_src_read(ein_ctx *ctx, const char *path)
{
	struct ein_src *src;
	char *text;

	text = read_text(ctx, path);
	if (!text)
		return NULL;
	src = ein_src_alloc(path, text);
	free(text);
	if (!src)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	return src;
}

int ein_diag_edit_distance(const char *s, int n, const char *t)
{
	int m = strlen(t), row[33], i, j, diag, up, best;

	if (n > 32 || m > 32)
		return 1000;
	for (j = 0; j <= m; ++j)
		row[j] = j;
	for (i = 1; i <= n; ++i) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= m; ++j) {
			up = row[j];
			best = diag + (s[i - 1] != t[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[m];
}

void ein_src_free(struct ein_src *src)
{
	if (!src)
		return;
	free(src->name);
	free(src->text);
	free(src);
}
