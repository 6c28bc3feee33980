/*
 * count.c: counting the integer points of a set with known sizes.
 *
 * isl 0.25 has no isl_set_card (barvinok does), and visiting the points
 * takes as long as the kernel runs, or forever for a literal extent of
 * 2^62.  So the count goes by slices along the first dimension:
 *
 *	#S = sum over x in [lo, hi] of f(x),  f(x) = #(S with dim 0 = x)
 *
 * where, for each convex piece of S (isl_set_make_disjoint), f is in the
 * usual cases (a triangle, a trapezoid of a convolution with padding) a
 * polynomial of degree at most n - 1 (n dimensions) between the first
 * coordinates of the piece's vertices.  On such a stretch [a, b] the
 * slices a, ..., a + n - 1 give its forward differences, and so f at any
 * x and the sum over the stretch in closed form (Newton's formula); three
 * more slices, right after the first ones, halfway and at b, confirm the
 * polynomial, or else the stretch is halved (strides make f periodic;
 * a piece with existential variables has no vertices from isl).  Each f(x)
 * is itself counted this way, one dimension less.  The confirmation is a
 * check, not a proof: check_count compares the result with isl's
 * enumeration on the shapes ein's domains take.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <isl/ilp.h>
#include <isl/val.h>
#include <isl/aff.h>
#include <isl/vertices.h>
#include <isl/constraint.h>
#include "poly/count.h"
#include "poly/specialize.h"

/* The state of one count.
 * budget: the slices still to examine before estimating;
 * exact: cleared once anything was estimated;
 * error: set on an unbounded set or an isl error. */
struct count {
	long budget;
	int exact;
	int error;
	double sum;
};

static double count_set(struct count *c, __isl_take isl_set *set);

/* The number of points of "set" (kept) with its first dimension at "x". */
static double slice(struct count *c, __isl_keep isl_set *set, int64_t x)
{
	isl_set *s = ein_specialize_fix(isl_set_copy(set), isl_dim_set, 0, x);

	c->budget--;
	return count_set(c, isl_set_project_out(s, isl_dim_set, 0, 1));
}

/* The bounds of dimension "pos" of "set" (kept, not empty) into *lo, *hi;
 * -1 if it is unbounded. */
static int dim_bounds(__isl_keep isl_set *set, int pos, int64_t *lo,
	int64_t *hi)
{
	isl_val *min = isl_set_dim_min_val(isl_set_copy(set), pos);
	isl_val *max = isl_set_dim_max_val(isl_set_copy(set), pos);
	int ok = min && max && isl_val_is_int(min) && isl_val_is_int(max);

	if (ok) {
		*lo = isl_val_get_num_si(min);
		*hi = isl_val_get_num_si(max);
	}
	isl_val_free(min);
	isl_val_free(max);
	return ok ? 0 : -1;
}

/* If "set" (kept, not empty) is the box of its bounds, its number of
 * points in *n; returns 1 then, 0 if it is not a box, -1 on error. */
static int box_count(__isl_keep isl_set *set, double *n)
{
	isl_size dim = isl_set_dim(set, isl_dim_set);
	isl_set *box = isl_set_universe(isl_set_get_space(set));
	isl_bool equal;
	int64_t lo, hi;
	int i;

	*n = 1;
	for (i = 0; i < dim; ++i) {
		if (dim_bounds(set, i, &lo, &hi) < 0)
			return isl_set_free(box), -1;
		box = isl_set_lower_bound_val(box, isl_dim_set, i,
			isl_val_int_from_si(isl_set_get_ctx(set), lo));
		box = isl_set_upper_bound_val(box, isl_dim_set, i,
			isl_val_int_from_si(isl_set_get_ctx(set), hi));
		*n *= (double) (hi - lo + 1);
	}
	equal = isl_set_is_equal(set, box);
	isl_set_free(box);
	return dim < 0 || equal < 0 ? -1 : equal;
}

/* Binomial coefficient C(t, j) as a double, for t >= 0. */
static double binomial(double t, int j)
{
	double r = 1;
	int i;

	for (i = 0; i < j; ++i)
		r = r * (t - i) / (i + 1);
	return r;
}

/* f(a + t) from the forward differences diff[0 .. m] of f at a. */
static double newton_value(const double *diff, int m, double t)
{
	double v = 0;
	int j;

	for (j = 0; j <= m; ++j)
		v += binomial(t, j) * diff[j];
	return v;
}

