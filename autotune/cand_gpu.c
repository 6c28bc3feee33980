/*
 * cand_gpu.c: the candidates of an OpenCL device (space.h,
 * ein_cand_gen_gpu): which loops run across work-groups and work-items,
 * the tiles of each, the register tile of a work-item, the __local
 * copies, and the unrolling.
 *
 * A plan (struct ein_gpu_plan) of a statement with default loops
 * b i j k (k a reduction), mapping b, i and j with i's tile of 64 rows
 * in 8 work-items of 8 rows each, j's of 128 in 16 of 8, and k split by
 * 16, prints as
 *
 *   C: split i 64                      i -> i.o i.i
 *   C: split i.i 8                     i.i -> i.i.o i.i.i
 *   C: split j 128
 *   C: split j.i 8
 *   C: split k 16
 *   C: reorder b i.o j.o k.o i.i.o j.i.o k.i i.i.i j.i.i
 *   C: gpu_blocks b i.o j.o            groups: b, i.o, j.o
 *   C: gpu_threads i.i.o j.i.o         8 x 16 work-items
 *   C: local A at k.o                  (bit of access A in "local")
 *   C: accumulate j.i.o                the 8 x 8 tile in registers
 *   C: unroll i.i.i full
 *   C: unroll j.i.i full
 *
 * that is: the groups' loops outermost (the kernel's shape, gpu_map.c),
 * k.o between them and the items' loops (the loop the __local tiles are
 * copied in), then the loops a work-item runs: the unmapped parallel
 * loops, the reduction, the register tile innermost.  Every operator
 * keeps a plan within the device (repair(): at most its largest
 * work-group and 1024 work-items, __local tiles within half its local
 * memory); legality is the compiler's check, as on the CPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autotune/space.h"

/* The largest work-group ein maps (gpu_map.c) and the largest register
 * tile a work-item keeps (elements: 8 x 16, the benchmark's tile on
 * PoCL's CPU device, 16 ymm registers once vectorised). */
#define MAX_ITEMS 1024
#define MAX_REG 128
#define MAX_BLOCK 512

/* The splits of the reduction loop tried (0: none). */
static const int kcs[] = { 0, 4, 8, 16, 32, 64, 128, 256 };
#define N_KC ((int) (sizeof(kcs) / sizeof(kcs[0])))

/* The first reduction loop of statement s, -1 if none. */
static int red_loop(const struct ein_space_stmt *ss)
{
	int v;

	for (v = 0; v < ss->n_loop; ++v)
		if (ss->is_reduction[v])
			return v;
	return -1;
}

/* Is loop v mapped in plan p? */
static int is_mapped(const struct ein_gpu_plan *p, int v)
{
	int i;

	for (i = 0; i < p->n_map; ++i)
		if (p->map[i] == v)
			return 1;
	return 0;
}

/* The number of parallel (not reduction) loops of s that the plan leaves
 * to the work-item, but for those of one iteration (a batch of one
 * image), which do not keep a register tile from accumulating. */
static int n_unmapped(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p)
{
	int v, n = 0;

	for (v = 0; v < ss->n_loop; ++v)
		n += !ss->is_reduction[v] && !is_mapped(p, v) &&
			ss->extent[v] > 1;
	return n;
}

/* The work-items of a group of plan p. */
static long items(const struct ein_gpu_plan *p)
{
	long n = 1;
	int i;

	for (i = 0; i < p->n_map; ++i)
		n *= p->block[p->map[i]] / p->reg[p->map[i]];
	return n;
}

/* The elements of a work-item's register tile. */
static long reg_elems(const struct ein_gpu_plan *p)
{
	long n = 1;
	int i;

	for (i = 0; i < p->n_map; ++i)
		n *= p->reg[p->map[i]];
	return n;
}

/* Can statement s copy the tensor of access a to __local memory: a read
 * of another tensor than it writes? */
static int localizable(const struct ein_space_stmt *ss, int a)
{
	return a > 0 && a < ss->n_access && !ss->access[a].is_write &&
		ss->access[a].tensor != ss->tensor;
}

/* The bytes of the tile of access a that a group reads in one iteration
 * of k.o: the mapped loops over their group tile, k over kc, the rest
 * whole. */
static double local_bytes(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p, int a)
{
	const struct ein_space_access *acc = &ss->access[a];
	int k = red_loop(ss), d, v;
	double elems = 1;

	for (d = 0; d < acc->n_dim; ++d) {
		double range = 1;

		for (v = 0; v < ss->n_loop; ++v) {
			long span = is_mapped(p, v) ? p->block[v] :
				v == k ? p->kc : ss->extent[v];

			range += fabs((double) acc->coef[d][v]) * (span - 1);
		}
		elems *= range;
	}
	return elems * acc->elem_size;
}

