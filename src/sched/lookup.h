/*
 * lookup.h: target names, and finding the schedule file of a definition.
 *
 * Schedules are kept per class of machine, in D/<target>/<def>.sched and
 * its size variants D/<target>/<def>.*.sched ("matmul.1024.sched"), where
 * D is one of the schedule directories (docs/schedules.md):
 *
 *   1. an explicit file (ein --schedule FILE) wins;
 *   2. else each directory of $EIN_SCHEDULE_PATH (colon-separated), in
 *      order;
 *   3. then the installed directory, $(pkgdatadir)/schedules.
 *
 * The first directory with a candidate decides; among its candidates the
 * file tuned for the sizes nearest to the actual ones is chosen.
 */
#ifndef EIN_SCHED_LOOKUP_H
#define EIN_SCHED_LOOKUP_H

#include <isl/ctx.h>
#include "ein.h"

/* The class of machine that "triple", "cpu" and "features" (LLVM's
 * "+avx2,+fma,-avx512f,...") describe, as a short name:
 *
 *   x86_64 with avx512f     x86_64-avx512
 *   x86_64 with avx2 + fma  x86_64-avx2
 *   other x86_64            x86_64-sse
 *   aarch64 (arm64) + sve   aarch64-sve
 *   other aarch64           aarch64-neon
 *   anything else           <arch>-generic  (arch: the triple's first part)
 *
 * "cpu" is not needed yet (the features decide) and may be NULL, as may
 * "features".  The caller frees the result; NULL when out of memory. */
__isl_give char *ein_sched_target_name(const char *triple, const char *cpu,
	const char *features);

/* The vector unit of the machines of class "target" (the names above;
 * NULL or another name: the baseline's): the width of a vector register
 * in bytes (64 on x86_64-avx512, 32 on x86_64-avx2, 16 elsewhere) and
 * the number of vector registers (32 on x86_64-avx512 and aarch64, 16
 * elsewhere: what the register tiles are sized for).  The automatic scheduler, the
 * tuner's seeds and the cost model's features all take it from here. */
struct ein_sched_vector_unit {
	int bytes;
	int registers;
};

struct ein_sched_vector_unit ein_sched_target_vectors(const char *target);

/* Find the schedule of definition "def" on "target" for the sizes
 * size_names[i] = size_values[i] (n_size of them; 0 for a compile with
 * symbolic sizes).
 *
 * A candidate is a file whose "def" and "target" headers, where present,
 * are "def" and "target".  Among the candidates of the first directory
 * that has any, the choice is: a file whose "sizes" header equals the
 * sizes; else the least sum over the sizes of |log2(file / actual)|, a
 * size missing from the file or a file size not among the actual ones
 * counting 1; a file without "sizes" counts 1 per size (as if every size
 * were off by a factor of 2); ties go to a file without "sizes", then to
 * the first by name.  Without sizes,
 * the first file without a "sizes" header, else the first by name.
 *
 * On success returns 0 and sets *chosen_path to the path of the file (NULL
 * if none was found, which is not an error) and *why to a one-line
 * explanation of the choice or of where it looked; the caller frees both.
 * Returns -1 with an error on ctx if the explicit file cannot be read or
 * is for another definition, or if a candidate file is malformed. */
int ein_sched_lookup(ein_ctx *ctx, const char *explicit_path,
	const char *target, const char *def, int n_size,
	const char *const *size_names, const long *size_values,
	__isl_give char **chosen_path, __isl_give char **why);

#endif
