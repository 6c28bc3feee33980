/*
 * space.c: the search space of a definition: its statements as schedule
 * files name them, their default loops with extents at the tuning sizes,
 * their accesses as coefficient matrices, the tile sizes worth trying, and
 * the machine (caches, vector width, threads).
 *
 * The statements and loops come from the compiler's own model (the scop
 * and the default schedule), so the names are exactly those the
 * directives are checked against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <isl/set.h>
#include <isl/aff.h>
#include <isl/val.h>
#include <isl/ilp.h>
#include "ctx.h"
#include "diag.h"
#include "driver/program.h"
#include "frontend/sema.h"
#include "frontend/type.h"
#include "poly/scop.h"
#include "poly/specialize.h"
#include "sched/schedule.h"
#include "sched/lookup.h"
#include "autotune/space.h"

/* The size in bytes of a cache size text such as "32K" or "8M", 0 if
 * unreadable. */
static long read_cache_size(const char *dir)
{
	char path[256], buf[64];
	FILE *f;
	long v = 0;
	char unit = 0;

	snprintf(path, sizeof(path), "%s/size", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%ld%c", &v, &unit) >= 1)
		v *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
	fclose(f);
	return v;
}

/* The level of cache "dir" (1, 2, 3), 0 for an instruction cache or an
 * unreadable one. */
static int read_cache_level(const char *dir)
{
	char path[256], buf[64];
	FILE *f;
	int level = 0;

	snprintf(path, sizeof(path), "%s/type", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, "Instruction", 11)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/level", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%d", &level) != 1)
		level = 0;
	fclose(f);
	return level;
}

void ein_machine_detect(struct ein_machine *m, const char *target)
{
	struct ein_sched_vector_unit unit;
	int i;
	long n;

	m->cache[0] = 32 * 1024;
	m->cache[1] = 512 * 1024;
	m->cache[2] = 8 * 1024 * 1024;
	for (i = 0; i < 8; ++i) {
		char dir[128];
		int level;
		long size;

		snprintf(dir, sizeof(dir),
			"/sys/devices/system/cpu/cpu0/cache/index%d", i);
		level = read_cache_level(dir);
		size = read_cache_size(dir);
		if (level >= 1 && level <= 3 && size > 0)
			m->cache[level - 1] = size;
	}
	unit = ein_sched_target_vectors(target);
	m->vector_lanes = unit.bytes / 4;
	m->n_vreg = unit.registers;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	m->n_threads = ein_get_num_threads();
	if (m->n_threads < 1)
		m->n_threads = n > 0 ? (int) n : 1;
}

/* The name schedule files give polyhedral statement "st": the tensor it
 * writes, "#k" for the k-th statement writing it (k > 1), ".init". */
static void stmt_name(const struct ein_scop *scop,
	const struct ein_scop_stmt *st, char *buf, size_t len)
{
	const struct ein_func *func = scop->func;
	int t = st->access[0].tensor, occ = 0, i;

	for (i = 0; i <= st->src; ++i)
		if (ein_func_find_tensor(func,
			func->stmt[i].ast->lhs->name) == t)
			occ++;
	snprintf(buf, len, "%s", func->tensor[t].name);
	if (occ > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), "#%d", occ);
	if (st->is_init)
		snprintf(buf + strlen(buf), len - strlen(buf), ".init");
}

/* The domain of "st" with the sizes fixed to their values. */
static __isl_give isl_set *fixed_domain(const struct ein_func *func,
	const struct ein_scop_stmt *st, const int64_t *sizes)
{
	isl_set *dom = isl_set_copy(st->domain);
	int i;

	for (i = 0; i < func->n_size; ++i) {
		int pos = isl_set_find_dim_by_name(dom, isl_dim_param,
			func->size[i]);

		if (pos >= 0)
			dom = ein_specialize_fix(dom, isl_dim_param, pos,
				sizes[i]);
	}
	return dom;
}

/* The number of values dimension "pos" of "dom" takes (max - min + 1),
 * 1 if unbounded or empty. */
static long dim_extent(__isl_keep isl_set *dom, int pos)
{
	isl_val *lo = isl_pw_aff_min_val(isl_set_dim_min(isl_set_copy(dom),
		pos));
	isl_val *hi = isl_pw_aff_max_val(isl_set_dim_max(isl_set_copy(dom),
		pos));
	long e = 1;

	if (lo && hi && isl_val_is_int(lo) && isl_val_is_int(hi))
		e = isl_val_get_num_si(hi) - isl_val_get_num_si(lo) + 1;
	isl_val_free(lo);
	isl_val_free(hi);
	return e > 0 ? e : 1;
}

