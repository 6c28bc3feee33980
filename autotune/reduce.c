/*
 * reduce.c: a smaller problem of the same shape (reduce.h).
 */
#include <stdlib.h>
#include <string.h>
#include "autotune/reduce.h"
#include "autotune/space.h"

/* The statement that does the most work: the largest product of loop
 * extents among the updates (an initialisation is never the main one). */
static int main_stmt(const struct ein_space *sp)
{
	int s, v, best = -1;
	double most = 0;

	for (s = 0; s < sp->n_stmt; ++s) {
		double work = 1;

		if (sp->stmt[s].is_init)
			continue;
		for (v = 0; v < sp->stmt[s].n_loop; ++v)
			work *= sp->stmt[s].extent[v];
		if (best < 0 || work > most)
			best = s, most = work;
	}
	return best;
}

/* The loop of "st" that indexes the last (contiguous) dimension of the
 * tensor it writes, -1 if none. */
static int innermost_output_loop(const struct ein_space_stmt *st)
{
	const struct ein_space_access *w = &st->access[0];
	int v;

	if (st->n_access == 0 || !w->is_write || w->n_dim == 0)
		return -1;
	for (v = st->n_loop - 1; v >= 0; --v)
		if (w->coef[w->n_dim - 1][v])
			return v;
	return -1;
}

/* The loop of statement "s" whose extent size "i" alone sets (found by
 * halving that size and seeing which extents change), if it may be
 * halved (head comment); -1 if none.  *err is set on a failure. */
static int loop_of_size(ein_program *prog, const char *def, ein_kernel *k,
	const int64_t *sizes, int i, int s, const struct ein_space *full,
	struct ein_space *half, int *err)
{
	const struct ein_space_stmt *st = &full->stmt[s];
	int64_t h[16];
	int v, loop = -1, n_changed = 0;

	if (sizes[i] < 2 * EIN_REDUCE_MIN_EXTENT)
		return -1;
	memcpy(h, sizes, sizeof(h));
	h[i] = sizes[i] / 2;
	if (ein_space_init(half, prog, def, k, h, NULL) < 0) {
		*err = 1;
		return -1;
	}
	if (half->n_stmt != full->n_stmt)
		return -1;
	for (v = 0; v < st->n_loop; ++v)
		if (half->stmt[s].extent[v] != st->extent[v])
			loop = v, ++n_changed;
	if (n_changed != 1 || st->is_reduction[loop] ||
	    loop == innermost_output_loop(st))
		return -1;
	return loop;
}

double ein_reduce_sizes(ein_program *prog, const char *def, ein_kernel *k,
	const int64_t *sizes, int n_size, double factor, int64_t *out)
{
	struct ein_space *sp = malloc(2 * sizeof(*sp));
	int order[16], loop[16], n = 0, i, j, s, err = 0, halved;
	double full;

	memcpy(out, sizes, n_size * sizeof(*out));
	if (!sp || n_size > 16 || ein_space_init(sp, prog, def, k, sizes, NULL) < 0)
		return free(sp), -1;
	s = main_stmt(sp);
	for (i = 0; s >= 0 && i < n_size && !err; ++i)
		if ((loop[i] = loop_of_size(prog, def, k, sizes, i, s, sp,
				sp + 1, &err)) >= 0)
			order[n++] = i;
	free(sp);
	if (err)
		return -1;
	/* Outermost first: by the loop each size sets. */
	for (i = 1; i < n; ++i)
		for (j = i; j > 0 && loop[order[j]] < loop[order[j - 1]]; --j) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	full = ein_space_work(k, sizes, n_size, NULL);
	do {
		halved = 0;
		for (i = 0; i < n; ++i) {
			if (full / ein_space_work(k, out, n_size, NULL) >= factor)
				break;
			if (out[order[i]] < 2 * EIN_REDUCE_MIN_EXTENT)
				continue;
			out[order[i]] /= 2;
			halved = 1;
		}
	} while (halved && full / ein_space_work(k, out, n_size, NULL) < factor);
	return full / ein_space_work(k, out, n_size, NULL);
}