/* f(a) + ... + f(a + len - 1) from the forward differences at a. */
static double newton_sum(const double *diff, int m, double len)
{
	double v = 0;
	int j;

	for (j = 0; j <= m; ++j)
		v += binomial(len, j + 1) * diff[j];
	return v;
}

/* Do the predicted and counted values agree, up to the rounding of
 * doubles for counts beyond 2^53? */
static int agree(double predicted, double counted)
{
	return fabs(predicted - counted) <= 0.5 + 1e-12 * fabs(counted);
}

static double sum_range(struct count *c, __isl_keep isl_set *set,
	int64_t a, int64_t b, int m);

/* f(x0) + ... + f(x1) for f linear between f(x0) = y0 and f(x1) = y1. */
static double trapezoid(int64_t x0, double y0, int64_t x1, double y1)
{
	return (y0 + y1) / 2 * (double) (x1 - x0 + 1);
}

/* The sum over [a, b] when the polynomial through the first slices is
 * not confirmed by f(x[i]) = y[i] (x[0] = a < x[1] < x[2] < x[3] = b):
 * split in two while slices are left, else estimate by the trapezoids
 * through those slices. */
static double split_range(struct count *c, __isl_keep isl_set *set,
	int m, const int64_t x[4], const double y[4])
{
	int64_t mid = x[0] + (x[3] - x[0]) / 2;

	if (c->budget > 0)
		return sum_range(c, set, x[0], mid, m) +
			sum_range(c, set, mid + 1, x[3], m);
	c->exact = 0;
	return trapezoid(x[0], y[0], x[1], y[1]) +
		trapezoid(x[1], y[1], x[2], y[2]) +
		trapezoid(x[2], y[2], x[3], y[3]) - y[1] - y[2];
}

/* The number of points of "set" (kept) whose first dimension lies in
 * [a, b], where a slice has a polynomial count of degree at most m
 * (unless [a, b] holds a breakpoint that no vertex gave, or the count is
 * periodic).  The polynomial must predict the slices right after the
 * first ones, halfway to b and at b. */
static double sum_range(struct count *c, __isl_keep isl_set *set,
	int64_t a, int64_t b, int m)
{
	double diff[m + 1], y[4], sum = 0;
	int64_t len = b - a + 1, x[4], t;
	int i, j, ok = 1;

	if (len <= m + 3) {
		for (t = a; t <= b; ++t)
			sum += slice(c, set, t);
		return sum;
	}
	y[0] = slice(c, set, a);
	diff[0] = y[0];
	for (i = 1; i <= m; ++i)
		diff[i] = slice(c, set, a + i);
	for (j = 1; j <= m; ++j)
		for (i = m; i >= j; --i)
			diff[i] -= diff[i - 1];
	x[0] = a;
	x[1] = a + m + 1;
	x[2] = x[1] + (b - x[1]) / 2;
	x[3] = b;
	for (i = 1; i < 4; ++i) {
		y[i] = slice(c, set, x[i]);
		ok = ok && agree(newton_value(diff, m, x[i] - a), y[i]);
	}
	if (ok)
		return newton_sum(diff, m, len);
	return split_range(c, set, m, x, y);
}

/* The positions where stretches of slices start, sorted, and the bounds.
 * x: n of them (room for size); lo, hi: the bounds of the dimension. */
struct cuts {
	int64_t *x;
	int n, size;
	int64_t lo, hi;
};

static void add_cut(struct cuts *cuts, int64_t x)
{
	if (x > cuts->lo && x <= cuts->hi && cuts->n < cuts->size)
		cuts->x[cuts->n++] = x;
}

/* The first coordinate of "vertex" (taken), v, cuts the slices before
 * floor(v), at floor(v) and after it. */
static isl_stat add_vertex(__isl_take isl_vertex *vertex, void *user)
{
	isl_multi_aff *ma = isl_vertex_get_expr(vertex);
	isl_aff *aff = isl_multi_aff_get_at(ma, 0);
	isl_val *v = isl_val_floor(isl_aff_get_constant_val(aff));
	int ok = v && isl_val_is_int(v);

	if (ok) {
		add_cut(user, isl_val_get_num_si(v));
		add_cut(user, isl_val_get_num_si(v) + 1);
	}
	isl_val_free(v);
	isl_aff_free(aff);
	isl_multi_aff_free(ma);
	isl_vertex_free(vertex);
	return ok ? isl_stat_ok : isl_stat_error;
}

static int cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