/* The largest power of two not above n (1 at least). */
static int pow2_floor(long n)
{
	int p = 1;

	while ((long) p * 2 <= n)
		p *= 2;
	return p;
}

/* The register tile nearest "reg" (not above) that divides a group's
 * tile of "block": the whole block, or a power of two dividing it (a
 * block is a power of two or a whole loop, e.g. 14 columns). */
static int fit_reg(int block, int reg)
{
	int r;

	if (block < 2)
		return 1;
	if (reg >= block)
		return block;
	r = pow2_floor(reg);
	while (r > 1 && block % r)
		r /= 2;
	return r;
}

/* Keep the work-items of plan p within "limit": a register tile grows
 * (fewer items, each with more) while it may, else the group's tile
 * shrinks, along the loop with the most items. */
static void fit_items(struct ein_gpu_plan *p, long limit)
{
	while (items(p) > limit) {
		int i, r, best = -1;

		for (i = 0; i < p->n_map; ++i) {
			int v = p->map[i];

			if (p->block[v] / p->reg[v] > 1 && (best < 0 ||
			    p->block[v] / p->reg[v] > p->block[best] /
			    p->reg[best]))
				best = v;
		}
		if (best < 0)
			return;
		r = fit_reg(p->block[best], p->reg[best] * 2);
		if (reg_elems(p) * 2 <= MAX_REG && r > p->reg[best]) {
			p->reg[best] = r;
		} else {
			p->block[best] /= 2;
			p->reg[best] = fit_reg(p->block[best], p->reg[best]);
		}
	}
}

/* The loop a work-item of plan p runs innermost when it is a whole loop
 * of the statement (what "vec" vectorises, as "vectorize j 16" does a
 * row in bench/schedules/opencl/softmax.sched): the last reduction loop,
 * else the last unmapped parallel loop of more than one iteration; -1
 * when the innermost is a register tile's or the first reduction's
 * slice, or there is none. */
static int inner_loop(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p)
{
	int v, last = -1;

	if (reg_elems(p) > 1 || p->n_map == 0)
		return -1;
	for (v = 0; v < ss->n_loop; ++v)
		if (ss->is_reduction[v])
			last = v;
	if (last >= 0)
		return last == red_loop(ss) && p->kc ? -1 : last;
	for (v = 0; v < ss->n_loop; ++v)
		if (!is_mapped(p, v) && ss->extent[v] > 1)
			last = v;
	return last;
}

/* Make plan s of "c" fit the space and the device (see the head
 * comment): mapped loops distinct, parallel and at most three; tiles
 * powers of two within the loop's extent or the whole loop, the register
 * tile dividing the group's; the work-items within the device; kc within the
 * reduction; __local copies only of inputs with kc, within half the
 * local memory; accumulate only with a reduction and no unmapped
 * parallel loop. */
static void repair(const struct ein_space *space, struct ein_cand *c, int s)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	struct ein_gpu_plan *p = &c->s[s].gpu;
	long limit = space->device.max_group;
	int i, n = 0, a, v, k = red_loop(ss);
	double bytes = 0;

	for (i = 0; i < p->n_map && i < EIN_GPU_MAX_MAP; ++i) {
		int v = p->map[i], j;

		for (j = 0; j < n && p->map[j] != v; ++j)
			;
		if (j == n && v >= 0 && v < ss->n_loop &&
		    !ss->is_reduction[v])
			p->map[n++] = v;
	}
	p->n_map = n;
	for (i = 0; i < ss->n_loop; ++i) {
		long cap = ss->extent[i] < MAX_BLOCK ? ss->extent[i] :
			MAX_BLOCK;

		if (!is_mapped(p, i)) {
			p->block[i] = p->reg[i] = 1;
			continue;
		}
		/* A tile that covers a short loop is the whole loop (14
		 * columns of a 14^2 image, not 8 and a partial 6, which
		 * leaves an accumulated register tile no constant size). */
		if (p->block[i] >= ss->extent[i] && ss->extent[i] <= MAX_BLOCK)
			p->block[i] = ss->extent[i];
		else
			p->block[i] = pow2_floor(p->block[i] < 1 ? 1 :
				p->block[i] > cap ? cap : p->block[i]);
		p->reg[i] = fit_reg(p->block[i], p->reg[i] < 1 ? 1 :
			p->reg[i]);
	}
	while (reg_elems(p) > MAX_REG)
		for (i = 0; i < p->n_map; ++i)
			if (p->reg[p->map[i]] > 1) {
				p->reg[p->map[i]] = fit_reg(
					p->block[p->map[i]],
					p->reg[p->map[i]] / 2);
				break;
			}
	if (limit < 1 || limit > MAX_ITEMS)
		limit = MAX_ITEMS;
	fit_items(p, limit);
	if (k < 0 || p->kc < 2 || p->kc >= ss->extent[k])
		p->kc = 0;
	for (a = 0; a < EIN_SPACE_MAX_ACCESS; ++a) {
		if (!(p->local & (1 << a)))
			continue;
		if (!p->kc || !localizable(ss, a) ||
		    bytes + local_bytes(ss, p, a) >
		    space->device.local_mem / 2)
			p->local &= ~(1 << a);
		else
			bytes += local_bytes(ss, p, a);
	}
	if (k < 0 || n_unmapped(ss, p) > 0 || p->n_map == 0)
		p->acc = 0;
	if (reg_elems(p) < 2)
		p->unroll &= ~1;
	if (!p->kc || p->kc > 16)
		p->unroll &= ~2;
	v = inner_loop(ss, p);
	p->vec = v < 0 || p->vec < 2 ? 0 : pow2_floor(p->vec > 16 ? 16 :
		p->vec > ss->extent[v] ? ss->extent[v] : p->vec);
	if (p->vec < 2)
		p->vec = 0;
}

