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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctx.h"
#include "diag.h"
#include "frontend/type.h"
#include "driver/weights.h"

#define NPY_MAGIC "\x93NUMPY"

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

/* The offset of the data of the .npy file "p" of "size" bytes after
 * checking its header; -1 after an error. */
static int64_t npy_data(ein_ctx *ctx, const unsigned char *p, size_t size,
	const char *path, const struct ein_tensor *t, const int64_t *shape)
{
	size_t at = p[6] == 1 ? 10 : 12, len;
	char *h;
	int ok;

	if (size < 12 || p[6] < 1 || p[6] > 3) {
		ein_error(ctx, EIN_ERROR_IO, "%s: unsupported .npy version",
			path);
		return -1;
	}
	len = p[8] | p[9] << 8 | (p[6] == 1 ? 0 :
		(size_t) p[10] << 16 | (size_t) p[11] << 24);
	if (len > size - at) {
		ein_error(ctx, EIN_ERROR_IO, "%s: truncated .npy header", path);
		return -1;
	}
	h = malloc(len + 1);
	if (!h)
		return -1;
	memcpy(h, p + at, len);
	h[len] = '\0';
	ok = check_npy_header(ctx, path, h, t, shape);
	free(h);
	return ok < 0 ? -1 : (int64_t) (at + len);
}

