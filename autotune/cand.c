/*
 * cand.c: candidates of the search space (space.h): the default, the
 * analytic seeds, random points, mutation and crossover, and their
 * printing as schedule directives.
 *
 * Every operator keeps a plan well formed (repair()): the order holds
 * each loop once, v.o before v.i, and the marked loops exist.  Whether
 * the schedule is legal is left to the compiler's check.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autotune/space.h"

/* Is loop v of statement s split in "c"? */
static int is_split(const struct ein_space *space, const struct ein_cand *c,
	int s, int v)
{
	int t = c->s[s].tile[v];

	return t > 1 && t < space->stmt[s].extent[v];
}

void ein_cand_loop_name(const struct ein_space *space,
	const struct ein_cand *c, int s, int id, char *buf, int len)
{
	int v = id / 2;
	const char *base = space->stmt[s].loop[v];

	if (!is_split(space, c, s, v))
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s.%s", base, id % 2 ? "i" : "o");
}

long ein_cand_id_trips(const struct ein_space *space,
	const struct ein_cand *c, int s, int id)
{
	int v = id / 2;
	long e = space->stmt[s].extent[v], t = c->s[s].tile[v];

	if (!is_split(space, c, s, v))
		return e;
	return id % 2 ? t : (e + t - 1) / t;
}

/* The position of loop id "id" in the order of plan "p", -1 if none. */
static int find_id(const struct ein_cand_stmt *p, int id)
{
	int i;

	for (i = 0; i < p->n_order; ++i)
		if (p->order[i] == id)
			return i;
	return -1;
}

/* Can statement s pack the tensor of its access "a": a read of another
 * tensor than the one it writes? */
static int packable(const struct ein_space *space, int s, int a)
{
	const struct ein_space_stmt *ss = &space->stmt[s];

	return a >= 0 && a < ss->n_access && !ss->access[a].is_write &&
		ss->access[a].tensor != ss->tensor;
}

/* Make plan s of "c" well formed: the order holds 2v for each loop and
 * 2v + 1 for each split one, each once, v.o before v.i; marks refer to
 * loops that exist. */
static void repair(const struct ein_space *space, struct ein_cand *c, int s)
{
	struct ein_cand_stmt *p = &c->s[s];
	int n = space->stmt[s].n_loop, order[2 * EIN_SPACE_MAX_LOOP];
	int k = 0, i, v;

	for (v = 0; v < n; ++v)
		if (!is_split(space, c, s, v))
			p->tile[v] = 0;
	for (i = 0; i < p->n_order; ++i) {
		int id = p->order[i];

		if (id < 0 || id >= 2 * n || (id % 2 && !p->tile[id / 2]))
			continue;
		order[k++] = id;
	}
	for (v = 0; v < n; ++v) {
		int seen_o = 0, seen_i = !p->tile[v];

		for (i = 0; i < k; ++i) {
			seen_o |= order[i] == 2 * v;
			seen_i |= order[i] == 2 * v + 1;
		}
		if (!seen_o)
			order[k++] = 2 * v;
		if (!seen_i)
			order[k++] = 2 * v + 1;
	}
	p->n_order = k;
	memcpy(p->order, order, k * sizeof(int));
	for (v = 0; v < n; ++v) {
		int o = find_id(p, 2 * v), in = find_id(p, 2 * v + 1);

		if (in >= 0 && in < o) {
			p->order[o] = 2 * v + 1;
			p->order[in] = 2 * v;
		}
	}
	if (p->par_id >= 0 && find_id(p, p->par_id) < 0)
		p->par_id = p->par_id - 1 >= 0 && find_id(p, p->par_id - 1) >= 0
			? p->par_id - 1 : -1;
	if (p->unroll && find_id(p, p->unroll_id) < 0)
		p->unroll = 0;
	if (p->acc && find_id(p, p->acc_id) < 0)
		p->acc = 0;
	if (p->pack && (find_id(p, p->pack_id) < 0 || !packable(space, s,
			p->pack_access)))
		p->pack = 0;
}

/* Drop repeated loop ids from plan p's order (crossover may copy an
 * order holding ids that another tiling repeats). */
static void dedup(struct ein_cand_stmt *p)
{
	int i, j, k = 0;

	for (i = 0; i < p->n_order; ++i) {
		for (j = 0; j < k; ++j)
			if (p->order[j] == p->order[i])
				break;
		if (j == k)
			p->order[k++] = p->order[i];
	}
	p->n_order = k;
}

static void repair_all(const struct ein_space *space, struct ein_cand *c)
{
	int s;

	for (s = 0; s < c->n_stmt; ++s) {
		dedup(&c->s[s]);
		repair(space, c, s);
	}
}

static void cpu_default(const struct ein_space *space, struct ein_cand *c)
{
	int s, v;

	memset(c, 0, sizeof(*c));
	c->n_stmt = space->n_stmt;
	for (s = 0; s < space->n_stmt; ++s) {
		c->s[s].par_id = -1;
		c->s[s].n_order = space->stmt[s].n_loop;
		for (v = 0; v < space->stmt[s].n_loop; ++v)
			c->s[s].order[v] = 2 * v;
	}
}

/* The loop of statement s that is the contiguous (last) index of most
 * of its accesses, -1 if none. */