static void repair_all(const struct ein_space *space, struct ein_cand *c)
{
	int s;

	for (s = 0; s < c->n_stmt; ++s)
		repair(space, c, s);
}

/* ---- the default and the seeds ----------------------------------------- */

/* No directive: the default GPU mapping (sched/gpu_map.c). */
static void gpu_default(const struct ein_space *space, struct ein_cand *c)
{
	int s;

	memset(c, 0, sizeof(*c));
	c->n_stmt = space->n_stmt;
	for (s = 0; s < space->n_stmt; ++s)
		c->s[s].par_id = -1;
}

/* The shape of a seed: the tile of a group along the last two mapped
 * loops (rows bi along the second last, bj along the last), the register
 * tile (ri x rj), the split of the reduction, whether its inputs are
 * copied to __local memory, whether the tile accumulates in registers,
 * and the unrolling (struct ein_gpu_plan).  Unrolling costs build time
 * (PoCL once took over 20 s to build matmul's unrolled 8 x 8 register
 * tile on the loaded machine, against 3 s rolled), which a candidate
 * pays within its time limit. */
struct shape {
	int bi, bj, ri, rj, kc, local, acc, unroll, mode, vec;
};

/* How a shape maps a statement's parallel loops: the last two tiled (a
 * GEMM's rows and columns); the outermost one of more than one
 * iteration only, bi rows per group, each work-item running a whole row
 * (a reduction per row with the row's producers placed per row, as
 * bench/schedules/opencl/softmax.sched and layernorm.sched); or, in a
 * statement with a reduction, the first mapped loop as the GEMM's rows
 * (bi x ri) and the last as its columns (bj x rj), those between one per
 * group (a convolution as a GEMM of the weights and the input, the
 * channel reduction sliced by kc, as bench/schedules/opencl/
 * conv3x3.sched; its statements without a reduction take shapes[0]). */
enum { SHAPE_TILE2, SHAPE_ROWS, SHAPE_OUTER };

/* The seeds' shapes: register tiles of 4 x 4 in 32 x 64 tiles and the
 * hand schedule of the benchmark's (bench/schedules/opencl/matmul.sched:
 * 64 x 128 tiles, 8 x 16 registers per item, the reduction in slices of
 * 256 between the groups' and the items' loops, which keeps a slice in
 * the cache of PoCL's CPU device: docs/performance.md, "OpenCL on PoCL
 * within 3x of the CPU"), both unrolled, the shapes of the hand
 * schedules of the benchmark's convolution (64 x 16 tiles of 8 x 16
 * along the first and last mapped loops, the channels sliced by 64) and
 * of its row-wise softmax and layernorm (16 rows per group, one per
 * item), which a tune under load (4 to 12 candidates a minute) must
 * meet early, 2 x 4 in
 * 16 x 64, the shipped schedules/opencl-generic/matmul.sched (8 x 32
 * items, one element each), the __local tiles of docs/schedules.md's
 * example, and rows of one element per item.  Register tiles come
 * first: once a best exists, a slower candidate stops after one call
 * (rank.h); they are unrolled, since a rolled one stays in memory on
 * PoCL (32 x 64 tiles of 4 x 4 rolled ran matmul 512^3 at 88 ms, 8 x 8
 * unrolled at 7.6 ms); 4 x 4 first, as it builds faster. */