void ein_weights_unmap(struct ein_weights *w)
{
	if (w->map)
		munmap(w->map, w->map_size);
	if (w->fd >= 0)
		close(w->fd);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

/* Map all of "path" into w, keeping the file open. */
static int map_file(ein_ctx *ctx, const char *path, struct ein_weights *w)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		ein_error(ctx, EIN_ERROR_IO, "cannot open '%s': %s", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	w->map_size = st.st_size;
	w->map = st.st_size > 0 ? mmap(NULL, st.st_size, PROT_READ,
		MAP_PRIVATE, fd, 0) : NULL;
	w->fd = fd;
	if (w->map == MAP_FAILED) {
		w->map = NULL;
		ein_error(ctx, EIN_ERROR_IO, "cannot read '%s': %s", path,
			strerror(errno));
		ein_weights_unmap(w);
		return -1;
	}
	return 0;
}

int ein_weights_map(ein_ctx *ctx, const char *path,
	const struct ein_tensor *t, const int64_t *shape, int64_t bytes,
	struct ein_weights *w)
{
	const unsigned char *p;
	int64_t at = 0;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (map_file(ctx, path, w) < 0)
		return -1;
	p = w->map;
	if (w->map_size >= 6 && !memcmp(p, NPY_MAGIC, 6))
		at = npy_data(ctx, p, w->map_size, path, t, shape);
	if (at >= 0 && (uint64_t) (w->map_size - at) != (uint64_t) bytes) {
		ein_error(ctx, EIN_ERROR_SHAPE, "%s: %lld bytes of data, but "
			"tensor '%s' (%s) needs %lld", path,
			(long long) (w->map_size - at), t->name,
			ein_type_name(t->type), (long long) bytes);
		at = -1;
	}
	if (at < 0)
		return (ein_weights_unmap(w), -1);
	w->data = p ? p + at : (const void *) "";
	w->offset = at;
	return 0;
}

/* The element type of DLPack type "dt", EIN_TYPE_NONE if ein has none. */
static enum ein_type type_of_dl(DLDataType dt)
{
	if (dt.lanes != 1)
		return EIN_TYPE_NONE;
	if (dt.code == kDLFloat)
		return dt.bits == 32 ? EIN_TYPE_F32 : dt.bits == 64 ?
			EIN_TYPE_F64 : EIN_TYPE_NONE;
	if (dt.code == kDLInt)
		return dt.bits == 32 ? EIN_TYPE_I32 : dt.bits == 8 ?
			EIN_TYPE_I8 : EIN_TYPE_NONE;
	if (dt.bits != 8)
		return EIN_TYPE_NONE;
	return dt.code == kDLUInt ? EIN_TYPE_U8 : dt.code == 6 ?
		EIN_TYPE_BOOL : EIN_TYPE_NONE;
}

/* Check that "t" is a dense CPU tensor of a type ein has; its byte count
 * in *bytes. */
static int check_host_tensor(ein_ctx *ctx, const char *fn, const DLTensor *t,
	enum ein_type *type, int64_t *bytes)
{
	int64_t n = 1, stride = 1;
	int d;

	if (!t || !t->data || t->ndim < 0 || (t->ndim && !t->shape)) {
		ein_error(ctx, EIN_ERROR_INVALID, "%s: no tensor or no data",
			fn);
		return -1;
	}
	*type = type_of_dl(t->dtype);
	for (d = t->ndim - 1; d >= 0; --d) {
		if (t->shape[d] < 0 || (t->strides &&
				t->strides[d] != stride && t->shape[d] != 1)) {
			ein_error(ctx, EIN_ERROR_INVALID, "%s: the tensor is "
				"not dense", fn);
			return -1;
		}
		stride *= t->shape[d];
		n *= t->shape[d];
	}
	if (*type == EIN_TYPE_NONE || t->device.device_type != kDLCPU) {
		ein_error(ctx, EIN_ERROR_INVALID, "%s: not a CPU tensor of a "
			"type ein has", fn);
		return -1;
	}
	*bytes = n * ein_type_size(*type);
	return 0;
}

ein_status ein_tensor_read_file(ein_ctx *ctx, const char *path,
	const char *name, DLTensor *t)
{
	struct ein_tensor fake = { 0 };
	struct ein_weights w;
	int64_t bytes;

	if (!ctx)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(ctx);
	if (!path || check_host_tensor(ctx, "ein_tensor_read_file", t,
			&fake.type, &bytes) < 0) {
		if (!path)
			ein_error(ctx, EIN_ERROR_INVALID, "ein_tensor_read_file: "
				"the file name is NULL");
		return EIN_ERROR_INVALID;
	}
	fake.name = name ? name : "the tensor";
	fake.n_dim = t->ndim;
	if (ein_weights_map(ctx, path, &fake, t->shape, bytes, &w) < 0)
		return ein_ctx_last_status(ctx);
	memcpy((char *) t->data + t->byte_offset, w.data, bytes);
	ein_weights_unmap(&w);
	return EIN_OK;
}

/* The .npy header of "t" (padded so that the data start at a multiple of
 * 64 bytes, as NumPy writes it) into buf; its length. */
static size_t npy_header(const DLTensor *t, enum ein_type type, char *buf,
	size_t size)
{
	size_t len;
	int d;

	len = snprintf(buf, size, "%s\x01%c%c%c{'descr': '%s', 'fortran_order': "
		"False, 'shape': (", NPY_MAGIC, 0, 0, 0, type == EIN_TYPE_BOOL ?
		"|b1" : npy_descr(type));
	for (d = 0; d < t->ndim && len < size - 64; ++d)
		len += snprintf(buf + len, size - len, "%lld,%s",
			(long long) t->shape[d], d + 1 < t->ndim ? " " : "");
	len += snprintf(buf + len, size - len, "), }");
	while ((len + 1) % 64)
		buf[len++] = ' ';
	buf[len++] = '\n';
	buf[8] = (len - 10) & 0xff;
	buf[9] = (len - 10) >> 8;
	return len;
}

ein_status ein_tensor_write_npy(ein_ctx *ctx, const char *path,
	const DLTensor *t)
{
	char head[1024];
	enum ein_type type;
	int64_t bytes;
	size_t len;
	FILE *f;
	int ok;

	if (!ctx)
		return EIN_ERROR_INVALID;
	ein_ctx_clear_error(ctx);
	if (!path || check_host_tensor(ctx, "ein_tensor_write_npy", t, &type,
			&bytes) < 0) {
		if (!path)
			ein_error(ctx, EIN_ERROR_INVALID, "ein_tensor_write_npy: "
				"the file name is NULL");
		return EIN_ERROR_INVALID;
	}
	len = npy_header(t, type, head, sizeof(head));
	f = fopen(path, "wb");
	ok = f && fwrite(head, 1, len, f) == len &&
		fwrite((const char *) t->data + t->byte_offset, 1, bytes, f) ==
		(size_t) bytes;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok) {
		ein_error(ctx, EIN_ERROR_IO, "cannot write '%s': %s", path,
			strerror(errno));
		return EIN_ERROR_IO;
	}
	return EIN_OK;
}
