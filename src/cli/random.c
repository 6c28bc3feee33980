/*
 * random.c: tensors, random data, clocks and size lists for the CLI.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "rng.h"

/* Print that argument "pos" of "k" cannot be allocated, and why. */
static int alloc_failed(ein_kernel *k, int pos, const char *why)
{
	fprintf(stderr, "ein: error: cannot allocate tensor %s: %s\n",
		ein_kernel_get_tensor_name(k, pos), why);
	return -1;
}

/* The bytes of t's data, rounded up to whole 64-byte lines; -1 if that
 * does not fit in a size_t (or the element count in an int64_t). */
static int data_bytes(struct ein_cli_tensor *t, int ndim, size_t *bytes)
{
	int d;

	t->n = 1;
	for (d = 0; d < ndim; ++d)
		if (t->shape[d] < 0 ||
		    __builtin_mul_overflow(t->n, t->shape[d], &t->n))
			return -1;
	if (__builtin_mul_overflow((size_t) t->n, t->elem_size, bytes) ||
	    *bytes > SIZE_MAX - 63 || *bytes > PTRDIFF_MAX)
		return -1;
	*bytes = (*bytes + 63) / 64 * 64;
	return 0;
}

int ein_cli_tensor_alloc(struct ein_cli_tensor *t, ein_kernel *k, int pos,
	const int64_t *sizes)
{
	int ndim = ein_kernel_tensor_ndim(k, pos);
	size_t bytes;

	memset(t, 0, sizeof(*t));
	if (ndim < 0 || ndim > 16 ||
	    ein_kernel_tensor_dtype(k, pos, &t->dl.dtype) != EIN_OK)
		return -1;
	t->type = ein_kernel_get_tensor_type(k, pos);
	t->elem_size = t->dl.dtype.bits / 8;
	if (ein_kernel_tensor_shape(k, pos, sizes, ein_kernel_n_size(k),
			t->shape) != EIN_OK)
		return -1;
	if (data_bytes(t, ndim, &bytes) < 0)
		return alloc_failed(k, pos, "its size in bytes overflows");
	t->dl.ndim = ndim;
	t->dl.shape = t->shape;
	t->dl.device.device_type = kDLCPU;
	t->dl.data = aligned_alloc(64, bytes ? bytes : 64);
	if (!t->dl.data) {
		char why[64];

		snprintf(why, sizeof(why), "out of memory (%zu bytes)", bytes);
		return alloc_failed(k, pos, why);
	}
	memset(t->dl.data, 0, bytes);
	return 0;
}

void ein_cli_tensor_free(struct ein_cli_tensor *t)
{
	free(t->dl.data);
	t->dl.data = NULL;
}

int ein_cli_tensor_is_integer(const struct ein_cli_tensor *t)
{
	return t->dl.dtype.code != kDLFloat;
}

/* Element "i" of "t" as a double. */
static double get(const struct ein_cli_tensor *t, int64_t i)
{
	const void *p = t->dl.data;

	if (t->dl.dtype.code == kDLFloat)
		return t->elem_size == 8 ? ((const double *) p)[i] :
			((const float *) p)[i];
	if (t->dl.dtype.code == kDLUInt)
		return ((const uint8_t *) p)[i];
	return t->elem_size == 1 ? ((const int8_t *) p)[i] :
		((const int32_t *) p)[i];
}

/* Store "v", representable in t's type, as element "i" of "t". */
static void set(struct ein_cli_tensor *t, int64_t i, double v)
{
	void *p = t->dl.data;

	if (t->dl.dtype.code == kDLFloat && t->elem_size == 8)
		((double *) p)[i] = v;
	else if (t->dl.dtype.code == kDLFloat)
		((float *) p)[i] = (float) v;
	else if (t->dl.dtype.code == kDLUInt)
		((uint8_t *) p)[i] = (uint8_t) v;
	else if (t->elem_size == 1)
		((int8_t *) p)[i] = (int8_t) v;
	else
		((int32_t *) p)[i] = (int32_t) v;
}

void ein_cli_tensor_randomize(struct ein_cli_tensor *t, uint64_t *seed)
{
	int64_t i, lo = -8, span = 16;

	if (!strcmp(t->type, "bool"))
		lo = 0, span = 2;
	else if (!strcmp(t->type, "uint8"))
		lo = 0;
	else if (!strcmp(t->type, "int32"))
		lo = -64, span = 128;
	for (i = 0; i < t->n; ++i) {
		uint64_t r = ein_rng_next(seed);

		if (ein_cli_tensor_is_integer(t))
			set(t, i, (double) (lo + (int64_t) (r % span)));
		else
			set(t, i, (r >> 11) * 0x1p-53 * 2 - 1.0);
	}
}

void ein_cli_tensor_randomize_range(struct ein_cli_tensor *t, uint64_t *seed,
	double lo, double hi)
{
	enum ein_cli_value_kind kind = ein_cli_tensor_is_integer(t) ?
		EIN_CLI_VALUE_INT : t->elem_size == 8 ? EIN_CLI_VALUE_F64 :
		EIN_CLI_VALUE_F32;
	int64_t i;

	for (i = 0; i < t->n; ++i) {
		double u = (ein_rng_next(seed) >> 11) * 0x1p-53;

		set(t, i, ein_cli_value_in_range(u, lo, hi, kind));
	}
}

void ein_cli_tensor_copy(struct ein_cli_tensor *dst,
	const struct ein_cli_tensor *src)
{
	memcpy(dst->dl.data, src->dl.data, src->n * src->elem_size);
}

