/*
 * testutil.c: helpers shared by the Check suites.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "testutil.h"
#include "rng.h"

void tt_alloc(struct tt *t, int ndim, const int64_t *shape)
{
	int d;

	memset(t, 0, sizeof(*t));
	t->n = 1;
	for (d = 0; d < ndim; ++d) {
		t->shape[d] = shape[d];
		t->n *= shape[d];
	}
	t->f = calloc(t->n + 1, sizeof(float));
	ck_assert_ptr_nonnull(t->f);
	t->dl.data = t->f;
	t->dl.ndim = ndim;
	t->dl.shape = t->shape;
	t->dl.device.device_type = kDLCPU;
	t->dl.dtype.code = kDLFloat;
	t->dl.dtype.bits = 32;
	t->dl.dtype.lanes = 1;
}

void tt_randomize(struct tt *t, uint64_t seed)
{
	int64_t i;

	for (i = 0; i < t->n; ++i)
		t->f[i] = ein_rng_signed_unit(&seed);
}

void tt_free(struct tt *t)
{
	free(t->f);
	t->f = NULL;
}

void anyt_alloc(struct anyt *t, uint8_t code, uint8_t bits, int ndim,
	const int64_t *shape)
{
	int d;

	memset(t, 0, sizeof(*t));
	t->n = 1;
	for (d = 0; d < ndim; ++d) {
		t->shape[d] = shape[d];
		t->n *= shape[d];
	}
	t->dl.data = calloc(t->n + 1, bits / 8);
	ck_assert_ptr_nonnull(t->dl.data);
	t->dl.ndim = ndim;
	t->dl.shape = t->shape;
	t->dl.device.device_type = kDLCPU;
	t->dl.dtype.code = code;
	t->dl.dtype.bits = bits;
	t->dl.dtype.lanes = 1;
}

ein_kernel *tt_compile(ein_ctx *ctx, ein_program **prog, const char *source,
	const char *def)
{
	ein_kernel *k;

	*prog = ein_program_parse(ctx, source, "test.ein");
	ck_assert_msg(*prog != NULL, "parse failed: %s",
		ein_ctx_last_error(ctx));
	k = ein_kernel_compile(*prog, def);
	ck_assert_msg(k != NULL, "compile failed: %s",
		ein_ctx_last_error(ctx));
	return k;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

int tt_list_files(const char *dir, const char *suffix, char **files, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n_suffix = strlen(suffix);
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL && n < max) {
		size_t len = strlen(e->d_name);
		char *path;

		if (len <= n_suffix || strcmp(e->d_name + len - n_suffix,
				suffix))
			continue;
		path = malloc(strlen(dir) + len + 2);
		if (!path)
			break;
		sprintf(path, "%s/%s", dir, e->d_name);
		files[n++] = path;
	}
	closedir(d);
	qsort(files, n, sizeof(char *), &cmp_str);
	return n;
}

char *tt_read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(n + 1)) != NULL) {
		if (fread(buf, 1, n, f) != (size_t) n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}


int tt_quick(void)
{
	const char *q = getenv("EIN_TEST_QUICK");

	return q && *q && strcmp(q, "0") != 0;
}