/* Record in *coef the coefficients of piece "aff" (the first piece of
 * each dimension is enough: pieces differ only under guards). */
static isl_stat piece_coef(__isl_take isl_set *set, __isl_take isl_aff *aff,
	void *user)
{
	int *coef = user, n = isl_aff_dim(aff, isl_dim_in), v;

	for (v = 0; v < n && v < EIN_SPACE_MAX_LOOP; ++v) {
		isl_val *c = isl_aff_get_coefficient_val(aff, isl_dim_in, v);

		if (c && isl_val_is_int(c))
			coef[v] = (int) isl_val_get_num_si(c);
		isl_val_free(c);
	}
	isl_set_free(set);
	isl_aff_free(aff);
	return isl_stat_error;	/* one piece */
}

/* Fill "sa" from access "acc" of a statement whose domain dimension
 * dim_of_loop[v] is its default loop v. */
static void init_access(struct ein_space_access *sa,
	const struct ein_func *func, const struct ein_scop_access *acc,
	const int *dim_of_loop, int n_loop)
{
	int d, v, n = isl_multi_pw_aff_dim(acc->index, isl_dim_out);

	memset(sa, 0, sizeof(*sa));
	sa->tensor = acc->tensor;
	snprintf(sa->name, sizeof(sa->name), "%s",
		func->tensor[acc->tensor].name);
	sa->is_write = acc->is_write;
	sa->elem_size = ein_type_size(func->tensor[acc->tensor].type);
	sa->n_dim = n < EIN_SPACE_MAX_DIM ? n : EIN_SPACE_MAX_DIM;
	for (d = 0; d < sa->n_dim; ++d) {
		int by_dim[EIN_SPACE_MAX_LOOP] = { 0 };
		isl_pw_aff *pa = isl_multi_pw_aff_get_at(acc->index, d);

		isl_pw_aff_foreach_piece(pa, &piece_coef, by_dim);
		isl_pw_aff_free(pa);
		for (v = 0; v < n_loop; ++v)
			sa->coef[d][v] = by_dim[dim_of_loop[v]];
	}
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *) a - *(const int *) b;
}

/* Add "t" to the tile sizes of loop v unless present or out of range. */
static void add_choice(struct ein_space_stmt *ss, int v, long t)
{
	int i;

	if (t < 2 || t >= ss->extent[v] ||
	    ss->n_choice[v] >= EIN_SPACE_MAX_CHOICE)
		return;
	for (i = 0; i < ss->n_choice[v]; ++i)
		if (ss->choice[v][i] == t)
			return;
	ss->choice[v][ss->n_choice[v]++] = (int) t;
}

/* The tile sizes of loop v: powers of two, multiples of the vector
 * width and divisors of the extent, below the extent and below a bound
 * that keeps a square tile of floats within the L2 cache. */
static void init_choices(struct ein_space_stmt *ss, int v,
	const struct ein_machine *m)
{
	long bound = 2, t, w = m->vector_lanes;

	while ((bound * 2) * (bound * 2) * 4 <= m->cache[1])
		bound *= 2;
	bound *= 2;
	ss->n_choice[v] = 0;
	for (t = 2; t <= bound; t *= 2)
		add_choice(ss, v, t);
	for (t = 3 * w; t <= bound && t <= 12 * w; t += 2 * w)
		add_choice(ss, v, t);
	for (t = 3; t <= bound && t * t <= ss->extent[v] * 64; ++t)
		if (ss->extent[v] % t == 0)
			add_choice(ss, v, t);
	qsort(ss->choice[v], ss->n_choice[v], sizeof(int), &int_cmp);
}