static int contiguous_loop(const struct ein_space *space, int s)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	int best = -1, best_n = 0, v, a;

	for (v = 0; v < ss->n_loop; ++v) {
		int n = 0;

		for (a = 0; a < ss->n_access; ++a) {
			const struct ein_space_access *acc = &ss->access[a];

			n += acc->n_dim > 0 && acc->coef[acc->n_dim - 1][v] == 1;
		}
		if (n > best_n) {
			best_n = n;
			best = v;
		}
	}
	return best;
}

/* The outermost loop of plan s that is not a reduction, -1 if none. */
static int first_parallel_id(const struct ein_space *space,
	const struct ein_cand *c, int s)
{
	const struct ein_cand_stmt *p = &c->s[s];
	int i;

	for (i = 0; i < p->n_order; ++i)
		if (!space->stmt[s].is_reduction[p->order[i] / 2])
			return ein_cand_id_trips(space, c, s, p->order[i]) > 1 ?
				p->order[i] : -1;
	return -1;
}


/* Does access "acc" depend on loop v? */
static int involves(const struct ein_space_access *acc, int v)
{
	int d;

	for (d = 0; d < acc->n_dim; ++d)
		if (acc->coef[d][v])
			return 1;
	return 0;
}

/* The register tiles (rows mr, vectors of nr / lanes) of the BLIS seeds
 * for 16 vector registers (AVX2) and for 32 (AVX-512: the hand SGEMM's
 * 14 x 32), each leaving registers for the operand's vectors and a
 * broadcast. */
static const int shapes16[][2] = { { 6, 2 }, { 4, 2 }, { 8, 1 } };
static const int shapes32[][2] = { { 14, 2 }, { 6, 4 }, { 8, 2 },
	{ 12, 1 } };
#define N_SHAPE16 ((int) (sizeof(shapes16) / sizeof(shapes16[0])))
#define N_SHAPE32 ((int) (sizeof(shapes32) / sizeof(shapes32[0])))

static int n_shape(const struct ein_machine *m)
{
	return m->n_vreg >= 32 ? N_SHAPE32 : N_SHAPE16;
}

/* The loop of the output's last dimension of statement s (the loop whose
 * vectors store contiguously), -1 if none or a reduction. */
static int output_contiguous_loop(const struct ein_space *space, int s)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	const struct ein_space_access *w = &ss->access[0];
	int v;

	if (ss->n_access < 1 || w->n_dim < 1)
		return -1;
	for (v = 0; v < ss->n_loop; ++v)
		if (w->coef[w->n_dim - 1][v] == 1 && !ss->is_reduction[v])
			return v;
	return -1;
}

/* Is loop v the last (contiguous) index of an input of statement s? */
static int contiguous_in_input(const struct ein_space_stmt *ss, int v)
{
	int a;

	for (a = 1; a < ss->n_access; ++a) {
		const struct ein_space_access *acc = &ss->access[a];

		if (acc->n_dim > 0 && acc->coef[acc->n_dim - 1][v] == 1)
			return 1;
	}
	return 0;
}

/* The loops of statement s that may carry the rows of a register tile
 * whose vectors run along loop j: every output index but j; first those
 * an input is contiguous along (the mr rows of a column of that operand
 * are then one cache line: abcijk-ijma-mkbc's a), then the others, the
 * innermost first.  Returns how many. */
static int row_loops(const struct ein_space *space, int s, int j, int *rows)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	int n = 0, pass, v;

	for (pass = 0; pass < 2; ++pass)
		for (v = ss->n_loop - 1; v >= 0; --v)
			if (!ss->is_reduction[v] && v != j &&
			    ss->extent[v] > 1 &&
			    contiguous_in_input(ss, v) == !pass)
				rows[n++] = v;
	return n;
}

/* Initialise the output of update statement s inside its tile: the
 * initialisation writing the same tensor compute_at the innermost loop
 * of s's order above every reduction loop (with the reduction whole,
 * the register tile's loop: the tile starts in registers at zero). */
static void init_in_tile(const struct ein_space *space, struct ein_cand *c,
	int s)
{
	const struct ein_cand_stmt *p = &c->s[s];
	int t, level;

	for (level = 0; level < p->n_order; ++level)
		if (space->stmt[s].is_reduction[p->order[level] / 2])
			break;
	if (level < 1)
		return;
	for (t = 0; t < s; ++t)
		if (space->stmt[t].is_init &&
		    space->stmt[t].tensor == space->stmt[s].tensor) {
			c->s[t].place = EIN_PLACE_COMPUTE_AT;
			c->s[t].place_target = s;
			c->s[t].place_level = level;
			c->s[t].par_id = -1;
		}
}

/* Pack the panel of the operand of statement s that the register tile's
 * rows i do not index and its vectors j do, at loop "at": with the
 * index of j innermost when the operand is not contiguous along j (the
 * transposition TTGT makes: "pack K at j.o layout b d j"). */
static void pack_panel(const struct ein_space *space, struct ein_cand *c,
	int s, int i, int j, int at)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	struct ein_cand_stmt *p = &c->s[s];
	int a;

	p->pack = 0;
	for (a = 0; a < ss->n_access && !p->pack; ++a) {
		const struct ein_space_access *acc = &ss->access[a];

		if (!packable(space, s, a) || involves(acc, i) ||
		    !involves(acc, j))
			continue;
		p->pack = 1;
		p->pack_access = a;
		p->pack_id = at;
		p->pack_layout = acc->coef[acc->n_dim - 1][j] == 1 ?
			EIN_PACK_TENSOR : EIN_PACK_VECTOR_LAST;
	}
}