static const struct shape shapes[] = {
	{ 32, 64, 4, 4, 0, 0, 1, 1, SHAPE_TILE2, 0 },
	{ 64, 128, 8, 16, 256, 0, 1, 1, SHAPE_TILE2, 0 },
	{ 64, 16, 8, 16, 64, 0, 1, 1, SHAPE_OUTER, 0 },
	{ 16, 1, 1, 1, 0, 0, 0, 0, SHAPE_ROWS, 16 },
	{ 16, 64, 2, 4, 0, 0, 1, 1, SHAPE_TILE2, 0 },
	{ 8, 32, 1, 1, 0, 0, 0, 0, SHAPE_TILE2, 0 },
	{ 16, 16, 2, 2, 8, 1, 1, 1, SHAPE_TILE2, 0 },
	{ 32, 32, 4, 4, 16, 1, 1, 0, SHAPE_TILE2, 0 },
	{ 4, 64, 1, 1, 0, 0, 0, 0, SHAPE_TILE2, 0 },
};
#define N_SHAPES ((int) (sizeof(shapes) / sizeof(shapes[0])))

/* Map only the outermost parallel loop of statement s ("par", n of
 * them) that has more than one iteration (a batch of one is no row), bi
 * rows per group and one per work-item, the rest of the row inside the
 * item: every statement of a row-wise chain then maps its rows alike,
 * so a row's reduction and its producers and consumers share the
 * grid. */
static void seed_rows(const struct ein_space *space, struct ein_cand *c,
	int s, const struct shape *sh, const int *par, int n)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	struct ein_gpu_plan *p = &c->s[s].gpu;
	int i, v = n > 0 ? par[0] : -1;

	for (i = 0; i < n; ++i)
		if (ss->extent[par[i]] > 1) {
			v = par[i];
			break;
		}
	if (v >= 0) {
		p->map[p->n_map++] = v;
		p->block[v] = sh->bi;
		p->reg[v] = 1;
	}
	p->kc = sh->kc;
	p->local = sh->local ? ~0 : 0;
	p->acc = sh->acc;
	p->unroll = sh->unroll;
	p->vec = sh->vec;
	repair(space, c, s);
}

/* Map statement s of "c" as "sh" says: its parallel loops, at most
 * three, the outer ones (a batch) across groups only, the last two
 * tiled; a single parallel loop gets the whole tile. */
static void seed_stmt(const struct ein_space *space, struct ein_cand *c,
	int s, const struct shape *sh)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	struct ein_gpu_plan *p = &c->s[s].gpu;
	int par[EIN_SPACE_MAX_LOOP], n = 0, v, i, first;

	memset(p, 0, sizeof(*p));
	for (v = 0; v < ss->n_loop; ++v)
		if (!ss->is_reduction[v])
			par[n++] = v;
	if (sh->mode == SHAPE_ROWS) {
		seed_rows(space, c, s, sh, par, n);
		return;
	}
	if (sh->mode == SHAPE_OUTER && red_loop(ss) < 0 && sh != shapes) {
		seed_stmt(space, c, s, shapes);
		return;
	}
	first = n > EIN_GPU_MAX_MAP ? n - EIN_GPU_MAX_MAP : 0;
	for (i = first; i < n; ++i) {
		v = par[i];
		p->map[p->n_map++] = v;
		p->block[v] = p->reg[v] = 1;
	}
	if (n == 1) {
		p->block[par[0]] = sh->bi * sh->bj;
		p->reg[par[0]] = sh->ri * sh->rj;
	} else if (n > 1 && sh->mode == SHAPE_OUTER) {
		p->block[par[first]] = sh->bi;
		p->reg[par[first]] = sh->ri;
		p->block[par[n - 1]] = sh->bj;
		p->reg[par[n - 1]] = sh->rj;
	} else if (n > 1) {
		p->block[par[n - 2]] = sh->bi;
		p->reg[par[n - 2]] = sh->ri;
		p->block[par[n - 1]] = sh->bj;
		p->reg[par[n - 1]] = sh->rj;
	}
	p->kc = sh->kc;
	p->local = sh->local ? ~0 : 0;
	p->acc = sh->acc;
	p->unroll = sh->unroll;
	repair(space, c, s);
}

static int gpu_seeds(const struct ein_space *space, struct ein_cand *c,
	int max)
{
	int n, s;

	for (n = 0; n < N_SHAPES && n < max; ++n) {
		gpu_default(space, &c[n]);
		for (s = 0; s < space->n_stmt; ++s)
			seed_stmt(space, &c[n], s, &shapes[n]);
	}
	return n;
}

/* ---- random points and operators ---------------------------------------- */

/* A random power of two from 1 to "max". */
static int random_pow2(uint64_t *rng, int max)
{
	return 1 << ein_rng_below(rng, (int) log2(max) + 1);
}

/* A random plan of statement s: seeded by a random shape, then its
 * sizes drawn afresh. */