/* Cut [lo, hi] at the first coordinates of the vertices of "bset" (kept),
 * where the polynomial that counts a slice may change; no cuts when it
 * has existentially quantified variables (isl computes no vertices). */
static void vertex_cuts(__isl_keep isl_basic_set *bset, struct cuts *cuts)
{
	isl_vertices *vertices;
	isl_size n_div = isl_basic_set_dim(bset, isl_dim_div);

	if (n_div != 0)
		return;
	vertices = isl_basic_set_compute_vertices(bset);
	cuts->size = vertices ? 2 * isl_vertices_get_n_vertices(vertices) : 0;
	cuts->x = cuts->size > 0 ? malloc(cuts->size * sizeof(int64_t)) : NULL;
	if (!cuts->x || isl_vertices_foreach_vertex(vertices, &add_vertex,
			cuts) < 0)
		cuts->n = 0;
	isl_vertices_free(vertices);
	qsort(cuts->x, cuts->n, sizeof(int64_t), &cmp_int64);
}

/* The representative of "i" in the union-find forest "up". */
static int root(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

struct coupling {
	int n;
	int *up;
};

/* Join the dimensions that constraint "con" involves. */
static isl_stat couple(__isl_take isl_constraint *con, void *user)
{
	struct coupling *cp = user;
	int i, first = -1;

	for (i = 0; i < cp->n; ++i) {
		isl_val *v = isl_constraint_get_coefficient_val(con,
			isl_dim_set, i);
		isl_bool zero = isl_val_is_zero(v);

		isl_val_free(v);
		if (zero < 0)
			return isl_constraint_free(con), isl_stat_error;
		if (zero)
			continue;
		if (first < 0)
			first = i;
		else
			cp->up[root(cp->up, i)] = root(cp->up, first);
	}
	isl_constraint_free(con);
	return isl_stat_ok;
}

/* If "bset" (kept, "dim" dimensions, no existential variables) is the
 * product of sets of fewer dimensions (no constraint joins two of them:
 * a convolution's batch, channels and each image dimension with its
 * kernel offset), its number of points into *n as the product of theirs,
 * each counted on its own: a few small counts instead of the vertices of
 * the whole.  The count is the same.  Returns 1 then, 0 if it is no
 * product, -1 on error. */
static int product_count(struct count *c, __isl_keep isl_basic_set *bset,
	int dim, double *n)
{
	isl_size n_div = isl_basic_set_dim(bset, isl_dim_div);
	struct coupling cp = { dim, NULL };
	int i, j, n_comp = 0, r = 1;

	if (n_div != 0 || dim < 2)
		return n_div < 0 ? -1 : 0;
	cp.up = malloc(dim * sizeof(*cp.up));
	if (!cp.up)
		return -1;
	for (i = 0; i < dim; ++i)
		cp.up[i] = i;
	if (isl_basic_set_foreach_constraint(bset, &couple, &cp) < 0)
		r = -1;
	for (i = 0; r == 1 && i < dim; ++i)
		n_comp += root(cp.up, i) == i;
	if (r == 1 && n_comp < 2)
		r = 0;
	*n = 1;
	for (i = 0; r == 1 && i < dim; ++i) {
		isl_basic_set *part;
		double m;

		if (root(cp.up, i) != i)
			continue;
		part = isl_basic_set_copy(bset);
		for (j = dim - 1; j >= 0; --j)
			if (root(cp.up, j) != i)
				part = isl_basic_set_project_out(part,
					isl_dim_set, j, 1);
		m = count_set(c, isl_set_from_basic_set(part));
		if (m < 0)
			r = -1;
		*n *= m;
	}
	free(cp.up);
	return r;
}

/* The number of points of "bset" (taken), as a product of its factors,
 * or else stretch by stretch between the cuts of its vertices. */
static isl_stat count_basic(__isl_take isl_basic_set *bset, void *user)
{
	struct count *c = user;
	struct cuts cuts = { NULL, 0, 0, 0, 0 };
	isl_set *set;
	isl_size dim = isl_basic_set_dim(bset, isl_dim_set);
	int64_t from;
	double part = 0, factors;
	int i, product;

	product = dim < 0 ? -1 : product_count(c, bset, dim, &factors);
	if (product != 0) {
		isl_basic_set_free(bset);
		if (product < 0)
			c->error = 1;
		else
			c->sum += factors;
		return c->error ? isl_stat_error : isl_stat_ok;
	}
	vertex_cuts(bset, &cuts);
	set = isl_set_from_basic_set(bset);
	if (dim < 0 || dim_bounds(set, 0, &cuts.lo, &cuts.hi) < 0) {
		c->error = 1;
	} else {
		from = cuts.lo;
		for (i = 0; i <= cuts.n; ++i) {
			int64_t to = i < cuts.n ? cuts.x[i] - 1 : cuts.hi;

			if (to >= from && to <= cuts.hi && from >= cuts.lo)
				part += sum_range(c, set, from, to, dim - 1);
			if (to >= from)
				from = to + 1;
		}
	}
	c->sum += part;
	free(cuts.x);
	isl_set_free(set);
	return c->error ? isl_stat_error : isl_stat_ok;
}

/* The number of points of "set" (taken, no parameters left). */
static double count_set(struct count *c, __isl_take isl_set *set)
{
	isl_bool empty = isl_set_is_empty(set);
	isl_size dim = isl_set_dim(set, isl_dim_set);
	double n = 0, outer = c->sum;
	int box;

	if (empty < 0 || dim < 0 || c->error) {
		c->error = 1;
		return isl_set_free(set), -1;
	}
	if (empty || dim == 0) {
		isl_set_free(set);
		return empty ? 0 : 1;
	}
	box = box_count(set, &n);
	if (box == 0) {
		set = isl_set_make_disjoint(set);
		c->sum = 0;
		if (isl_set_foreach_basic_set(set, &count_basic, c) < 0)
			c->error = 1;
		n = c->sum;
		c->sum = outer;
	} else if (box < 0)
		c->error = 1;
	isl_set_free(set);
	return c->error ? -1 : n;
}

double ein_count_points(__isl_keep isl_set *set, int *exact)
{
	struct count c = { EIN_COUNT_MAX_SLICES, 1, 0, 0 };
	isl_size n_param = isl_set_dim(set, isl_dim_param);
	double n;

	if (n_param < 0)
		return -1;
	n = count_set(&c, isl_set_project_out(isl_set_copy(set),
		isl_dim_param, 0, n_param));
	if (exact)
		*exact = c.exact;
	return c.error ? -1 : n;
}

/* A memo: a hash table of the counts, by text, chained in "next"
 * (positions in "entry", -1 at the end). */
#define MEMO_BUCKETS 256

struct memo_entry {
	char *text;
	double n;
	int exact;
	int next;
};

struct ein_count_memo {
	int head[MEMO_BUCKETS];
	int n, size;
	struct memo_entry *entry;
};

struct ein_count_memo *ein_count_memo_alloc(void)
{
	struct ein_count_memo *memo = calloc(1, sizeof(*memo));
	int i;

	for (i = 0; memo && i < MEMO_BUCKETS; ++i)
		memo->head[i] = -1;
	return memo;
}

void ein_count_memo_free(struct ein_count_memo *memo)
{
	int i;

	if (!memo)
		return;
	for (i = 0; i < memo->n; ++i)
		free(memo->entry[i].text);
	free(memo->entry);
	free(memo);
}

/* FNV-1a of "s", to a bucket. */
static unsigned bucket(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; ++s)
		h = (h ^ (unsigned char) *s) * 16777619u;
	return h % MEMO_BUCKETS;
}