/* A BLIS-like micro-kernel for contraction statement s: the output's
 * contiguous loop j split by nr (vectors), the output loop rows[row] by
 * mr (registers), the first reduction loop k by kc (a kc x nr panel of
 * the second operand fills half the L1 cache); ordered, after the other
 * output (batch) loops, j.o k.o i.o, the other reductions, k.i i.i j.i,
 * with j.i vectorised nr wide, i.i unrolled fully, the mr x nr tile of
 * the output kept in registers through the reductions (accumulate i.o;
 * full tiles are generated apart from the edges) and initialised inside
 * its tile where no reduction is outside it, the kc x nr panel of the
 * operand that i does not index packed at k.o (else j.o, else the
 * outermost loop) with j innermost, and a batch loop parallel, else j.o
 * (each thread its own panels of the second operand).  "shape" picks
 * (mr, nr / lanes) among the tiles that fit the registers. */
/* The slice of the reduction of a BLIS seed of "shape" on "m": a kc x nr
 * panel of the second operand in half the L1 cache, times "slices"
 * (blis_seeds). */
static long blis_slice(const struct ein_machine *m, int shape, int slices)
{
	const int *sh = m->n_vreg >= 32 ? shapes32[shape] : shapes16[shape];

	return m->cache[0] / 2 / (m->vector_lanes * sh[1] * 4) * slices;
}

static int blis_seed(const struct ein_space *space, struct ein_cand *c,
	int s, int row, int shape, int slices)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	const struct ein_machine *m = &space->machine;
	const int *sh = m->n_vreg >= 32 ? shapes32[shape] : shapes16[shape];
	struct ein_cand_stmt *p = &c->s[s];
	int j = output_contiguous_loop(space, s), k = -1, i, v, n = 0;
	int rows[EIN_SPACE_MAX_LOOP];
	long nr = m->vector_lanes * sh[1], mr = sh[0];
	long kc = blis_slice(m, shape, slices);

	for (v = 0; v < ss->n_loop; ++v)
		if (ss->is_reduction[v] && k < 0)
			k = v;
	if (j < 0 || k < 0 || row >= row_loops(space, s, j, rows))
		return 0;
	i = rows[row];
	p->tile[j] = (int) (nr < ss->extent[j] ? nr : 0);
	p->tile[i] = (int) (mr < ss->extent[i] ? mr : 0);
	p->tile[k] = (int) (kc < ss->extent[k] ? kc : 0);
	for (v = 0; v < ss->n_loop; ++v)
		if (v != i && v != j && !ss->is_reduction[v])
			p->order[n++] = 2 * v;
	/* j.o k.o i.o [reductions] k.i i.i j.i; with k whole (kc beyond
	 * its extent), j.o i.o k [reductions] i.i j.i: the reductions stay
	 * inside i.o, the loop whose tile is accumulated in registers. */
	if (p->tile[j])
		p->order[n++] = 2 * j;
	if (p->tile[k])
		p->order[n++] = 2 * k;
	p->order[n++] = 2 * i;
	if (!p->tile[k])
		p->order[n++] = 2 * k;
	for (v = 0; v < ss->n_loop; ++v)
		if (v != k && ss->is_reduction[v])
			p->order[n++] = 2 * v;
	if (p->tile[k])
		p->order[n++] = 2 * k + 1;
	p->order[n++] = 2 * i + 1;
	/* A vector loop not split (nr beyond its extent) is innermost
	 * whole. */
	p->order[n++] = p->tile[j] ? 2 * j + 1 : 2 * j;
	p->n_order = n;
	repair(space, c, s);
	p->vec = (int) (p->tile[j] ? nr : m->vector_lanes);
	p->unroll_id = 2 * i + 1;
	p->unroll = p->tile[i] ? -1 : 0;
	p->acc = 1;
	p->acc_id = 2 * i;
	/* A batch loop outside the micro-kernel is the best to share;
	 * else j.o (each thread its own panels of the second operand).
	 * A j not split is the innermost vector loop: parallel there
	 * would fork and join the threads once per row of the tile (a
	 * 24^3 product took 2.2 ms, 800 ms on a loaded machine), so
	 * then only a batch loop is parallel. */
	p->par_id = m->n_threads > 1 && p->tile[j] ? 2 * j : -1;
	for (v = 0; v < ss->n_loop && m->n_threads > 1; ++v)
		if (v != i && v != j && !ss->is_reduction[v] &&
		    ss->extent[v] >= m->n_threads) {
			p->par_id = 2 * v;
			break;
		}
	pack_panel(space, c, s, i, j, p->tile[k] ? 2 * k :
		p->tile[j] ? 2 * j : p->order[0]);
	init_in_tile(space, c, s);
	return 1;
}

/* For a kernel of several statements: every producer computed inside the
 * outermost loop of the last statement (a row of softmax or layernorm
 * computed where the row is written, read from cache), every innermost
 * loop vectorised, reductions included, and that outer loop parallel.
 * Returns 0 if there is a single statement. */