static void random_stmt(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_gpu_plan *p = &c->s[s].gpu;
	int i;

	seed_stmt(space, c, s, &shapes[ein_rng_below(rng, N_SHAPES)]);
	for (i = 0; i < p->n_map; ++i) {
		int v = p->map[i];

		p->block[v] = random_pow2(rng, MAX_BLOCK);
		p->reg[v] = random_pow2(rng, 16);
	}
	p->kc = kcs[ein_rng_below(rng, N_KC)];
	p->local = ein_rng_below(rng, 2) ? (int) ein_rng_next(rng) : 0;
	p->acc = ein_rng_below(rng, 3) != 0;
	p->unroll = ein_rng_below(rng, 4);
	repair(space, c, s);
}

static void gpu_random(const struct ein_space *space, struct ein_cand *c,
	uint64_t *rng)
{
	int s;

	gpu_default(space, c);
	for (s = 0; s < space->n_stmt; ++s)
		random_stmt(space, c, s, rng);
}

/* Each operator changes plan s of "c" (the caller repairs it). */
typedef void (*gpu_mutator_fn)(const struct ein_space *space,
	struct ein_cand *c, int s, uint64_t *rng);

/* A mapped loop of plan p, -1 if none. */
static int pick_mapped(const struct ein_gpu_plan *p, uint64_t *rng)
{
	return p->n_map ? p->map[ein_rng_below(rng, p->n_map)] : -1;
}

/* Double or halve, at random, field[v] of a mapped loop v of plan "p". */
static void double_or_halve(const struct ein_gpu_plan *p, int *field,
	uint64_t *rng)
{
	int v = pick_mapped(p, rng);

	if (v < 0)
		return;
	if (ein_rng_below(rng, 2))
		field[v] *= 2;
	else
		field[v] /= 2;
}

/* Double or halve the group's tile along a mapped loop. */
static void mutate_block(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	(void) space;
	double_or_halve(&c->s[s].gpu, c->s[s].gpu.block, rng);
}

/* Double or halve the register tile along a mapped loop. */
static void mutate_reg(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	(void) space;
	double_or_halve(&c->s[s].gpu, c->s[s].gpu.reg, rng);
}

/* Another split of the reduction (or none). */
static void mutate_kc(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	(void) space;
	c->s[s].gpu.kc = kcs[ein_rng_below(rng, N_KC)];
}

/* Copy an input to __local memory, or stop doing so. */
static void mutate_local(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_gpu_plan *p = &c->s[s].gpu;

	p->local ^= 1 << ein_rng_below(rng, space->stmt[s].n_access);
	if (p->local && !p->kc)
		p->kc = kcs[1 + ein_rng_below(rng, N_KC - 1)];
}

static void mutate_acc(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	(void) space;
	(void) rng;
	c->s[s].gpu.acc = !c->s[s].gpu.acc;
}

static void mutate_unroll(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	(void) space;
	c->s[s].gpu.unroll ^= 1 << ein_rng_below(rng, 2);
}

/* Swap two neighbouring mapped loops: another one in dimension 0 (the
 * work-items that neighbour), and the groups in another order. */
static void mutate_order(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	struct ein_gpu_plan *p = &c->s[s].gpu;
	int i, t;

	(void) space;
	if (p->n_map < 2)
		return;
	i = ein_rng_below(rng, p->n_map - 1);
	t = p->map[i];
	p->map[i] = p->map[i + 1];
	p->map[i + 1] = t;
}

/* Map one more parallel loop (across groups only), or one fewer. */
static void mutate_map(const struct ein_space *space, struct ein_cand *c,
	int s, uint64_t *rng)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	struct ein_gpu_plan *p = &c->s[s].gpu;
	int v = ein_rng_below(rng, ss->n_loop), i;

	if (ss->is_reduction[v])
		return;
	for (i = 0; i < p->n_map && p->map[i] != v; ++i)
		;
	if (i < p->n_map) {
		if (p->n_map > 1)
			p->map[i] = p->map[--p->n_map];
		return;
	}
	if (p->n_map >= EIN_GPU_MAX_MAP)
		return;
	memmove(&p->map[1], &p->map[0], p->n_map * sizeof(int));
	p->map[0] = v;
	p->n_map++;
	p->block[v] = p->reg[v] = 1;
}

/* The operators and their weights. */
static const struct {
	const char *name;
	gpu_mutator_fn fn;
	int weight;
} mutators[] = {
	{ "block", &mutate_block, 4 },
	{ "register", &mutate_reg, 3 },
	{ "split", &mutate_kc, 2 },
	{ "local", &mutate_local, 2 },
	{ "accumulate", &mutate_acc, 1 },
	{ "unroll", &mutate_unroll, 1 },
	{ "order", &mutate_order, 1 },
	{ "map", &mutate_map, 1 },
};
#define N_MUTATOR ((int) (sizeof(mutators) / sizeof(mutators[0])))

