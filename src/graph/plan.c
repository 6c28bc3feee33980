/*
 * plan.c: offsets in one arena for buffers with lifetimes (memory
 * planning by liveness).
 *
 * Two buffers may share bytes when no kernel sees both alive: their
 * lifetimes [first, last] (kernel indices, inclusive: a kernel's inputs
 * and outputs are alive together while it runs) do not meet.  The planner
 * is the greedy best fit of TFLite's arena planner and of Glow: buffers by
 * decreasing size; each goes into the smallest gap, between the buffers
 * already placed whose lifetimes meet its own, that holds it, or above
 * the highest of them.  Not optimal (the problem is NP-hard), but the
 * largest buffers, which decide the peak, are placed first.
 */
#include <stdlib.h>
#include "graph/ein_graph.h"

/* Round "v" up to a multiple of "align". */
static int64_t round_up(int64_t v, int64_t align)
{
	return (v + align - 1) / align * align;
}

/* Do the lifetimes of "a" and "b" meet? */
static int meet(const struct ein_graph_buf *a, const struct ein_graph_buf *b)
{
	return a->first <= b->last && b->first <= a->last;
}

/* Sort order: larger first, then earlier, then by position (stable). */
static int by_size(const void *pa, const void *pb, void *arg)
{
	const struct ein_graph_buf *buf = arg;
	int a = *(const int *) pa, b = *(const int *) pb;

	if (buf[a].bytes != buf[b].bytes)
		return buf[a].bytes > buf[b].bytes ? -1 : 1;
	if (buf[a].first != buf[b].first)
		return buf[a].first < buf[b].first ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Sort a[0 .. n-1] by "cmp" (insertion: a model has few buffers, and
 * qsort takes no argument for the comparison in ISO C). */
static void sort(int *a, int n, int (*cmp)(const void *, const void *,
	void *), void *arg)
{
	int i, j;

	for (i = 1; i < n; ++i) {
		int v = a[i];

		for (j = i; j > 0 && cmp(&a[j - 1], &v, arg) > 0; --j)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* Sort order of placed buffers by offset. */
static int by_offset(const void *pa, const void *pb, void *arg)
{
	const struct ein_graph_buf *buf = arg;
	int a = *(const int *) pa, b = *(const int *) pb;

	if (buf[a].offset != buf[b].offset)
		return buf[a].offset < buf[b].offset ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The offset for buf[i] among the placed buffers meeting it, live[0 ..
 * n-1] sorted by offset: the start of the smallest gap that holds it,
 * else the end of the highest. */
static int64_t best_fit(const struct ein_graph_buf *buf, int i,
	const int *live, int n, int64_t align)
{
	int64_t end = 0, best = -1, best_gap = -1;
	int j;

	for (j = 0; j < n; ++j) {
		const struct ein_graph_buf *b = &buf[live[j]];
		int64_t gap = b->offset - end;

		if (gap >= buf[i].bytes && (best < 0 || gap < best_gap)) {
			best = end;
			best_gap = gap;
		}
		if (round_up(b->offset + b->bytes, align) > end)
			end = round_up(b->offset + b->bytes, align);
	}
	return best >= 0 ? best : end;
}

int64_t ein_graph_plan(struct ein_graph_buf *buf, int n, int64_t align)
{
	int *order = malloc((n + 1) * sizeof(*order));
	int *placed = malloc((n + 1) * sizeof(*placed));
	int *live = malloc((n + 1) * sizeof(*live));
	int i, j, n_placed = 0, n_live;
	int64_t peak = 0;

	if (!order || !placed || !live)
		return (free(order), free(placed), free(live), -1);
	for (i = 0; i < n; ++i)
		order[i] = i;
	sort(order, n, &by_size, buf);
	for (i = 0; i < n; ++i) {
		int b = order[i];

		for (j = n_live = 0; j < n_placed; ++j)
			if (meet(&buf[placed[j]], &buf[b]))
				live[n_live++] = placed[j];
		sort(live, n_live, &by_offset, buf);
		buf[b].offset = best_fit(buf, b, live, n_live, align);
		placed[n_placed++] = b;
		if (buf[b].offset + buf[b].bytes > peak)
			peak = buf[b].offset + buf[b].bytes;
	}
	free(order);
	free(placed);
	free(live);
	return peak;
}