/* Fill "ss" from statement "stmt" of the default schedule "sched". */
static int init_stmt(struct ein_space_stmt *ss, struct ein_scop *scop,
	struct ein_schedule *sched, int stmt, const int64_t *sizes,
	const struct ein_machine *m)
{
	struct ein_scop_stmt *st = ein_schedule_get_stmt(sched, stmt);
	const struct ein_func_stmt *fs = &scop->func->stmt[st->src];
	int dim_of_loop[EIN_SPACE_MAX_LOOP], v, a;
	isl_set *dom;

	memset(ss, 0, sizeof(*ss));
	stmt_name(scop, st, ss->name, sizeof(ss->name));
	ss->tensor = st->access[0].tensor;
	ss->is_init = st->is_init;
	ss->n_loop = ein_schedule_n_loop(sched, stmt);
	if (ss->n_loop > EIN_SPACE_MAX_LOOP ||
	    st->n_access > EIN_SPACE_MAX_ACCESS)
		return -1;
	dom = fixed_domain(scop->func, st, sizes);
	for (v = 0; v < ss->n_loop; ++v) {
		const char *name = ein_schedule_loop_name(sched, stmt, v);
		int d;

		snprintf(ss->loop[v], sizeof(ss->loop[v]), "%s", name);
		for (d = 0; d < fs->n_index; ++d)
			if (!strcmp(fs->index[d], name))
				break;
		dim_of_loop[v] = d < fs->n_index ? d : v;
		ss->is_reduction[v] = d >= fs->n_lhs;
		ss->extent[v] = dim_extent(dom, dim_of_loop[v]);
		init_choices(ss, v, m);
	}
	isl_set_free(dom);
	ss->n_access = st->n_access;
	for (a = 0; a < st->n_access; ++a)
		init_access(&ss->access[a], scop->func, &st->access[a],
			dim_of_loop, ss->n_loop);
	return 0;
}

int ein_space_init(struct ein_space *space, ein_program *prog,
	const char *def, ein_kernel *k, const int64_t *sizes,
	const char *target)
{
	ein_ctx *ctx = ein_program_get_ctx(prog);
	const struct ein_func *func = ein_program_get_func(prog, def);
	struct ein_scop *scop;
	struct ein_schedule *sched;
	int s, r = 0;
	char *host = target ? NULL : ein_target_host_name(ctx);

	memset(space, 0, sizeof(*space));
	space->gen = &ein_cand_gen_cpu;
	ein_machine_detect(&space->machine, target ? target : host);
	free(host);
	space->flops = ein_space_work(k, sizes, ein_kernel_n_size(k),
		&space->unit);
	if (!func)
		return -1;
	scop = ein_scop_from_func(ctx, func);
	sched = scop ? ein_schedule_default(scop) : NULL;
	if (!sched) {
		ein_scop_free(scop);
		return -1;
	}
	space->n_stmt = ein_schedule_n_stmt(sched);
	if (space->n_stmt > EIN_SPACE_MAX_STMT)
		r = -1;
	for (s = 0; r == 0 && s < space->n_stmt; ++s)
		r = init_stmt(&space->stmt[s], scop, sched, s, sizes,
			&space->machine);
	if (r < 0)
		ein_error(ctx, EIN_ERROR_UNSUPPORTED, "ein tune: definition "
			"too large to tune (at most %d statements of %d loops "
			"and %d accesses)", EIN_SPACE_MAX_STMT,
			EIN_SPACE_MAX_LOOP, EIN_SPACE_MAX_ACCESS);
	ein_schedule_free(sched);
	ein_scop_free(scop);
	return r;
}

void ein_space_set_gpu(struct ein_space *space,
	const struct ein_gpu_device *device)
{
	space->gen = &ein_cand_gen_gpu;
	space->device = *device;
}

/* ---- candidates, by the space's generator ------------------------------ */

void ein_cand_default(const struct ein_space *space, struct ein_cand *c)
{
	space->gen->init(space, c);
}

int ein_cand_seeds(const struct ein_space *space, struct ein_cand *c,
	int max)
{
	return space->gen->seeds(space, c, max);
}

void ein_cand_random(const struct ein_space *space, struct ein_cand *c,
	uint64_t *rng)
{
	space->gen->random(space, c, rng);
}

const char *ein_cand_mutate(const struct ein_space *space,
	struct ein_cand *c, uint64_t *rng)
{
	return space->gen->mutate(space, c, rng);
}

void ein_cand_crossover(const struct ein_space *space,
	const struct ein_cand *a, const struct ein_cand *b,
	struct ein_cand *c, uint64_t *rng)
{
	space->gen->crossover(space, a, b, c, rng);
}

char *ein_cand_to_directives(const struct ein_space *space,
	const struct ein_cand *c)
{
	return space->gen->to_directives(space, c);
}

int ein_cand_encode(const struct ein_space *space, const struct ein_cand *c,
	int *v, int max)
{
	return space->gen->encode(space, c, v, max);
}

int ein_cand_decode(const struct ein_space *space, const int *v, int n,
	struct ein_cand *c)
{
	return space->gen->decode(space, v, n, c);
}

double ein_space_work(ein_kernel *k, const int64_t *sizes, int n_size,
	const char **unit)
{
	double flops = ein_kernel_flops(k, sizes, n_size);

	if (unit)
		*unit = flops == 0 ? "GOP/s" : "GFLOP/s";
	return flops == 0 ? ein_kernel_ops(k, sizes, n_size) : flops;
}