/* Record "text" (taken) with its count in "memo"; on failure the count
 * is only not remembered. */
static void memo_add(struct ein_count_memo *memo, char *text, double n,
	int exact)
{
	unsigned b = bucket(text);

	if (memo->n == memo->size) {
		int size = 2 * memo->size + 16;
		struct memo_entry *e = realloc(memo->entry,
			size * sizeof(*e));

		if (!e) {
			free(text);
			return;
		}
		memo->entry = e;
		memo->size = size;
	}
	memo->entry[memo->n] = (struct memo_entry) { text, n, exact,
		memo->head[b] };
	memo->head[b] = memo->n++;
}

double ein_count_points_memo(struct ein_count_memo *memo,
	__isl_keep isl_set *set, int *exact)
{
	char *text = memo ? isl_set_to_str(set) : NULL;
	double n;
	int k, ok;

	if (!text)
		return ein_count_points(set, exact);
	for (k = memo->head[bucket(text)]; k >= 0; k = memo->entry[k].next)
		if (!strcmp(memo->entry[k].text, text)) {
			free(text);
			if (exact)
				*exact = memo->entry[k].exact;
			return memo->entry[k].n;
		}
	n = ein_count_points(set, &ok);
	if (exact)
		*exact = ok;
	if (n < 0)
		free(text);
	else
		memo_add(memo, text, n, ok);
	return n;
}