/* A statement worth changing: one with mapped loops where any has. */
static int pick_stmt(const struct ein_space *space, const struct ein_cand *c,
	uint64_t *rng)
{
	int tries;

	for (tries = 0; tries < 8; ++tries) {
		int s = ein_rng_below(rng, space->n_stmt);

		if (c->s[s].gpu.n_map > 0 && !space->stmt[s].is_init)
			return s;
	}
	return ein_rng_below(rng, space->n_stmt);
}

static const char *gpu_mutate(const struct ein_space *space,
	struct ein_cand *c, uint64_t *rng)
{
	int total = 0, r, m, s = pick_stmt(space, c, rng);

	for (m = 0; m < N_MUTATOR; ++m)
		total += mutators[m].weight;
	r = ein_rng_below(rng, total);
	for (m = 0; m < N_MUTATOR - 1 && r >= mutators[m].weight; ++m)
		r -= mutators[m].weight;
	/* The default mapping has no plan to change: start from a seed. */
	if (c->s[s].gpu.n_map == 0)
		seed_stmt(space, c, s, &shapes[ein_rng_below(rng, N_SHAPES)]);
	mutators[m].fn(space, c, s, rng);
	repair_all(space, c);
	return mutators[m].name;
}

/* A child of "a" and "b": each statement's plan from either, or for one
 * statement, the sizes of one and the rest of the other. */
static void gpu_crossover(const struct ein_space *space,
	const struct ein_cand *a, const struct ein_cand *b,
	struct ein_cand *c, uint64_t *rng)
{
	int s;

	*c = *a;
	for (s = 0; s < space->n_stmt; ++s) {
		struct ein_gpu_plan *p = &c->s[s].gpu;
		const struct ein_gpu_plan *q = &b->s[s].gpu;

		if (space->n_stmt > 1 || p->n_map != q->n_map) {
			if (ein_rng_below(rng, 2))
				*p = *q;
			continue;
		}
		if (ein_rng_below(rng, 2))
			memcpy(p->reg, q->reg, sizeof(p->reg));
		if (ein_rng_below(rng, 2))
			p->kc = q->kc;
		if (ein_rng_below(rng, 2))
			p->local = q->local;
		if (ein_rng_below(rng, 2)) {
			p->acc = q->acc;
			p->unroll = q->unroll;
		}
	}
	repair_all(space, c);
}

/* ---- printing ----------------------------------------------------------- */

/* The names of loop v's parts in plan p: the loop across groups, across
 * work-items, and in the work-item ("" where there is none). */
struct parts {
	char group[48], item[48], reg[48];
};

static void loop_parts(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p, int v, struct parts *n)
{
	const char *l = ss->loop[v];

	memset(n, 0, sizeof(*n));
	if (p->block[v] < 2) {
		snprintf(n->group, sizeof(n->group), "%s", l);
		return;
	}
	snprintf(n->group, sizeof(n->group), "%s.o", l);
	if (p->reg[v] < 2) {
		snprintf(n->item, sizeof(n->item), "%s.i", l);
		return;
	}
	snprintf(n->item, sizeof(n->item), "%s.i.o", l);
	snprintf(n->reg, sizeof(n->reg), "%s.i.i", l);
}

/* The splits of plan s. */
static void print_splits(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p, char **buf, size_t *len)
{
	int i, k = red_loop(ss);

	for (i = 0; i < p->n_map; ++i) {
		int v = p->map[i];

		if (p->block[v] < 2)
			continue;
		ein_cand_append(buf, len, "%s: split %s %d\n", ss->name,
			ss->loop[v], p->block[v]);
		if (p->reg[v] > 1)
			ein_cand_append(buf, len, "%s: split %s.i %d\n",
				ss->name, ss->loop[v], p->reg[v]);
	}
	if (p->kc)
		ein_cand_append(buf, len, "%s: split %s %d\n", ss->name,
			ss->loop[k], p->kc);
}

/* The reorder of plan s (see the head comment), the group and item loops
 * into "groups" and "items". */
