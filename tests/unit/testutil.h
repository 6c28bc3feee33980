/*
 * testutil.h: tensors and kernels for the Check suites.
 */
#ifndef EIN_TESTUTIL_H
#define EIN_TESTUTIL_H

#include <stdint.h>
#include <dlpack/dlpack.h>
#include "ein.h"

/* A float32 tensor owned by a test. */
struct tt {
	DLTensor dl;
	int64_t shape[8];
	int64_t n;
	float *f;
};

/* A zero-filled float32 tensor of the given shape. */
void tt_alloc(struct tt *t, int ndim, const int64_t *shape);
/* Uniform random values in [-1, 1), reproducible from "seed". */
void tt_randomize(struct tt *t, uint64_t seed);
void tt_free(struct tt *t);

/* A tensor of any element type owned by a test (data to free). */
struct anyt {
	DLTensor dl;
	int64_t shape[8];
	int64_t n;
};

/* A zero-filled tensor of DLPack type "code" and "bits" and the given
 * shape. */
void anyt_alloc(struct anyt *t, uint8_t code, uint8_t bits, int ndim,
	const int64_t *shape);

/* Parse "source" and compile its definition "def"; the test fails with
 * the library's message if either step fails. */
ein_kernel *tt_compile(ein_ctx *ctx, ein_program **prog, const char *source,
	const char *def);

/* The paths "dir/NAME" of the files of "dir" whose names end in "suffix",
 * sorted, into files[0 .. max-1] (each to free).  Returns their number,
 * -1 if "dir" cannot be read. */
int tt_list_files(const char *dir, const char *suffix, char **files, int max);

/* The text of "path", NUL-terminated (to free), or NULL. */
char *tt_read_text(const char *path);

/* Is this the sanitizers' run (make check-asan sets EIN_TEST_QUICK; see
 * README.md)?  Tests then leave out what repeats code paths covered
 * elsewhere under the sanitizers. */
int tt_quick(void);

#endif
