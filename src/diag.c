/*
 * diag.c: formatting of user and internal errors into the context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ein.h"
#include "diag.h"
#include "ctx_private.h"

/* Append the formatted text to ctx->msg; ctx->lock is held. */
static void append_v(ein_ctx *ctx, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *msg;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	msg = realloc(ctx->msg, ctx->len + n + 1);
	if (!msg)
		return;
	ctx->msg = msg;
	vsnprintf(ctx->msg + ctx->len, n + 1, fmt, ap);
	ctx->len += n;
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
	if (ctx->n_error++ == 0)
		ctx->status = status;
}

/* The most user errors whose text one call keeps: a file of junk has an
 * error every few characters, and each quotes its line, so that without a
 * limit the messages would grow as the square of the text (the limit of
 * clang's -ferror-limit). */
#define MAX_SHOWN_ERRORS 20

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
	append(ctx, "    %s%.*s%s\n    %s", from > p ? "..." : "",
		(int) (to - from), from, to < end ? "..." : "",
		from > p ? "   " : "");
	for (i = from - p + 1; i < col && p + i - 1 < end; ++i)
		append(ctx, "%c", p[i - 1] == '\t' ? '\t' : ' ');
	append(ctx, "^\n");
}

void ein_error_at(ein_ctx *ctx, struct ein_loc loc, const char *fmt, ...)
{
	va_list ap;

	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	record(ctx, EIN_ERROR_SOURCE);
	if (ctx->n_error > MAX_SHOWN_ERRORS) {
		if (ctx->n_error == MAX_SHOWN_ERRORS + 1)
			append(ctx, "error: too many errors; the others are "
				"not shown\n");
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

/* Read all of "path" into a string the caller frees. */
static char *read_text(ein_ctx *ctx, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	if (!f) {
		ein_error(ctx, EIN_ERROR_IO, "cannot open '%s': %s", path,
			strerror(errno));
		return NULL;
	}
	out = open_memstream(&text, &len);
	if (out) {
		char buf[65536];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, out);
		fclose(out);
	}
	if (ferror(f) || !text) {
		ein_error(ctx, EIN_ERROR_IO, "cannot read '%s'", path);
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
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