static void print_order(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p, char **buf, size_t *len,
	char **groups, size_t *glen, char **items_, size_t *ilen)
{
	struct parts n[EIN_GPU_MAX_MAP];
	int i, v, k = red_loop(ss);

	for (i = 0; i < p->n_map; ++i)
		loop_parts(ss, p, p->map[i], &n[i]);
	ein_cand_append(buf, len, "%s: reorder", ss->name);
	for (i = 0; i < p->n_map; ++i) {
		ein_cand_append(buf, len, " %s", n[i].group);
		ein_cand_append(groups, glen, " %s", n[i].group);
	}
	/* Loops of one iteration (a batch of one) outside the items':
	 * inside them, they would split an accumulated tile. */
	for (v = 0; v < ss->n_loop; ++v)
		if (!ss->is_reduction[v] && !is_mapped(p, v) &&
		    ss->extent[v] <= 1)
			ein_cand_append(buf, len, " %s", ss->loop[v]);
	if (p->kc)
		ein_cand_append(buf, len, " %s.o", ss->loop[k]);
	for (i = 0; i < p->n_map; ++i)
		if (n[i].item[0]) {
			ein_cand_append(buf, len, " %s", n[i].item);
			ein_cand_append(items_, ilen, " %s", n[i].item);
		}
	for (v = 0; v < ss->n_loop; ++v)
		if (!ss->is_reduction[v] && !is_mapped(p, v) &&
		    ss->extent[v] > 1)
			ein_cand_append(buf, len, " %s", ss->loop[v]);
	for (v = 0; v < ss->n_loop; ++v)
		if (ss->is_reduction[v])
			ein_cand_append(buf, len, " %s%s", ss->loop[v],
				v == k && p->kc ? ".i" : "");
	for (i = 0; i < p->n_map; ++i)
		if (n[i].reg[0])
			ein_cand_append(buf, len, " %s", n[i].reg);
	ein_cand_append(buf, len, "\n");
}

/* The innermost work-item loop of plan p into "name", "" if none. */
static void last_item(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p, char *name, size_t size)
{
	struct parts n;
	int i;

	name[0] = '\0';
	for (i = 0; i < p->n_map; ++i) {
		loop_parts(ss, p, p->map[i], &n);
		if (n.item[0])
			snprintf(name, size, "%s", n.item);
	}
}

/* The __local copies, accumulation and unrolling of plan s. */
static void print_marks(const struct ein_space_stmt *ss,
	const struct ein_gpu_plan *p, char **buf, size_t *len)
{
	char item[48];
	int a, b, i, k = red_loop(ss);

	for (a = 0; a < ss->n_access && p->kc; ++a) {
		if (!(p->local & (1 << a)))
			continue;
		for (b = 0; b < a; ++b)
			if ((p->local & (1 << b)) &&
			    ss->access[b].tensor == ss->access[a].tensor)
				break;
		if (b == a)
			ein_cand_append(buf, len, "%s: local %s at %s.o\n",
				ss->name, ss->access[a].name, ss->loop[k]);
	}
	last_item(ss, p, item, sizeof(item));
	if (p->acc && item[0])
		ein_cand_append(buf, len, "%s: accumulate %s\n", ss->name,
			item);
	for (i = 0; (p->unroll & 1) && i < p->n_map; ++i)
		if (p->reg[p->map[i]] > 1)
			ein_cand_append(buf, len, "%s: unroll %s.i.i full\n",
				ss->name, ss->loop[p->map[i]]);
	if ((p->unroll & 2) && p->kc)
		ein_cand_append(buf, len, "%s: unroll %s.i full\n", ss->name,
			ss->loop[k]);
	if (p->vec > 1 && inner_loop(ss, p) >= 0)
		ein_cand_append(buf, len, "%s: vectorize %s %d\n", ss->name,
			ss->loop[inner_loop(ss, p)], p->vec);
}

/* The directives of plan s; none for a statement without mapped loops
 * (it runs in one work-item, or, when no statement is mapped, as the
 * default mapping maps it). */
static void print_stmt(const struct ein_space *space,
	const struct ein_cand *c, int s, char **buf, size_t *len)
{
	const struct ein_space_stmt *ss = &space->stmt[s];
	const struct ein_gpu_plan *p = &c->s[s].gpu;
	char *groups, *items_;
	size_t glen = 0, ilen = 0;

	if (p->n_map == 0)
		return;
	groups = calloc(1, 1);
	items_ = calloc(1, 1);
	print_splits(ss, p, buf, len);
	print_order(ss, p, buf, len, &groups, &glen, &items_, &ilen);
	if (groups && items_) {
		ein_cand_append(buf, len, "%s: gpu_blocks%s\n", ss->name,
			groups);
		if (ilen)
			ein_cand_append(buf, len, "%s: gpu_threads%s\n",
				ss->name, items_);
		print_marks(ss, p, buf, len);
	} else {
		free(*buf);
		*buf = NULL;
	}
	free(groups);
	free(items_);
}

static char *gpu_to_directives(const struct ein_space *space,
	const struct ein_cand *c)
{
	char *buf = calloc(1, 1);
	size_t len = 0;
	int s;

	for (s = 0; s < c->n_stmt && buf; ++s)
		print_stmt(space, c, s, &buf, &len);
	return buf;
}