static int fusion_seed(const struct ein_space *space, struct ein_cand *c)
{
	int s, last = -1, any = 0;

	for (s = 0; s < space->n_stmt; ++s)
		if (!space->stmt[s].is_init)
			last = s;
	if (last < 0)
		return 0;
	for (s = 0; s < space->n_stmt; ++s) {
		struct ein_cand_stmt *p = &c->s[s];

		p->vec = space->stmt[s].n_loop > 0 ?
			space->machine.vector_lanes : 0;
		if (s == last || space->stmt[s].is_init ||
		    c->s[last].n_order < 1)
			continue;
		p->place = EIN_PLACE_COMPUTE_AT;
		p->place_target = last;
		p->place_level = 1;
		p->par_id = -1;
		any = 1;
	}
	return any;
}

/* Make every statement's outermost independent loop parallel. */
static void make_parallel(const struct ein_space *space, struct ein_cand *c)
{
	int s;

	for (s = 0; s < c->n_stmt; ++s)
		c->s[s].par_id = first_parallel_id(space, c, s);
}

/* The BLIS seeds of register tile "shape" and "slices" times the L1's
 * slice for each row loop in turn (row_loops' order), as many as fit in
 * "c" (at most "max"). */
static int blis_seeds_of(const struct ein_space *space, struct ein_cand *c,
	int max, int shape, int slices)
{
	int n = 0, row, s;

	for (row = 0; row < EIN_SPACE_MAX_LOOP && n < max; ++row) {
		int any = 0;

		cpu_default(space, &c[n]);
		make_parallel(space, &c[n]);
		for (s = 0; s < space->n_stmt; ++s)
			if (!space->stmt[s].is_init)
				any |= blis_seed(space, &c[n], s, row, shape,
					slices);
		if (!any)
			break;
		n++;
	}
	return n;
}

/* Does a BLIS seed of "shape" at "slices" times the L1's slice split the
 * first reduction of some statement (else its slice is the whole
 * reduction, and a longer one would give the same seed)? */
static int slice_splits(const struct ein_space *space, int shape,
	int slices)
{
	long kc = blis_slice(&space->machine, shape, slices);
	int s, v;

	for (s = 0; s < space->n_stmt; ++s)
		for (v = 0; v < space->stmt[s].n_loop; ++v)
			if (space->stmt[s].is_reduction[v]) {
				if (kc < space->stmt[s].extent[v])
					return 1;
				break;
			}
	return 0;
}

/* The BLIS seeds: for each register tile shape, the rows along each
 * output index in turn (row_loops' order), as many as fit: a search
 * that runs out of time before the last seed has tried every row loop
 * with the first shapes.  Then the first shape with slices of twice and
 * four times L1's, up to the whole reduction: the panel in L2 and C's
 * tile loaded and stored fewer times (SGEMM 1024^3 on AVX2, Zen 3, one
 * thread: 6 x 16 in slices of 256, 512 and all 1024 of k ran in 29.7,
 * 27.0 and 25.3 ms; the L1 slice's seeds alone left the search, and the
 * cost model's corpus, without the longer slices). */
static int blis_seeds(const struct ein_space *space, struct ein_cand *c,
	int max)
{
	int n = 0, shape, slices;

	for (shape = 0; shape < n_shape(&space->machine); ++shape)
		n += blis_seeds_of(space, c + n, max - n, shape, 1);
	for (slices = 2; slices <= 4 && slice_splits(space, 0, slices / 2);
	     slices *= 2)
		n += blis_seeds_of(space, c + n, max - n, 0, slices);
	return n;
}

static int cpu_seeds(const struct ein_space *space, struct ein_cand *c,
	int max)
{
	int n = 0;

	if (n < max && space->machine.n_threads > 1) {
		cpu_default(space, &c[n]);
		make_parallel(space, &c[n++]);
	}
	if (n < max) {
		cpu_default(space, &c[n]);
		make_parallel(space, &c[n]);
		if (fusion_seed(space, &c[n]))
			n++;
	}
	return n + blis_seeds(space, c + n, max - n);
}

/* A random tile size for loop v of statement s (0: none), biased
 * towards splitting. */
static int random_tile(const struct ein_space_stmt *ss, int v, uint64_t *rng)
{
	if (!ss->n_choice[v] || ein_rng_below(rng, 5) < 2)
		return 0;
	return ss->choice[v][ein_rng_below(rng, ss->n_choice[v])];
}

/* A random order for plan s: a random permutation, mostly with every
 * outer loop outside every inner one and the contiguous loop innermost. */
static void random_order(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];
	int n = space->stmt[s].n_loop, k = 0, i, v;
	int cont = contiguous_loop(space, s);

	for (v = 0; v < n; ++v)
		p->order[k++] = 2 * v;
	for (i = k - 1; i > 0; --i) {
		int j = ein_rng_below(rng, i + 1), t = p->order[i];

		p->order[i] = p->order[j];
		p->order[j] = t;
	}
	for (i = 0, v = k; i < v; ++i)
		if (p->tile[p->order[i] / 2])
			p->order[k++] = p->order[i] + 1;
	p->n_order = k;
	if (cont >= 0 && ein_rng_below(rng, 10) < 7) {
		int last = p->tile[cont] ? 2 * cont + 1 : 2 * cont;
		int at = find_id(p, last);

		memmove(&p->order[at], &p->order[at + 1],
			(k - at - 1) * sizeof(int));
		p->order[k - 1] = last;
	}
	repair(space, c, s);
}