void ein_cli_tensor_compare(const struct ein_cli_tensor *a,
	const struct ein_cli_tensor *b, double *max_err, double *max_ref)
{
	int64_t i;

	*max_err = 0;
	*max_ref = 0;
	for (i = 0; i < a->n; ++i) {
		double x = get(a, i), y = get(b, i);
		double err = fabs(x - y);

		if (!(err <= *max_err))
			*max_err = err;
		if (fabs(y) > *max_ref)
			*max_ref = fabs(y);
	}
}

double ein_cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

double ein_cli_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), &cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The names of a kernel's or a definition's sizes. */
struct size_names {
	int n;
	const char *const *name;
};

/* The position of size "name" (of length len) in "sn", -1 if none. */
static int find_size(const struct size_names *sn, const char *name,
	size_t len)
{
	int i;

	for (i = 0; i < sn->n; ++i)
		if (strlen(sn->name[i]) == len &&
		    !strncmp(sn->name[i], name, len))
			return i;
	return -1;
}

static void print_size_names(const struct size_names *sn)
{
	int i;

	for (i = 0; i < sn->n; ++i) {
		fprintf(stderr, "%s", i ? ", " : "");
		ein_cli_print_name(stderr, sn->name[i]);
	}
	fprintf(stderr, "\n");
}

/* The values "spec" gives the sizes "sn", into sizes[]. */
static int parse_sizes(const char *spec, const struct size_names *sn,
	int64_t *sizes)
{
	const char *p = spec ? spec : "";
	int i, n = sn->n;

	for (i = 0; i < n; ++i)
		sizes[i] = -1;
	while (*p) {
		const char *eq = strchr(p, '=');
		char *value;
		size_t len;
		int pos = eq ? find_size(sn, p, eq - p) : -1;

		if (pos < 0) {
			fprintf(stderr, "ein: error: bad size '");
			len = strcspn(p, ",");
			ein_cli_print_quoted(stderr, p, len > 40 ? 40 : len);
			fprintf(stderr, "%s' in --sizes; ", len > 40 ? "..." :
				"");
			if (n == 0) {
				fprintf(stderr, "the kernel has no sizes\n");
				return -1;
			}
			fprintf(stderr, "the kernel's sizes are: ");
			return print_size_names(sn), -1;
		}
		len = strcspn(eq + 1, ",");
		value = strndup(eq + 1, len);
		if (!value || ein_cli_parse_int("ein", "a size", value, 1,
				EIN_CLI_MAX_SIZE, &sizes[pos]) < 0)
			return (free(value), -1);
		free(value);
		p = eq[1 + len] ? eq + 2 + len : eq + 1 + len;
	}
	for (i = 0; i < n; ++i)
		if (sizes[i] < 0) {
			fprintf(stderr, "ein: error: --sizes gives no value "
				"for ");
			ein_cli_print_name(stderr, sn->name[i]);
			fprintf(stderr, "; the kernel's sizes are: ");
			return print_size_names(sn), -1;
		}
	return 0;
}

int ein_cli_parse_sizes(const char *spec, ein_kernel *k, int64_t *sizes)
{
	int i, n = ein_kernel_n_size(k);
	const char *name[n + 1];
	struct size_names sn = { n, name };

	for (i = 0; i < n; ++i)
		name[i] = ein_kernel_get_size_name(k, i);
	return parse_sizes(spec, &sn, sizes);
}

int ein_cli_check_sizes(const char *spec, ein_program *prog, const char *def)
{
	int i, n = ein_program_n_size(prog, def);
	const char *name[n > 0 ? n : 1];
	int64_t sizes[n > 0 ? n : 1];
	struct size_names sn = { n, name };

	if (n < 0)
		return 0;
	for (i = 0; i < n; ++i)
		name[i] = ein_program_get_size_name(prog, def, i);
	return parse_sizes(spec, &sn, sizes);
}

/* Add the sizes of definition "def" of "prog" not yet in "sn" (room for
 * "max" names). */
static void add_def_sizes(struct size_names *sn, const char **name, int max,
	ein_program *prog, const char *def)
{
	int i, n = ein_program_n_size(prog, def);

	for (i = 0; i < n && sn->n < max; ++i) {
		const char *s = ein_program_get_size_name(prog, def, i);

		if (s && find_size(sn, s, strlen(s)) < 0)
			name[sn->n++] = s;
	}
}

int ein_cli_check_size_names(const char *spec, ein_program *prog,
	int n_def, const char *const *def)
{
	int i, max = 0, nd = n_def ? n_def : ein_program_n_def(prog);
	const char *p = spec ? spec : "";

	for (i = 0; i < nd; ++i) {
		int n = ein_program_n_size(prog, n_def ? def[i] :
			ein_program_get_def_name(prog, i));

		if (n < 0)
			return 0;
		max += n;
	}
	{
		const char *name[max + 1];
		struct size_names sn = { 0, name };

		for (i = 0; i < nd; ++i)
			add_def_sizes(&sn, name, max, prog, n_def ? def[i] :
				ein_program_get_def_name(prog, i));
		for (; *p; p += strcspn(p, ","), p += *p == ',') {
			size_t len = strcspn(p, ",");
			const char *eq = memchr(p, '=', len);

			if (eq && find_size(&sn, p, eq - p) >= 0)
				continue;
			fprintf(stderr, "ein: error: bad size '");
			ein_cli_print_quoted(stderr, p, len > 40 ? 40 : len);
			fprintf(stderr, "%s' in --sizes; ", len > 40 ? "..." :
				"");
			if (sn.n == 0) {
				fprintf(stderr, "the kernel has no sizes\n");
				return -1;
			}
			fprintf(stderr, "the kernel's sizes are: ");
			return print_size_names(&sn), -1;
		}
	}
	return 0;
}