/* ---- encoding and features ---------------------------------------------- */

/* Encoding: n_stmt, then per statement: n_map, the map (three), the
 * loops' block and reg tiles, kc, local, acc, unroll. */
static int gpu_encode(const struct ein_space *space, const struct ein_cand *c,
	int *v, int max)
{
	int n = 0, s, i;

	(void) space;
#define PUT(x) do { if (n < max) v[n] = (x); n++; } while (0)
	PUT(c->n_stmt);
	for (s = 0; s < c->n_stmt; ++s) {
		const struct ein_gpu_plan *p = &c->s[s].gpu;

		PUT(p->n_map);
		for (i = 0; i < EIN_GPU_MAX_MAP; ++i)
			PUT(p->map[i]);
		for (i = 0; i < EIN_SPACE_MAX_LOOP; ++i)
			PUT(p->block[i]);
		for (i = 0; i < EIN_SPACE_MAX_LOOP; ++i)
			PUT(p->reg[i]);
		PUT(p->kc);
		PUT(p->local);
		PUT(p->acc);
		PUT(p->unroll);
		PUT(p->vec);
	}
#undef PUT
	return n < max ? n : max;
}

static int gpu_decode(const struct ein_space *space, const int *v, int n,
	struct ein_cand *c)
{
	int k = 0, s, i;

#define GET(x) do { if (k >= n) return -1; (x) = v[k++]; } while (0)
	gpu_default(space, c);
	GET(c->n_stmt);
	if (c->n_stmt != space->n_stmt)
		return -1;
	for (s = 0; s < c->n_stmt; ++s) {
		struct ein_gpu_plan *p = &c->s[s].gpu;

		GET(p->n_map);
		if (p->n_map < 0 || p->n_map > EIN_GPU_MAX_MAP)
			return -1;
		for (i = 0; i < EIN_GPU_MAX_MAP; ++i)
			GET(p->map[i]);
		for (i = 0; i < EIN_SPACE_MAX_LOOP; ++i)
			GET(p->block[i]);
		for (i = 0; i < EIN_SPACE_MAX_LOOP; ++i)
			GET(p->reg[i]);
		GET(p->kc);
		GET(p->local);
		GET(p->acc);
		GET(p->unroll);
		GET(p->vec);
	}
#undef GET
	repair_all(space, c);
	return k == n ? 0 : -1;
}

/* The cost model's features (model.h) of the statement with the most
 * iterations: the work-items of a group and the groups, the register
 * tile, the split of the reduction, the __local copies, accumulation and
 * unrolling, and whether dimension 0 runs along the output's contiguous
 * index (f[0], the intercept, is the caller's). */
static void gpu_features(const struct ein_space *space,
	const struct ein_cand *c, double *f)
{
	int s, best = 0, v, i;
	double most = -1, groups = 1;
	const struct ein_gpu_plan *p;
	const struct ein_space_stmt *ss;

	for (s = 0; s < space->n_stmt; ++s) {
		double it = 1;

		for (v = 0; v < space->stmt[s].n_loop; ++v)
			it *= space->stmt[s].extent[v];
		if (it > most && !space->stmt[s].is_init) {
			most = it;
			best = s;
		}
	}
	ss = &space->stmt[best];
	p = &c->s[best].gpu;
	for (i = 0; i < p->n_map; ++i)
		groups *= (double) (ss->extent[p->map[i]] +
			p->block[p->map[i]] - 1) / p->block[p->map[i]];
	f[1] = p->n_map > 0;
	f[2] = log2((double) items(p)) / 10;
	f[3] = log2(groups) / 10;
	f[4] = log2((double) reg_elems(p)) / 6;
	f[5] = log2(1 + p->kc) / 6;
	for (i = 0; i < EIN_SPACE_MAX_ACCESS; ++i)
		f[6] += (p->local >> i) & 1;
	f[7] = p->acc;
	f[8] = p->unroll & 1;
	f[9] = (p->unroll >> 1) & 1;
	if (p->n_map > 0 && ss->n_access > 0) {
		const struct ein_space_access *w = &ss->access[0];
		int last = p->map[p->n_map - 1];

		f[10] = w->n_dim > 0 && w->coef[w->n_dim - 1][last] == 1;
		f[11] = log2((double) p->block[last]) / 9;
	}
	f[12] = (double) items(p) / space->device.max_group;
}

const struct ein_cand_gen ein_cand_gen_gpu = {
	.init = &gpu_default,
	.seeds = &gpu_seeds,
	.random = &gpu_random,
	.mutate = &gpu_mutate,
	.crossover = &gpu_crossover,
	.to_directives = &gpu_to_directives,
	.encode = &gpu_encode,
	.decode = &gpu_decode,
	.features = &gpu_features,
};