/* Random marks of plan s: vector width, unroll, parallel loop. */
static void random_marks(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];
	int w = space->machine.vector_lanes;
	static const int widths[] = { 0, 1, 2, 2, 4 };

	p->vec = widths[ein_rng_below(rng, 5)] * w / 2;
	p->unroll = ein_rng_below(rng, 2) ? 1 << (1 + ein_rng_below(rng, 3))
		: 0;
	p->unroll_id = p->order[p->n_order - 1 -
		ein_rng_below(rng, p->n_order < 3 ? p->n_order : 3)];
	p->par_id = -1;
	if (space->machine.n_threads > 1 && ein_rng_below(rng, 5))
		p->par_id = p->order[ein_rng_below(rng,
			p->n_order < 2 ? p->n_order : 2)];
}

/* A random placement of initialisation s inside its update: compute_at
 * one of the update's outer loops (legal only above every reduction
 * loop, which the compiler checks), or none. */
static void random_init_place(const struct ein_space *space,
	struct ein_cand *c, int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];
	int t, n;

	for (t = s + 1; t < space->n_stmt; ++t)
		if (!space->stmt[t].is_init &&
		    space->stmt[t].tensor == space->stmt[s].tensor)
			break;
	if (t >= space->n_stmt || ein_rng_below(rng, 3) == 0)
		return;
	n = c->s[t].n_order < 4 ? c->s[t].n_order : 4;
	if (n < 1)
		return;
	p->place = EIN_PLACE_COMPUTE_AT;
	p->place_target = t;
	p->place_level = 1 + ein_rng_below(rng, n);
	p->par_id = -1;
}

/* A random placement of statement s in a later statement that reads what
 * it writes. */
static void random_place(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	struct ein_cand_stmt *p = &c->s[s];
	int targets[EIN_SPACE_MAX_STMT], n = 0, t, a, max;

	p->place = EIN_PLACE_NONE;
	if (ss->is_init) {
		random_init_place(space, c, s, rng);
		return;
	}
	for (t = s + 1; t < space->n_stmt; ++t)
		for (a = 1; a < space->stmt[t].n_access; ++a)
			if (space->stmt[t].access[a].tensor == ss->tensor &&
			    !space->stmt[t].is_init) {
				targets[n++] = t;
				break;
			}
	if (!n || ein_rng_below(rng, 3) == 0)
		return;
	t = targets[ein_rng_below(rng, n)];
	p->place = 1 + ein_rng_below(rng, 2);
	p->place_target = t;
	max = c->s[t].n_order;
	if (p->place == EIN_PLACE_FUSE && ss->n_loop < max)
		max = ss->n_loop;
	p->place_level = 1 + ein_rng_below(rng, max < 2 ? 1 : 2);
}

static void cpu_random(const struct ein_space *space, struct ein_cand *c,
	uint64_t *rng)
{
	int s, v;

	cpu_default(space, c);
	for (s = 0; s < space->n_stmt; ++s) {
		for (v = 0; v < space->stmt[s].n_loop; ++v)
			c->s[s].tile[v] = random_tile(&space->stmt[s], v, rng);
		random_order(space, c, s, rng);
		random_marks(space, c, s, rng);
	}
	for (s = 0; s < space->n_stmt; ++s)
		random_place(space, c, s, rng);
}

/* ---- mutation operators -------------------------------------------- */

/* Each operator changes plan s of "c" (the caller repairs it). */
typedef void (*mutator_fn)(const struct ein_space *space,
	struct ein_cand *c, int s, uint64_t *rng);

static void mutate_tile(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	struct ein_cand_stmt *p = &c->s[s];
	int v = ein_rng_below(rng, ss->n_loop), i;
	int was = p->tile[v];

	if (!ss->n_choice[v])
		return;
	for (i = 0; i < ss->n_choice[v] && ss->choice[v][i] != was; ++i)
		;
	if (was && i < ss->n_choice[v] && ein_rng_below(rng, 4)) {
		i += ein_rng_below(rng, 2) ? 1 : -1;
		p->tile[v] = i >= 0 && i < ss->n_choice[v] ?
			ss->choice[v][i] : 0;
	} else
		p->tile[v] = random_tile(ss, v, rng);
	if (!was && p->tile[v])
		p->order[p->n_order++] = 2 * v + 1;
}

static void mutate_swap(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];
	int i, t;

	if (p->n_order < 2)
		return;
	i = ein_rng_below(rng, p->n_order - 1);
	t = p->order[i];
	p->order[i] = p->order[i + 1];
	p->order[i + 1] = t;
}

static void mutate_vector(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	int w = space->machine.vector_lanes;
	static const int widths[] = { 0, 1, 2, 4 };

	c->s[s].vec = widths[ein_rng_below(rng, 4)] * w / 2;
}

static void mutate_unroll(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];
	int n = p->n_order < 3 ? p->n_order : 3;

	p->unroll = ein_rng_below(rng, 4) ? 1 << (1 + ein_rng_below(rng, 3))
		: 0;
	p->unroll_id = p->order[p->n_order - 1 - ein_rng_below(rng, n)];
	if (p->unroll && ein_rng_below(rng, 4) == 0 &&
	    ein_cand_id_trips(space, c, s, p->unroll_id) <= 16)
		p->unroll = -1;
}

