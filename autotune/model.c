/*
 * model.c: features of a candidate's loop nest and the ridge regression
 * over them (model.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "autotune/model.h"

/* The statement with the most iterations (the one that decides the
 * speed), preferring updates over initialisations. */
static int main_stmt(const struct ein_space *space)
{
	int s, best = 0, v;
	double most = -1;

	for (s = 0; s < space->n_stmt; ++s) {
		double it = 1;

		for (v = 0; v < space->stmt[s].n_loop; ++v)
			it *= space->stmt[s].extent[v];
		if (space->stmt[s].is_init)
			it *= 0.5;
		if (it > most) {
			most = it;
			best = s;
		}
	}
	return best;
}

/* The span of each loop's index within the innermost "level" loops of
 * plan s: the product of the trips of its parts there. */
static void spans(const struct ein_space *space, const struct ein_cand *c,
	int s, int level, long *span)
{
	const struct ein_cand_stmt *p = &c->s[s];
	int i, v;

	for (v = 0; v < space->stmt[s].n_loop; ++v)
		span[v] = 1;
	for (i = p->n_order - level; i < p->n_order; ++i)
		if (i >= 0)
			span[p->order[i] / 2] *= ein_cand_id_trips(space, c, s,
				p->order[i]);
}

/* The elements access "a" touches when loop v covers span[v] values. */
static double footprint(const struct ein_space_access *a, int n_loop,
	const long *span)
{
	double elems = 1;
	int d, v;

	for (d = 0; d < a->n_dim; ++d) {
		double range = 1;

		for (v = 0; v < n_loop; ++v)
			range += fabs((double) a->coef[d][v]) * (span[v] - 1);
		elems *= range;
	}
	return elems;
}

/* Footprint, cache fit and reuse features of the innermost "level" loops
 * of statement s into f[0 .. 2]. */
static void level_features(const struct ein_space *space,
	const struct ein_cand *c, int s, int level, double *f)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	long span[EIN_SPACE_MAX_LOOP];
	double bytes = 0, elems = 0, iters = 1;
	int a, v;

	spans(space, c, s, level, span);
	for (v = 0; v < ss->n_loop; ++v)
		iters *= span[v];
	for (a = 0; a < ss->n_access; ++a) {
		double e = footprint(&ss->access[a], ss->n_loop, span);

		elems += e;
		bytes += e * ss->access[a].elem_size;
	}
	f[0] = log2(1 + bytes) / 10;
	f[1] = bytes <= space->machine.cache[0] ? 1 :
		bytes <= space->machine.cache[1] ? 0.5 : 0;
	f[2] = log2(1 + iters / (elems > 0 ? elems : 1)) / 4;
}

/* Features of the innermost loop's accesses into f[0 .. 2]: the share
 * contiguous or invariant, the share strided, whether it is a
 * reduction. */
static void inner_features(const struct ein_space *space,
	const struct ein_cand *c, int s, double *f)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	const struct ein_cand_stmt *p = &c->s[s];
	int v = p->order[p->n_order - 1] / 2, a, d, good = 0, strided = 0;

	for (a = 0; a < ss->n_access; ++a) {
		const struct ein_space_access *acc = &ss->access[a];
		int bad = 0;

		for (d = 0; d + 1 < acc->n_dim; ++d)
			bad |= acc->coef[d][v] != 0;
		if (acc->n_dim && abs(acc->coef[acc->n_dim - 1][v]) > 1)
			bad = 1;
		good += !bad;
		strided += bad;
	}
	f[0] = ss->n_access ? (double) good / ss->n_access : 0;
	f[1] = ss->n_access ? (double) strided / ss->n_access : 0;
	f[2] = ss->is_reduction[v];
}

