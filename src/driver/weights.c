/*
 * weights.c: constant tensors' data from raw files and .npy files.
 *
 * A .npy file (NumPy's format, version 1 to 3) is the magic "\x93NUMPY",
 * two version bytes, the header's length (2 bytes little-endian in version
 * 1, 4 bytes later), then the header, a Python dict literal such as
 *
 *	{'descr': '<f4', 'fortran_order': False, 'shape': (64, 3), }
 *
 * and the data.  Only the three keys matter; the data must be in C order
 * and of exactly the tensor's element type and shape.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "driver/weights.h"

#define NPY_MAGIC "\x93NUMPY"

int ein_weights_elem_size(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return 8;
	case EIN_TYPE_F32:
	case EIN_TYPE_I32: return 4;
	default: return 1;
	}
}

/* NumPy's descr of little-endian elements of "type". */
static const char *npy_descr(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return "<f8";
	case EIN_TYPE_I32: return "<i4";
	case EIN_TYPE_I8: return "|i1";
	case EIN_TYPE_U8: return "|u1";
	case EIN_TYPE_BOOL: return "|b1";
	default: return "<f4";
	}
}

/* The text after key "key" and the colon in header "h", NULL if none. */
static const char *npy_value(const char *h, const char *key)
{
	const char *p = strstr(h, key);

	if (!p)
		return NULL;
	p = strchr(p + strlen(key), ':');
	if (!p)
		return NULL;
	for (++p; *p == ' '; ++p)
		;
	return p;
}

/* Does the descr in "v" (a quoted string) name "want"?  One-byte types
 * may be written with any byte order mark. */
static int descr_matches(const char *v, const char *want)
{
	if (*v != '\'' && *v != '"')
		return 0;
	if (!strncmp(v + 1, want, 3) && v[4] == v[0])
		return 1;
	return want[0] == '|' && strchr("<>=|", v[1]) &&
		!strncmp(v + 2, want + 1, 2) && v[4] == v[0];
}

/* Does the shape tuple in "v" equal shape[0 .. n-1]? */
static int shape_matches(const char *v, int n, const int64_t *shape)
{
	char *end;
	int d;

	if (*v++ != '(')
		return 0;
	for (d = 0; d < n; ++d) {
		long long x = strtoll(v, &end, 10);

		if (end == v || x != shape[d])
			return 0;
		for (v = end; *v == ' ' || *v == ','; ++v)
			;
	}
	return *v == ')';
}

/* Check the .npy header "h" against the tensor; report a mismatch. */
static int check_npy_header(ein_ctx *ctx, const char *path, const char *h,
	const struct ein_tensor *t, const int64_t *shape)
{
	const char *descr = npy_value(h, "'descr'");
	const char *order = npy_value(h, "'fortran_order'");
	const char *sh = npy_value(h, "'shape'");

	if (!descr || !order || !sh) {
		ein_error(ctx, EIN_ERROR_IO, "%s: not a valid .npy header",
			path);
		return -1;
	}
	if (!descr_matches(descr, npy_descr(t->type)) ||
	    strncmp(order, "False", 5) || !shape_matches(sh, t->n_dim,
			shape)) {
		ein_error(ctx, EIN_ERROR_SHAPE, "%s: the array is not a C-order "
			"'%s' array of tensor '%s''s shape (header: %s)",
			path, npy_descr(t->type), t->name, h);
		return -1;
	}
	return 0;
}

/* Read the header of a .npy file after its magic; leave "f" at the data.
 * Returns -1 after an error. */
static int read_npy_header(ein_ctx *ctx, FILE *f, const char *path,
	const struct ein_tensor *t, const int64_t *shape)
{
	unsigned char v[6];
	size_t len;
	char *h;
	int ok;

	if (fread(v, 1, 2, f) != 2 || v[0] < 1 || v[0] > 3 ||
	    fread(v + 2, 1, v[0] == 1 ? 2 : 4, f) != (v[0] == 1 ? 2u : 4u)) {
		ein_error(ctx, EIN_ERROR_IO, "%s: unsupported .npy version",
			path);
		return -1;
	}
	len = v[2] | v[3] << 8 | (v[0] == 1 ? 0 : (size_t) v[4] << 16 |
		(size_t) v[5] << 24);
	h = malloc(len + 1);
	if (!h || fread(h, 1, len, f) != len) {
		free(h);
		ein_error(ctx, EIN_ERROR_IO, "%s: truncated .npy header", path);
		return -1;
	}
	h[len] = '\0';
	ok = check_npy_header(ctx, path, h, t, shape);
	free(h);
	return ok;
}

/* Read exactly "bytes" bytes from "f", which must then be at its end. */
static void *read_data(ein_ctx *ctx, FILE *f, const char *path,
	const struct ein_tensor *t, int64_t bytes)
{
	char *data = malloc(bytes > 0 ? bytes : 1);
	size_t n = data ? fread(data, 1, bytes, f) : 0;

	if (!data) {
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory for %s", path);
		return NULL;
	}
	if (n != (size_t) bytes || fgetc(f) != EOF) {
		long long have = n;

		if (n == (size_t) bytes) {
			fseek(f, 0, SEEK_END);
			have = ftell(f);
		}
		ein_error(ctx, EIN_ERROR_SHAPE, "%s: %s %lld bytes of data, "
			"but tensor '%s' (%s) needs %lld", path,
			n == (size_t) bytes ? "the file has" : "only",
			have, t->name, ein_type_name(t->type),
			(long long) bytes);
		free(data);
		return NULL;
	}
	return data;
}

void *ein_weights_read(ein_ctx *ctx, const char *path,
	const struct ein_tensor *t, const int64_t *shape, int64_t bytes)
{
	FILE *f = fopen(path, "rb");
	char magic[6];
	void *data = NULL;

	if (!f) {
		ein_error(ctx, EIN_ERROR_IO, "cannot open '%s': %s", path,
			strerror(errno));
		return NULL;
	}
	if (fread(magic, 1, 6, f) == 6 && !memcmp(magic, NPY_MAGIC, 6)) {
		if (read_npy_header(ctx, f, path, t, shape) == 0)
			data = read_data(ctx, f, path, t, bytes);
	} else {
		rewind(f);
		data = read_data(ctx, f, path, t, bytes);
	}
	fclose(f);
	return data;
}