static void mutate_parallel(const struct ein_space *space,
	struct ein_cand *c, int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];
	int n = p->n_order < 3 ? p->n_order : 3;

	p->par_id = ein_rng_below(rng, 4) ? p->order[ein_rng_below(rng, n)]
		: -1;
}

/* Keep the output tile of a loop among the outer ones in a local buffer,
 * or stop doing so. */
static void mutate_accumulate(const struct ein_space *space,
	struct ein_cand *c, int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];

	p->acc = p->n_order > 1 && ein_rng_below(rng, 3) != 0;
	if (p->acc)
		p->acc_id = p->order[ein_rng_below(rng, p->n_order - 1)];
}

/* A random pack layout: the tensor's order, the vector loop's index
 * innermost, or micro-panels of one or two vectors. */
static int random_layout(const struct ein_space *space, uint64_t *rng)
{
	int w = space->machine.vector_lanes;
	static const int kinds[] = { EIN_PACK_TENSOR, EIN_PACK_VECTOR_LAST,
		1, 2 };
	int k = kinds[ein_rng_below(rng, 4)];

	return k > 0 ? k * w : k;
}

/* Change the layout of the plan's pack (a pack that keeps the tensor's
 * order leaves the vector loop strided where the tensor is not
 * contiguous along it). */
static void mutate_layout(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	c->s[s].pack_layout = random_layout(space, rng);
}

/* Place an initialisation inside its update's tile, or stop doing so. */
static void mutate_init(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	int t;

	for (t = 0; t < space->n_stmt; ++t)
		if (space->stmt[t].is_init && space->stmt[t].tensor ==
				space->stmt[s].tensor) {
			c->s[t].place = EIN_PLACE_NONE;
			random_init_place(space, c, t, rng);
		}
}

/* Pack a random input of the statement at one of its outer loops, or
 * stop packing. */
static void mutate_pack(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_cand_stmt *p = &c->s[s];

	p->pack = p->n_order > 1 && ein_rng_below(rng, 3) != 0;
	if (!p->pack)
		return;
	p->pack_access = ein_rng_below(rng, space->stmt[s].n_access);
	p->pack_id = p->order[ein_rng_below(rng, p->n_order - 1)];
	p->pack_layout = random_layout(space, rng);
}

static void mutate_place(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	random_place(space, c, s, rng);
}

/* The operators and their weights.  A new directive is one more function
 * and one more line here. */
static const struct {
	const char *name;
	mutator_fn fn;
	int weight;
	int multi_only;		/* only for kernels of several statements */
} mutators[] = {
	{ "tile", &mutate_tile, 4, 0 },
	{ "order", &mutate_swap, 3, 0 },
	{ "vectorize", &mutate_vector, 1, 0 },
	{ "unroll", &mutate_unroll, 1, 0 },
	{ "parallel", &mutate_parallel, 1, 0 },
	{ "accumulate", &mutate_accumulate, 1, 0 },
	{ "pack", &mutate_pack, 1, 0 },
	{ "layout", &mutate_layout, 1, 0 },
	{ "init", &mutate_init, 1, 1 },
	{ "place", &mutate_place, 2, 1 },
};

#define N_MUTATOR ((int) (sizeof(mutators) / sizeof(mutators[0])))

/* A statement worth changing: not an initialisation unless all are. */
static int pick_stmt(const struct ein_space *space, uint64_t *rng)
{
	int tries;

	for (tries = 0; tries < 8; ++tries) {
		int s = ein_rng_below(rng, space->n_stmt);

		if (!space->stmt[s].is_init || tries == 7)
			return s;
	}
	return 0;
}

static const char *cpu_mutate(const struct ein_space *space,
	struct ein_cand *c, uint64_t *rng)
{
	int total = 0, r, m, s = pick_stmt(space, rng);
	int multi = space->n_stmt > 1;

	for (m = 0; m < N_MUTATOR; ++m)
		if (multi || !mutators[m].multi_only)
			total += mutators[m].weight;
	r = ein_rng_below(rng, total);
	for (m = 0; m < N_MUTATOR; ++m) {
		if (!multi && mutators[m].multi_only)
			continue;
		if (r < mutators[m].weight)
			break;
		r -= mutators[m].weight;
	}
	mutators[m].fn(space, c, s, rng);
	repair_all(space, c);
	return mutators[m].name;
}

static void cpu_crossover(const struct ein_space *space,
	const struct ein_cand *a, const struct ein_cand *b,
	struct ein_cand *c, uint64_t *rng)
{
	int s;

	*c = *a;
	for (s = 0; s < space->n_stmt; ++s) {
		if (space->n_stmt > 1 && ein_rng_below(rng, 2)) {
			c->s[s] = b->s[s];
			continue;
		}
		/* One statement: tiles of a, order and marks of b. */
		if (ein_rng_below(rng, 2)) {
			memcpy(c->s[s].order, b->s[s].order,
				sizeof(c->s[s].order));
			c->s[s].n_order = b->s[s].n_order;
		}
		if (ein_rng_below(rng, 2))
			c->s[s].vec = b->s[s].vec;
		if (ein_rng_below(rng, 2)) {
			c->s[s].unroll = b->s[s].unroll;
			c->s[s].unroll_id = b->s[s].unroll_id;
		}
		if (ein_rng_below(rng, 2))
			c->s[s].par_id = b->s[s].par_id;
		if (ein_rng_below(rng, 2)) {
			c->s[s].acc = b->s[s].acc;
			c->s[s].acc_id = b->s[s].acc_id;
		}
		if (ein_rng_below(rng, 2)) {
			c->s[s].pack = b->s[s].pack;
			c->s[s].pack_access = b->s[s].pack_access;
			c->s[s].pack_id = b->s[s].pack_id;
			c->s[s].pack_layout = b->s[s].pack_layout;
		}
	}
	repair_all(space, c);
}