void ein_model_features(const struct ein_space *space,
	const struct ein_cand *c, double *f)
{
	int s = main_stmt(space), level, i, placed = 0;
	const struct ein_cand_stmt *p = &c->s[s];
	int threads = space->machine.n_threads;

	memset(f, 0, EIN_MODEL_N_FEATURE * sizeof(*f));
	f[0] = 1;
	if (space->gen && space->gen->features) {
		space->gen->features(space, c, f);
		return;
	}
	for (level = 1; level <= 4; ++level)
		level_features(space, c, s, level, &f[3 * level - 2]);
	f[13] = p->vec > 0;
	f[14] = log2(1 + p->vec) / 4;
	inner_features(space, c, s, &f[15]);
	f[18] = log2(1 + (p->unroll > 0 ? p->unroll : 0)) / 3;
	if (p->par_id >= 0) {
		long trips = ein_cand_id_trips(space, c, s, p->par_id);

		f[19] = (double) (trips < threads ? trips : threads) / threads;
		for (i = 0; i < p->n_order && p->order[i] != p->par_id; ++i)
			;
		f[20] = (double) i / p->n_order;
	}
	f[21] = log2(1 + ein_cand_id_trips(space, c, s,
		p->order[p->n_order - 1])) / 10;
	for (i = 0; i < c->n_stmt; ++i)
		placed += c->s[i].place != EIN_PLACE_NONE;
	f[22] = (double) placed / c->n_stmt;
	f[23] = p->n_order / 16.0;
	f[24] = p->acc;
	f[25] = p->pack;
}

void ein_model_init(struct ein_model *m)
{
	memset(m, 0, sizeof(*m));
	m->lambda = 1e-2;
}

void ein_model_add(struct ein_model *m, const double *f, double gflops)
{
	if (m->n >= EIN_MODEL_MAX_SAMPLE || !(gflops > 0))
		return;
	memcpy(m->x[m->n], f, sizeof(m->x[0]));
	m->y[m->n++] = log(gflops);
}

/* Solve (L L^T) w = b in place for symmetric positive definite "a"
 * (n x n, overwritten by its Cholesky factor).  Returns -1 if not
 * positive definite. */
static int cholesky_solve(double a[][EIN_MODEL_N_FEATURE], double *b, int n)
{
	int i, j, k;

	for (j = 0; j < n; ++j) {
		double d = a[j][j];

		for (k = 0; k < j; ++k)
			d -= a[j][k] * a[j][k];
		if (!(d > 0))
			return -1;
		a[j][j] = sqrt(d);
		for (i = j + 1; i < n; ++i) {
			double s = a[i][j];

			for (k = 0; k < j; ++k)
				s -= a[i][k] * a[j][k];
			a[i][j] = s / a[j][j];
		}
	}
	for (i = 0; i < n; ++i) {
		for (k = 0; k < i; ++k)
			b[i] -= a[i][k] * b[k];
		b[i] /= a[i][i];
	}
	for (i = n - 1; i >= 0; --i) {
		for (k = i + 1; k < n; ++k)
			b[i] -= a[k][i] * b[k];
		b[i] /= a[i][i];
	}
	return 0;
}

int ein_model_fit(struct ein_model *m)
{
	double a[EIN_MODEL_N_FEATURE][EIN_MODEL_N_FEATURE] = { { 0 } };
	double b[EIN_MODEL_N_FEATURE] = { 0 };
	int i, j, s;

	for (s = 0; s < m->n; ++s)
		for (i = 0; i < EIN_MODEL_N_FEATURE; ++i) {
			b[i] += m->x[s][i] * m->y[s];
			for (j = 0; j < EIN_MODEL_N_FEATURE; ++j)
				a[i][j] += m->x[s][i] * m->x[s][j];
		}
	for (i = 0; i < EIN_MODEL_N_FEATURE; ++i)
		a[i][i] += m->lambda * (m->n + 1);
	if (cholesky_solve(a, b, EIN_MODEL_N_FEATURE) < 0)
		return -1;
	memcpy(m->w, b, sizeof(b));
	m->fitted = 1;
	return 0;
}

double ein_model_predict(const struct ein_model *m, const double *f)
{
	double y = 0;
	int i;

	if (!m->fitted)
		return 0;
	for (i = 0; i < EIN_MODEL_N_FEATURE; ++i)
		y += m->w[i] * f[i];
	return y;
}