/* ---- printing and encoding --------------------------------------------- */

/* Append formatted text to the growing string *buf of *len bytes (NULL
 * once out of memory). */
void ein_cand_append(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *grown;

	if (!*buf)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	grown = realloc(*buf, *len + n + 1);
	if (!grown) {
		free(*buf);
		*buf = NULL;
		return;
	}
	*buf = grown;
	va_start(ap, fmt);
	vsnprintf(*buf + *len, n + 1, fmt, ap);
	va_end(ap);
	*len += n;
}

/* Is the order of plan s the default one (loop v at position v, each
 * split loop's inner part right after its outer part)? */
static int is_default_order(const struct ein_space *space,
	const struct ein_cand *c, int s)
{
	const struct ein_cand_stmt *p = &c->s[s];
	int k = 0, v;

	for (v = 0; v < space->stmt[s].n_loop; ++v) {
		if (p->order[k++] != 2 * v)
			return 0;
		if (p->tile[v] && p->order[k++] != 2 * v + 1)
			return 0;
	}
	return k == p->n_order;
}

/* The loop that dimension d of access "acc" reads as a single index
 * (coefficient 1, no other loop), -2 if it reads a constant, -1 if
 * neither. */
static int dim_loop(const struct ein_space_stmt *ss,
	const struct ein_space_access *acc, int d)
{
	int v, found = -2;

	for (v = 0; v < ss->n_loop; ++v) {
		if (!acc->coef[d][v])
			continue;
		if (acc->coef[d][v] != 1 || found != -2)
			return -1;
		found = v;
	}
	return found;
}

/* " layout ..." of plan s's pack, if its pack_layout asks for one that
 * differs from the tensor's order: the vector loop's index innermost,
 * or in blocks of N outermost and innermost.  Nothing if a dimension is
 * not a single index or the vector loop's index is not read. */
static void print_layout(const struct ein_space *space,
	const struct ein_cand *c, int s, char **buf, size_t *len)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	const struct ein_cand_stmt *p = &c->s[s];
	const struct ein_space_access *acc = &ss->access[p->pack_access];
	int vl = p->order[p->n_order - 1] / 2, d, at = -1;
	int loop[EIN_SPACE_MAX_DIM];

	if (p->pack_layout == EIN_PACK_TENSOR || p->n_order < 1)
		return;
	for (d = 0; d < acc->n_dim; ++d) {
		loop[d] = dim_loop(ss, acc, d);
		if (loop[d] == -1)
			return;
		if (loop[d] == vl)
			at = d;
	}
	if (at < 0 || (p->pack_layout == EIN_PACK_VECTOR_LAST &&
			at == acc->n_dim - 1))
		return;
	ein_cand_append(buf, len, " layout");
	if (p->pack_layout > 1)
		ein_cand_append(buf, len, " %s/%d", ss->loop[vl],
			p->pack_layout);
	for (d = 0; d < acc->n_dim; ++d)
		if (d != at && loop[d] >= 0)
			ein_cand_append(buf, len, " %s", ss->loop[loop[d]]);
	if (p->pack_layout > 1)
		ein_cand_append(buf, len, " %s%%%d", ss->loop[vl],
			p->pack_layout);
	else
		ein_cand_append(buf, len, " %s", ss->loop[vl]);
}

/* The directives of the loops of plan s. */
static void print_loops(const struct ein_space *space,
	const struct ein_cand *c, int s, char **buf, size_t *len)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	const struct ein_cand_stmt *p = &c->s[s];
	char name[48];
	int v, i;

	for (v = 0; v < ss->n_loop; ++v)
		if (p->tile[v])
			ein_cand_append(buf, len, "%s: split %s %d\n", ss->name,
				ss->loop[v], p->tile[v]);
	if (p->n_order > 1 && !is_default_order(space, c, s)) {
		ein_cand_append(buf, len, "%s: reorder", ss->name);
		for (i = 0; i < p->n_order; ++i) {
			ein_cand_loop_name(space, c, s, p->order[i], name,
				sizeof(name));
			ein_cand_append(buf, len, " %s", name);
		}
		ein_cand_append(buf, len, "\n");
	}
	if (p->vec && p->n_order) {
		ein_cand_loop_name(space, c, s, p->order[p->n_order - 1], name,
			sizeof(name));
		ein_cand_append(buf, len, "%s: vectorize %s %d\n", ss->name,
			name, p->vec);
	}
	if (p->unroll) {
		ein_cand_loop_name(space, c, s, p->unroll_id, name,
			sizeof(name));
		if (p->unroll < 0)
			ein_cand_append(buf, len, "%s: unroll %s full\n",
				ss->name, name);
		else
			ein_cand_append(buf, len, "%s: unroll %s %d\n",
				ss->name, name, p->unroll);
	}
	if (p->par_id >= 0) {
		ein_cand_loop_name(space, c, s, p->par_id, name, sizeof(name));
		ein_cand_append(buf, len, "%s: parallel %s\n", ss->name, name);
	}
	if (p->acc) {
		ein_cand_loop_name(space, c, s, p->acc_id, name, sizeof(name));
		ein_cand_append(buf, len, "%s: accumulate %s\n", ss->name,
			name);
	}
	if (p->pack) {
		ein_cand_loop_name(space, c, s, p->pack_id, name, sizeof(name));
		ein_cand_append(buf, len, "%s: pack %s at %s", ss->name,
			ss->access[p->pack_access].name, name);
		print_layout(space, c, s, buf, len);
		ein_cand_append(buf, len, "\n");
	}
}

/* The placement directive of plan s, if any. */
static void print_place(const struct ein_space *space,
	const struct ein_cand *c, int s, char **buf, size_t *len)
{
	const struct ein_cand_stmt *p = &c->s[s];
	int t = p->place_target, level = p->place_level;
	char name[48];

	if (p->place == EIN_PLACE_NONE || t <= s || t >= c->n_stmt ||
	    level < 1 || level > c->s[t].n_order)
		return;
	if (p->place == EIN_PLACE_FUSE) {
		ein_cand_append(buf, len, "%s: fuse %s %d\n",
			space->stmt[s].name, space->stmt[t].name, level);
		return;
	}
	ein_cand_loop_name(space, c, t, c->s[t].order[level - 1], name,
		sizeof(name));
	ein_cand_append(buf, len, "%s: compute_at %s %s\n", space->stmt[s].name,
		space->stmt[t].name, name);
}

static char *cpu_to_directives(const struct ein_space *space,
	const struct ein_cand *c)
{
	char *buf = calloc(1, 1);
	size_t len = 0;
	int s;

	for (s = 0; s < c->n_stmt; ++s)
		print_loops(space, c, s, &buf, &len);
	/* Consumers first: a producer can then follow its consumer into a
	 * later statement's loop (softmax's mx into Y once e is there). */
	for (s = c->n_stmt - 1; s >= 0; --s)
		print_place(space, c, s, &buf, &len);
	return buf;
}

/* Encoding: n_stmt, then per statement: n_loop tiles, n_order, the
 * order, vec, unroll_id, unroll, par_id, acc, acc_id, pack,
 * pack_access, pack_id, pack_layout, place, place_target, place_level. */
static int cpu_encode(const struct ein_space *space,
	const struct ein_cand *c, int *v, int max)
{
	int n = 0, s, i;

	(void) space;
#define PUT(x) do { if (n < max) v[n] = (x); n++; } while (0)
	PUT(c->n_stmt);
	for (s = 0; s < c->n_stmt; ++s) {
		const struct ein_cand_stmt *p = &c->s[s];

		for (i = 0; i < EIN_SPACE_MAX_LOOP; ++i)
			PUT(p->tile[i]);
		PUT(p->n_order);
		for (i = 0; i < p->n_order; ++i)
			PUT(p->order[i]);
		PUT(p->vec);
		PUT(p->unroll_id);
		PUT(p->unroll);
		PUT(p->par_id);
		PUT(p->acc);
		PUT(p->acc_id);
		PUT(p->pack);
		PUT(p->pack_access);
		PUT(p->pack_id);
		PUT(p->pack_layout);
		PUT(p->place);
		PUT(p->place_target);
		PUT(p->place_level);
	}
#undef PUT
	return n < max ? n : max;
}

static int cpu_decode(const struct ein_space *space, const int *v, int n,
	struct ein_cand *c)
{
	int k = 0, s, i;

#define GET(x) do { if (k >= n) return -1; (x) = v[k++]; } while (0)
	memset(c, 0, sizeof(*c));
	GET(c->n_stmt);
	if (c->n_stmt != space->n_stmt)
		return -1;
	for (s = 0; s < c->n_stmt; ++s) {
		struct ein_cand_stmt *p = &c->s[s];

		for (i = 0; i < EIN_SPACE_MAX_LOOP; ++i)
			GET(p->tile[i]);
		GET(p->n_order);
		if (p->n_order < 0 || p->n_order > 2 * EIN_SPACE_MAX_LOOP)
			return -1;
		for (i = 0; i < p->n_order; ++i)
			GET(p->order[i]);
		GET(p->vec);
		GET(p->unroll_id);
		GET(p->unroll);
		GET(p->par_id);
		GET(p->acc);
		GET(p->acc_id);
		GET(p->pack);
		GET(p->pack_access);
		GET(p->pack_id);
		GET(p->pack_layout);
		GET(p->place);
		GET(p->place_target);
		GET(p->place_level);
	}
#undef GET
	repair_all(space, c);
	return k == n ? 0 : -1;
}

const struct ein_cand_gen ein_cand_gen_cpu = {
	.init = &cpu_default,
	.seeds = &cpu_seeds,
	.random = &cpu_random,
	.mutate = &cpu_mutate,
	.crossover = &cpu_crossover,
	.to_directives = &cpu_to_directives,
	.encode = &cpu_encode,
	.decode = &cpu_decode,
	.features = NULL,
};
