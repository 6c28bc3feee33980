/*
 * apply.c: directives, one at a time, then the legality check.
 *
 * The check runs once, after the last directive; when it fails, the
 * directives are replayed with a check after each, which is what lets
 * an error name the directive that broke a dependence.  The checks
 * are those of deps.h on the flat schedule: the order of every
 * dependence, and no dependence carried by a parallel or vectorised loop;
 * and for the local buffers of pack and accumulate, that nothing else in
 * the loop writes a packed tensor or accesses an accumulated one (the
 * copies then keep every dependence).  Once all directives are applied,
 * sched/pack.c turns the local buffers into buffers and copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/aff.h>
#include <isl/set.h>
#include <isl/local_space.h>
#include "diag.h"
#include "sched/apply.h"
#include "sched/pack.h"
#include "sched/prefetch.h"
#include "sched/contract.h"
#include "sched/recompute.h"
#include "sched/gpu_map.h"

/* pending, pending_msg: the directive after which the schedule became
 * illegal (and has stayed so), with the message that says why. */
struct apply {
	ein_ctx *ctx;
	struct ein_schedule *s;
	const struct ein_deps *deps;
	int strict;
	int gpu;
	const struct ein_sched_directive *dir;
	const struct ein_sched_directive *pending;
	char *pending_msg;
};

/* The name of the tensor source statement "k" writes. */
static const char *lhs_name(const struct ein_func *func, int k)
{
	return func->tensor[func->stmt[k].ast->lhs->slot].name;
}

/* "A, B, C": the tensors the statements write, each once. */
static void hint_written(ein_ctx *ctx, const struct ein_func *func)
{
	char buf[512] = "";
	int k, j;

	for (k = 0; k < func->n_stmt; ++k) {
		for (j = 0; j < k; ++j)
			if (!strcmp(lhs_name(func, j), lhs_name(func, k)))
				break;
		if (j < k || strlen(buf) + strlen(lhs_name(func, k)) + 3 >=
				sizeof(buf))
			continue;
		if (buf[0])
			strcat(buf, ", ");
		strcat(buf, lhs_name(func, k));
	}
	ein_hint(ctx, "the statements write %s", buf);
}

/* The source statement "ref" names, -1 after an error. */
static int find_source_stmt(struct apply *a,
	const struct ein_sched_stmt_ref *ref)
{
	const struct ein_func *func = a->deps->scop->func;
	int k, count = 0;

	for (k = 0; k < func->n_stmt; ++k)
		if (!strcmp(lhs_name(func, k), ref->tensor) &&
		    ++count == ref->occurrence)
			return k;
	if (count == 0) {
		ein_error_at(a->ctx, ref->loc, "no statement writes '%s'",
			ref->tensor);
		hint_written(a->ctx, func);
	} else
		ein_error_at(a->ctx, ref->loc, "'%s#%d': only %d statement%s "
			"write%s '%s'", ref->tensor, ref->occurrence, count,
			count > 1 ? "s" : "", count > 1 ? "" : "s",
			ref->tensor);
	return -1;
}

/* The polyhedral statement (position in the schedule) "ref" names, -1
 * after an error. */
static int find_stmt(struct apply *a, const struct ein_sched_stmt_ref *ref)
{
	int src = find_source_stmt(a, ref), i;

	if (src < 0)
		return -1;
	for (i = 0; i < ein_schedule_n_stmt(a->s); ++i) {
		struct ein_scop_stmt *stmt = ein_schedule_get_stmt(a->s, i);

		if (stmt->kind == EIN_STMT_COMPUTE && stmt->src == src &&
		    stmt->is_init == ref->is_init)
			return i;
	}
	ein_error_at(a->ctx, ref->loc, "'%s' has no initialisation",
		ref->tensor);
	ein_hint(a->ctx, "only statements with a '!' operator (such as "
		"'+=!') have one");
	return -1;
}

static int find_loop_named(struct apply *a, int stmt, const char *name,
	struct ein_loc loc)
{
	int pos = ein_schedule_find_loop(a->s, stmt, name);
	char *names;

	if (pos >= 0)
		return pos;
	names = ein_schedule_loop_names(a->s, stmt);
	ein_error_at(a->ctx, loc, "statement %s has no loop '%s'",
		a->dir->stmt.tensor, name);
	ein_hint(a->ctx, names && names[0] ? "its loops are %s" :
		"it has no loops%s", names && names[0] ? names : "");
	free(names);
	return -1;
}

static int find_loop(struct apply *a, int stmt, const struct ein_sched_arg *arg)
{
	return find_loop_named(a, stmt, arg->name, arg->loc);
}

/* Find the loop "arg" names to split it: a loop that holds a local
 * buffer cannot be (neither part iterates as it did). */
static int find_loop_to_split(struct apply *a, int stmt,
	const struct ein_sched_arg *arg)
{
	int loop = find_loop(a, stmt, arg);

	if (loop < 0 || ein_schedule_n_local(a->s, stmt, loop) == 0)
		return loop;
	ein_error_at(a->ctx, arg->loc, "cannot split loop '%s' of %s: a "
		"pack, accumulate or prefetch directive works in it",
		arg->name, a->dir->stmt.tensor);
	ein_hint(a->ctx, "split or tile the loop before packing, "
		"accumulating or prefetching in it");
	return -1;
}

static int do_split(struct apply *a, int stmt)
{
	int loop = find_loop_to_split(a, stmt, &a->dir->arg[0]);

	if (loop < 0)
		return -1;
	return ein_schedule_split(a->s, stmt, loop, a->dir->arg[1].value);
}

/* Is loop name "name" one of the n tiled loops "tiled", with suffix
 * "suffix" ("" for the loop before the split)? */
static int tiled_index(const char *name, int n, const char *const *tiled,
	const char *suffix)
{
	int k;
	size_t len;

	for (k = 0; k < n; ++k) {
		len = strlen(tiled[k]);
		if (!strncmp(name, tiled[k], len) &&
		    !strcmp(name + len, suffix))
			return k;
	}
	return -1;
}

/* Split each loop of the tile, then order the loops: those before the
 * outermost tiled loop, the outer loops of the tile in the order given,
 * the untiled loops that were between tiled ones, the inner loops of the
 * tile in the order given, then the rest. */
static int do_tile(struct apply *a, int stmt)
{
	int n = a->dir->n_arg / 2, k, m, first = -1, last = -1, n_loop;
	const char *tiled[n + 1];

	for (k = 0; k < n; ++k) {
		int loop = find_loop_to_split(a, stmt, &a->dir->arg[2 * k]);

		if (loop < 0)
			return -1;
		tiled[k] = a->dir->arg[2 * k].name;
		if (first < 0 || loop < first)
			first = loop;
		if (loop > last)
			last = loop;
	}
	last += n;
	for (k = 0; k < n; ++k)
		if (ein_schedule_split(a->s, stmt, ein_schedule_find_loop(a->s,
				stmt, tiled[k]), a->dir->arg[2 * k + 1].value))
			return -1;
	n_loop = ein_schedule_n_loop(a->s, stmt);
	{
		int order[n_loop + 1];

		m = 0;
		for (k = 0; k < first; ++k)
			order[m++] = k;
		for (k = 0; k < n; ++k) {
			char name[strlen(tiled[k]) + 3];

			sprintf(name, "%s.o", tiled[k]);
			order[m++] = ein_schedule_find_loop(a->s, stmt, name);
		}
		for (k = first; k <= last; ++k) {
			const char *name = ein_schedule_loop_name(a->s, stmt,
				k);

			if (tiled_index(name, n, tiled, ".o") < 0 &&
			    tiled_index(name, n, tiled, ".i") < 0)
				order[m++] = k;
		}
		for (k = 0; k < n; ++k) {
			char name[strlen(tiled[k]) + 3];

			sprintf(name, "%s.i", tiled[k]);
			order[m++] = ein_schedule_find_loop(a->s, stmt, name);
		}
		for (k = last + 1; k < n_loop; ++k)
			order[m++] = k;
		return ein_schedule_reorder(a->s, stmt, m, order);
	}
}

static int do_reorder(struct apply *a, int stmt)
{
	int n = a->dir->n_arg, k, loop[n + 1];

	for (k = 0; k < n; ++k) {
		loop[k] = find_loop(a, stmt, &a->dir->arg[k]);
		if (loop[k] < 0)
			return -1;
	}
	return ein_schedule_reorder(a->s, stmt, n, loop);
}

/* The most iterations "unroll full" accepts: a complete unroll is for
 * register tiles, not for copying a loop body thousands of times. */
#define MAX_FULL_UNROLL 256

/* "unroll LOOP full" needs a trip count bounded by a constant. */
static int check_full_unroll(struct apply *a, int stmt, int loop)
{
	long bound;
	const char *name = ein_schedule_loop_name(a->s, stmt, loop);
	int bounded = ein_schedule_loop_trip_bound(a->s, stmt, loop,
		&bound) == 0;

	if (bounded && bound <= MAX_FULL_UNROLL)
		return 0;
	if (bounded)
		ein_error_at(a->ctx, a->dir->arg[1].loc, "cannot unroll loop "
			"'%s' fully: it runs up to %ld iterations (at most %d)",
			name, bound, MAX_FULL_UNROLL);
	else
		ein_error_at(a->ctx, a->dir->arg[1].loc, "cannot unroll loop "
			"'%s' fully: its number of iterations is not bounded "
			"by a constant", name);
	ein_hint(a->ctx, "split it first (for instance '%s: split %s 8') "
		"and unroll the inner loop", a->dir->stmt.tensor, name);
	return -1;
}

/* The largest unroll factor and vector width a schedule may ask for.
 * LLVM copies the body that many times, or makes vectors of that many
 * lanes, and its passes grow faster than linearly with either: unroll
 * 100000 and vectorize 65536 never finished compiling (or crashed it),
 * unroll 1024 of a one-line body took 5 s, unroll 256 0.5 s.  A register
 * tile needs 4 to 32; the widest vector of a machine is 64 bytes, so 256
 * lanes are four vector registers even of int8. */
#define MAX_UNROLL 256
#define MAX_VECTOR_WIDTH 256

/* The most copies of a loop that the loops unrolled around it may ask
 * LLVM for (the product of their unroll factors, and of the iterations of
 * those unrolled fully).  Each factor within its cap, a loop nested in
 * unrolled loops still made LLVM run for minutes: LLVM vectorises and
 * unrolls each copy on its own (one statement, "unroll i 64" over
 * "vectorize j 8": 10 s; "unroll i 128" with "vectorize j 4": 31 s;
 * "unroll i 256" with "vectorize j 2": over 100 s; at the cap, "unroll i
 * 32" with "vectorize j 8": 2.6 s).  The register tiles of the schedules
 * in schedules/ and bench/ ask for at most 28 (conv3x3's 14 x 2). */
#define MAX_LOOP_COPIES 32

/* The most copies of a loop of "stmt" that the loops unrolled around it
 * ask for (see MAX_LOOP_COPIES), or MAX_LOOP_COPIES + 1 if more.  A loop
 * unrolled fully is no loop and needs no copies counted. */
static long n_loop_copies(struct apply *a, int stmt)
{
	long n = 1, max = 1, bound;
	int l;

	for (l = 0; l < ein_schedule_n_loop(a->s, stmt); ++l) {
		struct ein_loop_attr *attr = ein_schedule_loop_attr(a->s,
			stmt, l);

		if (attr->unroll >= 0 && n > max)
			max = n;
		if (attr->unroll > 0)
			n *= attr->unroll;
		else if (attr->unroll < 0 && ein_schedule_loop_trip_bound(
				a->s, stmt, l, &bound) == 0)
			n *= bound;
		if (n > MAX_LOOP_COPIES * 256L)
			n = MAX_LOOP_COPIES * 256L;
	}
	return max;
}

/* The factor of a "vectorize" or "unroll" directive is over its cap
 * "max"; "what" names it. */
static int factor_error(struct apply *a, const char *what, int max)
{
	const char *verb = a->dir->verb == EIN_SCHED_VECTORIZE ?
		"vectorize" : "unroll";

	ein_error_at(a->ctx, a->dir->arg[1].loc, "%s %ld is too large "
		"(at most %d)", what, a->dir->arg[1].value, max);
	ein_hint(a->ctx, "split the loop first (for instance '%s: split "
		"%s 16') and %s the inner loop", a->dir->stmt.tensor,
		a->dir->arg[0].name, verb);
	return -1;
}

/* Do the loops unrolled around each loop of "stmt", with the directive
 * just applied, make at most MAX_LOOP_COPIES copies of it? */
static int check_copies(struct apply *a, int stmt)
{
	long n = n_loop_copies(a, stmt);

	if (n <= MAX_LOOP_COPIES)
		return 0;
	ein_error_at(a->ctx, a->dir->verb_loc, "the loops unrolled around a "
		"loop of %s ask for more than %d copies of it",
		a->dir->stmt.tensor, MAX_LOOP_COPIES);
	ein_hint(a->ctx, "unroll the outer loops by smaller factors, or "
		"unroll the inner loop fully");
	return -1;
}

/* Does loop "loop" of "stmt" prefetch? */
static int prefetches(struct ein_schedule *s, int stmt, int loop)
{
	int j;

	for (j = 0; j < ein_schedule_n_local(s, stmt, loop); ++j)
		if (ein_schedule_get_local(s, stmt, loop, j)->kind ==
				EIN_LOCAL_PREFETCH)
			return 1;
	return 0;
}

/* A prefetch in the body of a vectorised loop would be a call there, on
 * which LLVM's loop vectoriser gives up. */
static int vector_prefetch_error(struct apply *a, int stmt, int loop)
{
	ein_error_at(a->ctx, a->dir->verb_loc, "loop '%s' of %s cannot both "
		"be vectorised and prefetch",
		ein_schedule_loop_name(a->s, stmt, loop), a->dir->stmt.tensor);
	ein_hint(a->ctx, "split it and prefetch in the outer loop, once per "
		"vector: 'split j 16', 'vectorize j.i 16', 'prefetch X at j.o "
		"from i'");
	return -1;
}

static int do_mark(struct apply *a, int stmt)
{
	int loop = find_loop(a, stmt, &a->dir->arg[0]);
	struct ein_loop_attr *attr;

	if (loop < 0)
		return -1;
	if (a->dir->verb == EIN_SCHED_VECTORIZE &&
	    prefetches(a->s, stmt, loop))
		return vector_prefetch_error(a, stmt, loop);
	attr = ein_schedule_loop_attr(a->s, stmt, loop);
	switch (a->dir->verb) {
	case EIN_SCHED_PARALLEL:
		attr->parallel = 1;
		break;
	case EIN_SCHED_VECTORIZE:
		if (a->dir->arg[1].value > MAX_VECTOR_WIDTH)
			return factor_error(a, "vector width",
				MAX_VECTOR_WIDTH);
		attr->vector = a->dir->arg[1].value;
		break;
	case EIN_SCHED_STREAM:
		attr->stream = 1;
		break;
	default:
		if (a->dir->arg[1].kind == EIN_SCHED_ARG_INT &&
		    a->dir->arg[1].value > MAX_UNROLL)
			return factor_error(a, "unroll factor", MAX_UNROLL);
		attr->unroll = a->dir->arg[1].kind == EIN_SCHED_ARG_INT ?
			a->dir->arg[1].value : -1;
		if (attr->unroll < 0 && check_full_unroll(a, stmt, loop) < 0)
			return -1;
		break;
	}
	return check_copies(a, stmt);
}

/* The number of levels of "target"'s vector up to and including its loop
 * "loop". */
static int level_of(struct ein_schedule *s, int target, int loop)
{
	return (ein_schedule_loop_dim(s, target, loop) - 1) / 2 + 1;
}

static int place(struct apply *a, int stmt, int target, int level,
	int compute_at)
{
	const char *why;

	if (stmt == target) {
		ein_error_at(a->ctx, a->dir->arg[0].loc, "a statement cannot "
			"be placed in its own loops");
		return -1;
	}
	if (ein_schedule_get_parent(a->s, stmt) >= 0) {
		ein_error_at(a->ctx, a->dir->verb_loc, "statement %s is "
			"already placed in another's loops",
			a->dir->stmt.tensor);
		return -1;
	}
	if (ein_schedule_place(a->s, stmt, target, level, compute_at,
			&why) < 0) {
		ein_error_at(a->ctx, a->dir->verb_loc, "cannot %s %s there: "
			"%s", ein_sched_verb_name(a->dir->verb),
			a->dir->stmt.tensor, why ? why : "isl failed");
		return -1;
	}
	return 0;
}

/* Why statement "stmt" cannot be recomputed in "target", NULL if it can:
 * its values must not depend on where or how often it runs. */
static const char *recompute_why(struct apply *a, int stmt, int target)
{
	const struct ein_func *func = a->deps->scop->func;
	const struct ein_scop_stmt *st = ein_schedule_get_stmt(a->s, stmt);
	int t = st->access[0].tensor, i, k;

	if (st->is_init || ein_schedule_get_init(a->s, stmt) >= 0 ||
	    func->stmt[st->src].ast->op != EIN_ASSIGN_SET)
		return "it is a reduction ('=' statements only)";
	if (func->tensor[t].role != EIN_ROLE_TEMP)
		return "it writes an output (temporaries only)";
	for (k = 1; k < st->n_access; ++k)
		if (func->tensor[st->access[k].tensor].role != EIN_ROLE_INPUT)
			return "it reads a tensor that is not an input";
	for (i = 0; i < ein_schedule_n_stmt(a->s); ++i) {
		const struct ein_scop_stmt *o = ein_schedule_get_stmt(a->s, i);

		if (i == stmt || i == target)
			continue;
		for (k = 0; k < o->n_access; ++k)
			if (o->access[k].tensor == t)
				return "another statement than the target "
					"accesses its tensor";
	}
	return NULL;
}

static int check_recompute(struct apply *a, int stmt, int target)
{
	const char *why = recompute_why(a, stmt, target);

	if (!why)
		return 0;
	ein_error_at(a->ctx, a->dir->arg[2].loc, "cannot recompute %s: %s",
		a->dir->stmt.tensor, why);
	ein_hint(a->ctx, "'store' (the default) computes each element once, "
		"in the iteration that first needs it");
	return -1;
}

/* compute_at TARGET LOOP [store | recompute]: the statement, and its
 * initialisation with it, run inside TARGET's LOOP where it is first
 * needed (recompute: in every iteration that needs it, recompute.h). */
static int do_compute_at(struct apply *a, int stmt)
{
	const struct ein_sched_arg *arg = a->dir->arg;
	int target = find_stmt(a, &arg[0].stmt), loop, level, init, recompute;

	if (target < 0)
		return -1;
	loop = find_loop_named(a, target, arg[1].name, arg[1].loc);
	if (loop < 0)
		return -1;
	recompute = a->dir->n_arg > 2 && !strcmp(arg[2].name, "recompute");
	if (recompute && check_recompute(a, stmt, target) < 0)
		return -1;
	level = level_of(a->s, target, loop);
	ein_schedule_set_recompute(a->s, stmt, recompute);
	if (place(a, stmt, target, level, 1) < 0) {
		ein_schedule_set_recompute(a->s, stmt, 0);
		return -1;
	}
	init = ein_schedule_get_init(a->s, stmt);
	if (init >= 0 && ein_schedule_get_parent(a->s, init) < 0)
		return place(a, init, target, level, 1);
	return 0;
}

/* fuse TARGET [N]: the first N loops (default: as many as both have) of
 * the statement run as TARGET's. */
static int do_fuse(struct apply *a, int stmt)
{
	const struct ein_sched_arg *arg = a->dir->arg;
	int target = find_stmt(a, &arg[0].stmt), n, mine, theirs;

	if (target < 0)
		return -1;
	mine = ein_schedule_n_loop(a->s, stmt);
	theirs = ein_schedule_n_loop(a->s, target);
	n = mine < theirs ? mine : theirs;
	if (a->dir->n_arg > 1) {
		if (arg[1].value > n) {
			ein_error_at(a->ctx, arg[1].loc, "cannot fuse %ld "
				"loops: %s has %d and %s has %d",
				arg[1].value, a->dir->stmt.tensor, mine,
				arg[0].stmt.tensor, theirs);
			return -1;
		}
		n = arg[1].value;
	}
	if (n == 0) {
		ein_error_at(a->ctx, a->dir->verb_loc, "there are no loops to "
			"fuse");
		return -1;
	}
	return place(a, stmt, target, level_of(a->s, target, n - 1), 0);
}

/* The position of the tensor named "name" in the definition, -1 if
 * none. */
static int find_tensor(const struct ein_func *func, const char *name)
{
	int t;

	for (t = 0; t < func->n_tensor; ++t)
		if (!strcmp(func->tensor[t].name, name))
			return t;
	return -1;
}

/* Does statement "stmt" access tensor "t" (only reads if "reads")? */
static int stmt_accesses(struct ein_schedule *s, int stmt, int t, int reads)
{
	const struct ein_scop_stmt *st = ein_schedule_get_stmt(s, stmt);
	int k;

	for (k = 0; k < st->n_access; ++k)
		if (!(reads && st->access[k].is_write) &&
		    st->access[k].tensor == t)
			return 1;
	return 0;
}

/* Does statement "stmt" read tensor "t"? */
static int stmt_reads(struct ein_schedule *s, int stmt, int t)
{
	return stmt_accesses(s, stmt, t, 1);
}

/* "the statement reads A, B" as a hint. */
static void hint_read(struct apply *a, int stmt)
{
	const struct ein_func *func = a->deps->scop->func;
	char buf[512] = "";
	int t;

	for (t = 0; t < func->n_tensor; ++t) {
		const char *name = func->tensor[t].name;

		if (!stmt_reads(a->s, stmt, t) ||
		    strlen(buf) + strlen(name) + 3 >= sizeof(buf))
			continue;
		if (buf[0])
			strcat(buf, ", ");
		strcat(buf, name);
	}
	if (buf[0])
		ein_hint(a->ctx, "statement %s reads %s", a->dir->stmt.tensor,
			buf);
	else
		ein_hint(a->ctx, "statement %s reads no tensor",
			a->dir->stmt.tensor);
}

/* The loop of "stmt" in which it already has a local buffer of kind
 * "kind" (of tensor "t" for a pack), -1 if none. */
static int find_local(struct ein_schedule *s, int stmt,
	enum ein_local_kind kind, int t)
{
	int k, j;

	for (k = 0; k < ein_schedule_n_loop(s, stmt); ++k)
		for (j = 0; j < ein_schedule_n_local(s, stmt, k); ++j) {
			const struct ein_local *l =
				ein_schedule_get_local(s, stmt, k, j);

			if (l->kind == kind && (kind != EIN_LOCAL_PACK ||
					l->tensor == t))
				return k;
		}
	return -1;
}

/* The tensor of "pack TENSOR at LOOP": one the statement reads, other
 * than its output.  -1 after an error. */
static int pack_tensor(struct apply *a, int stmt)
{
	const struct ein_sched_arg *arg = &a->dir->arg[0];
	const struct ein_func *func = a->deps->scop->func;
	int t = find_tensor(func, arg->name), prev;

	if (t < 0 || !stmt_reads(a->s, stmt, t)) {
		ein_error_at(a->ctx, arg->loc, t < 0 ? "no tensor '%s'" :
			"statement %s does not read '%s'", t < 0 ? arg->name :
			a->dir->stmt.tensor, arg->name);
		hint_read(a, stmt);
		return -1;
	}
	if (t == ein_schedule_get_stmt(a->s, stmt)->access[0].tensor) {
		ein_error_at(a->ctx, arg->loc, "cannot %s '%s': statement "
			"%s writes it", a->dir->verb == EIN_SCHED_LOCAL ?
			"copy into local memory" : "pack", arg->name,
			a->dir->stmt.tensor);
		ein_hint(a->ctx, "'accumulate LOOP' keeps the part of its "
			"output that a loop updates in a local buffer");
		return -1;
	}
	prev = find_local(a->s, stmt, EIN_LOCAL_PACK, t);
	if (prev >= 0) {
		ein_error_at(a->ctx, arg->loc, "'%s' is already packed for "
			"statement %s, in loop '%s'", arg->name,
			a->dir->stmt.tensor,
			ein_schedule_loop_name(a->s, stmt, prev));
		return -1;
	}
	return t;
}

/* The name of the index that dimension "d" of access "acc" of "stmt" is,
 * NULL if it is not a single index. */
static const char *dim_index(const struct ein_scop_stmt *stmt,
	const struct ein_scop_access *acc, int d)
{
	isl_set *dom = stmt->domain;
	int k, n = isl_set_dim(dom, isl_dim_set);

	for (k = 0; k < n; ++k) {
		isl_pw_aff *x = isl_pw_aff_var_on_domain(
			isl_local_space_from_space(isl_set_get_space(dom)),
			isl_dim_set, k);
		isl_pw_aff *y = isl_multi_pw_aff_get_pw_aff(acc->index, d);
		isl_bool eq;

		x = isl_pw_aff_intersect_domain(x, isl_set_copy(dom));
		y = isl_pw_aff_intersect_domain(y, isl_set_copy(dom));
		eq = isl_pw_aff_is_equal(x, y);
		isl_pw_aff_free(x);
		isl_pw_aff_free(y);
		if (eq == isl_bool_true)
			return isl_set_get_dim_name(dom, isl_dim_set, k);
	}
	return NULL;
}

/* "i, k": the indices of the dimensions of "acc" (? for an expression). */
static void hint_dims(struct apply *a, const struct ein_scop_stmt *stmt,
	const struct ein_scop_access *acc, const char *tensor)
{
	const char *verb = acc->is_write ? "writes" : "reads";
	char buf[256] = "";
	int d, n = isl_multi_pw_aff_dim(acc->index, isl_dim_out);

	for (d = 0; d < n; ++d) {
		const char *x = dim_index(stmt, acc, d);

		if (strlen(buf) + (x ? strlen(x) : 1) + 3 >= sizeof(buf))
			break;
		if (d)
			strcat(buf, ", ");
		strcat(buf, x ? x : "?");
	}
	ein_hint(a->ctx, "statement %s %s %s(%s); a layout lists those "
		"indices in the order the buffer stores them, outermost first "
		"(a dimension read at a constant may be left out)",
		a->dir->stmt.tensor, verb, tensor, buf);
}

/* Is dimension "d" of access "acc" of "st" a constant on its domain (as
 * in Wt(f, c, 0, 0), or Wt(f, c, r, s) with r and s in 0:1, the 1x1
 * convolutions that ONNX's import writes)? */
static int constant_dim(const struct ein_scop_stmt *st,
	const struct ein_scop_access *acc, int d)
{
	isl_pw_aff *pa = isl_multi_pw_aff_get_pw_aff(acc->index, d);
	isl_bool cst;

	pa = isl_pw_aff_gist(pa, isl_set_copy(st->domain));
	cst = isl_pw_aff_is_cst(pa);

	isl_pw_aff_free(pa);
	return cst == isl_bool_true;
}

/* Do the reads of "tensor" by "st" read its dimension "d" at more than
 * one value (A(i, k, 0) ... A(i, k, 3) of the int8 GEMM's sums of four
 * products)? */
static int read_at_several(const struct ein_scop_stmt *st, int tensor, int d)
{
	isl_pw_aff *first = NULL;
	int k, several = 0;

	for (k = 0; k < st->n_access && !several; ++k) {
		isl_pw_aff *pa;

		if (st->access[k].is_write || st->access[k].tensor != tensor)
			continue;
		pa = isl_multi_pw_aff_get_pw_aff(st->access[k].index, d);
		if (!first) {
			first = pa;
			continue;
		}
		several = isl_pw_aff_is_equal(first, pa) != isl_bool_true;
		isl_pw_aff_free(pa);
	}
	isl_pw_aff_free(first);
	return several;
}

/* The dimension of "acc" that the index of layout term "arg" is; -1
 * (with an error) if none. */
static int layout_dim(struct apply *a, const struct ein_scop_stmt *st,
	const struct ein_scop_access *acc, const char *tensor,
	const struct ein_sched_arg *arg)
{
	int d, n_dim = isl_multi_pw_aff_dim(acc->index, isl_dim_out);

	for (d = 0; d < n_dim; ++d) {
		const char *x = dim_index(st, acc, d);

		if (x && !strcmp(x, arg->name))
			return d;
	}
	ein_error_at(a->ctx, arg->loc, "no dimension of '%s' is the index "
		"'%s'", tensor, arg->name);
	hint_dims(a, st, acc, tensor);
	return -1;
}

/* Check how the "n" terms "t" of a layout use dimension "d" of the
 * tensor: once whole, or split into blocks as both "j/N" and "j%N";
 * -1 (with an error) otherwise, 0 if they leave it out, 1 if they use
 * it. */
static int check_dim_use(struct apply *a, const struct ein_sched_arg *t,
	const int *dim, int n, int d)
{
	int i, whole = -1, div = -1, mod = -1;

	for (i = 0; i < n; ++i) {
		int *slot = t[i].value == 0 ? &whole :
			t[i].value > 0 ? &div : &mod;

		if (dim[i] != d)
			continue;
		if (*slot >= 0 || (t[i].value == 0 && (div >= 0 ||
				mod >= 0)) || (t[i].value && whole >= 0)) {
			ein_error_at(a->ctx, t[i].loc, "index '%s' appears "
				"twice in the layout", t[i].name);
			return -1;
		}
		*slot = i;
	}
	if ((div >= 0) != (mod >= 0)) {
		i = div >= 0 ? div : mod;
		ein_error_at(a->ctx, t[i].loc, "the layout has '%s%c%ld' but "
			"not '%s%c%ld'", t[i].name, div >= 0 ? '/' : '%',
			labs(t[i].value), t[i].name, div >= 0 ? '%' : '/',
			labs(t[i].value));
		ein_hint(a->ctx, "an index split into blocks is listed twice: "
			"its block (j/16) and its place in the block (j%%16)");
		return -1;
	}
	if (div >= 0 && t[div].value != -t[mod].value) {
		ein_error_at(a->ctx, t[mod].loc, "the layout splits '%s' into "
			"blocks of %ld and of %ld", t[mod].name, t[div].value,
			-t[mod].value);
		return -1;
	}
	return whole >= 0 || div >= 0;
}

/* Fill in local->layout and local->block from the directive's "layout
 * TERM..." (its arguments "first" and on): each term is an index, the
 * dimension of local->tensor that it is in the statement's first read of
 * it (pack) or in its write (accumulate), whole or split into blocks of N
 * (the block "j/N" and the place in it "j%N", both listed).  Dimensions
 * read at a constant may be left out: one read at a single constant is a
 * single element of the buffer, placed outermost; one read at several
 * (the four bytes q of A(i, k, q) in the int8 GEMM) goes innermost, in
 * the tensor's order, so that "layout i/6 k i%6" of A keeps each group
 * of four bytes together as VNNI's vpdpbusd reads it. */
static int local_layout(struct apply *a, int stmt, int first,
	struct ein_local *local)
{
	const struct ein_scop_stmt *st = ein_schedule_get_stmt(a->s, stmt);
	const struct ein_scop_access *acc = NULL;
	const struct ein_sched_arg *t = &a->dir->arg[first];
	const char *tensor = ein_scop_tensor_name(ein_schedule_get_scop(a->s),
		local->tensor);
	int write = local->kind == EIN_LOCAL_ACCUMULATE;
	int i, k, d, n, n_term = a->dir->n_arg - first, n_listed;
	int dim[EIN_LOCAL_MAX_DIM], used[EIN_LOCAL_MAX_DIM];
	int inner[EIN_LOCAL_MAX_DIM], n_inner = 0;

	if (n_term <= 0)
		return 0;
	/* A dimension split into blocks has two terms. */
	for (i = 0, n_listed = n_term; i < n_term; ++i)
		n_listed -= t[i].value > 0;
	for (k = 0; k < st->n_access && !acc; ++k)
		if (st->access[k].is_write == write &&
		    st->access[k].tensor == local->tensor)
			acc = &st->access[k];
	n = isl_multi_pw_aff_dim(acc->index, isl_dim_out);
	if (n_listed > n || n + n_term > EIN_LOCAL_MAX_DIM) {
		ein_error_at(a->ctx, t[0].loc, "the layout of '%s' lists %d "
			"ind%s, but '%s' has %d dimensions", tensor, n_listed,
			n_listed == 1 ? "ex" : "ices", tensor, n);
		hint_dims(a, st, acc, tensor);
		return -1;
	}
	for (i = 0; i < n_term; ++i)
		if ((dim[i] = layout_dim(a, st, acc, tensor, &t[i])) < 0)
			return -1;
	for (d = 0; d < n; ++d)
		if ((used[d] = check_dim_use(a, t, dim, n_term, d)) < 0)
			return -1;
	k = 0;
	for (d = 0; d < n; ++d) {
		if (used[d])
			continue;
		if (!constant_dim(st, acc, d)) {
			ein_error_at(a->ctx, t[0].loc, "the layout of '%s' "
				"leaves out its dimension %d, which is not "
				"read at a constant", tensor, d);
			hint_dims(a, st, acc, tensor);
			return -1;
		}
		if (read_at_several(st, local->tensor, d)) {
			inner[n_inner++] = d;
			continue;
		}
		local->block[k] = 0;
		local->layout[k++] = d;
	}
	for (i = 0; i < n_term; ++i) {
		local->block[k] = t[i].value;
		local->layout[k++] = dim[i];
	}
	for (i = 0; i < n_inner; ++i) {
		local->block[k] = 0;
		local->layout[k++] = inner[i];
	}
	local->n_layout = k;
	return 0;
}

/* pack TENSOR at LOOP [layout INDEX...]: the statement reads TENSOR from
 * a copy of the tile it reads in each iteration of LOOP (sched/pack.c).
 * OpenCL's "local TENSOR at LOOP" is the same with the copy in __local
 * memory (a->gpu). */
static int do_pack(struct apply *a, int stmt)
{
	struct ein_local local = { .kind = EIN_LOCAL_PACK,
		.tensor = pack_tensor(a, stmt), .gpu = a->gpu,
		.loc = a->dir->verb_loc };
	int loop;

	if (local.tensor < 0 || local_layout(a, stmt, 2, &local) < 0)
		return -1;
	loop = find_loop(a, stmt, &a->dir->arg[1]);
	if (loop < 0)
		return -1;
	return ein_schedule_add_local(a->s, stmt, loop, &local);
}

/* accumulate LOOP [layout INDEX...]: the statement updates a copy of the
 * part of its output it updates in each iteration of LOOP (sched/pack.c). */
static int do_accumulate(struct apply *a, int stmt)
{
	struct ein_local local = { .kind = EIN_LOCAL_ACCUMULATE,
		.tensor = ein_schedule_get_stmt(a->s, stmt)->access[0].tensor,
		.gpu = a->gpu, .loc = a->dir->verb_loc };
	int loop = find_loop(a, stmt, &a->dir->arg[0]), prev;

	if (loop < 0 || local_layout(a, stmt, 1, &local) < 0)
		return -1;
	prev = find_local(a->s, stmt, EIN_LOCAL_ACCUMULATE, local.tensor);
	if (prev >= 0) {
		ein_error_at(a->ctx, a->dir->verb_loc, "statement %s already "
			"accumulates in loop '%s'", a->dir->stmt.tensor,
			ein_schedule_loop_name(a->s, stmt, prev));
		return -1;
	}
	return ein_schedule_add_local(a->s, stmt, loop, &local);
}

/* The tensor of "prefetch TENSOR at LOOP": an input or output of the
 * definition that the statement accesses (a temporary is the kernel's
 * own, and may live in a smaller buffer, sched/contract.c).  -1 after an
 * error. */
static int prefetch_tensor(struct apply *a, int stmt)
{
	const struct ein_sched_arg *arg = &a->dir->arg[0];
	const struct ein_func *func = a->deps->scop->func;
	int t = find_tensor(func, arg->name);

	if (t < 0 || !stmt_accesses(a->s, stmt, t, 0)) {
		ein_error_at(a->ctx, arg->loc, t < 0 ? "no tensor '%s'" :
			"statement %s does not access '%s'", t < 0 ?
			arg->name : a->dir->stmt.tensor, arg->name);
		hint_read(a, stmt);
		return -1;
	}
	if (func->tensor[t].role == EIN_ROLE_TEMP) {
		ein_error_at(a->ctx, arg->loc, "cannot prefetch '%s': it is a "
			"temporary of the definition", arg->name);
		ein_hint(a->ctx, "prefetch an input or an output");
		return -1;
	}
	return t;
}

/* prefetch TENSOR at LOOP [from LOOP [N]]: in each iteration of LOOP,
 * prefetch the cache lines of TENSOR that the statement accesses N
 * iterations of the "from" loop later (sched/prefetch.c).  The "from"
 * loop is kept by name: sched/prefetch.c checks that later directives
 * left it around LOOP. */
static int do_prefetch(struct apply *a, int stmt)
{
	const struct ein_sched_directive *d = a->dir;
	const struct ein_sched_arg *from = &d->arg[d->n_arg > 2 ? 2 : 1];
	struct ein_local local = { .kind = EIN_LOCAL_PREFETCH,
		.tensor = prefetch_tensor(a, stmt),
		.ahead = d->n_arg > 3 ? d->arg[3].value : 1,
		.loc = d->verb_loc };
	int loop, outer;

	if (local.tensor < 0)
		return -1;
	loop = find_loop(a, stmt, &d->arg[1]);
	outer = loop < 0 ? -1 : find_loop(a, stmt, from);
	if (outer < 0)
		return -1;
	if (outer > loop || strlen(from->name) >= sizeof(local.from)) {
		ein_error_at(a->ctx, from->loc, outer > loop ? "loop '%s' is "
			"inside loop '%s'" : "loop name '%s' is too long",
			from->name, d->arg[1].name);
		ein_hint(a->ctx, "prefetch for a later iteration of the loop "
			"itself or of a loop around it");
		return -1;
	}
	if (ein_schedule_loop_attr(a->s, stmt, loop)->vector)
		return vector_prefetch_error(a, stmt, loop);
	strcpy(local.from, from->name);
	return ein_schedule_add_local(a->s, stmt, loop, &local);
}

static int unsupported(struct apply *a, const char *why)
{
	ein_error_at(a->ctx, a->dir->verb_loc, "'%s' %s",
		ein_sched_verb_name(a->dir->verb), why);
	return -1;
}

/* "vectorize" on the OpenCL target: a loop that each work-item runs,
 * never one mapped to the grid, whose iterations are the work-items
 * themselves (OpenCL C's vector types are a work-item's). */
static int do_vectorize_gpu(struct apply *a, int stmt)
{
	const struct ein_sched_arg *arg = &a->dir->arg[0];
	int loop = find_loop(a, stmt, arg);
	const struct ein_loop_attr *attr;

	if (loop < 0)
		return -1;
	attr = ein_schedule_loop_attr(a->s, stmt, loop);
	if (!attr->gpu_block && !attr->gpu_thread)
		return do_mark(a, stmt);
	ein_error_at(a->ctx, arg->loc, "cannot vectorize loop '%s' of %s: it "
		"is mapped to the grid", arg->name, a->dir->stmt.tensor);
	ein_hint(a->ctx, "vectorize a loop inside the gpu_threads loops, "
		"which each work-item runs");
	return -1;
}

/* A directive of the OpenCL target (gpu_map.h): the loop transformations
 * before the statement's loops are mapped, unroll, vectorize, and the
 * mapping. */
static int transform_gpu(struct apply *a, int stmt)
{
	const struct ein_sched_directive *d = a->dir;

	switch (d->verb) {
	case EIN_SCHED_SPLIT:
	case EIN_SCHED_TILE:
	case EIN_SCHED_REORDER:
		if (ein_sched_gpu_is_mapped(a->s, stmt))
			return unsupported(a, "comes after the statement's "
				"loops are mapped to the grid; map them last");
		return d->verb == EIN_SCHED_SPLIT ? do_split(a, stmt) :
			d->verb == EIN_SCHED_TILE ? do_tile(a, stmt) :
			do_reorder(a, stmt);
	case EIN_SCHED_UNROLL:
		return do_mark(a, stmt);
	case EIN_SCHED_VECTORIZE:
		return do_vectorize_gpu(a, stmt);
	case EIN_SCHED_LOCAL:
		return do_pack(a, stmt);
	case EIN_SCHED_ACCUMULATE:
		return do_accumulate(a, stmt);
	case EIN_SCHED_GPU_BLOCKS:
	case EIN_SCHED_GPU_THREADS:
		return ein_sched_gpu_mark(a->ctx, a->s, stmt,
			d->verb == EIN_SCHED_GPU_THREADS, d->n_arg, d->arg);
	default:
		unsupported(a, "makes no sense on an OpenCL target");
		ein_hint(a->ctx, "an OpenCL schedule takes split, tile, "
			"reorder, unroll, vectorize, gpu_blocks, gpu_threads, "
			"local and accumulate");
		return -1;
	}
}

static int transform(struct apply *a, int stmt)
{
	if (a->gpu)
		return transform_gpu(a, stmt);
	switch (a->dir->verb) {
	case EIN_SCHED_SPLIT:
		return do_split(a, stmt);
	case EIN_SCHED_TILE:
		return do_tile(a, stmt);
	case EIN_SCHED_REORDER:
		return do_reorder(a, stmt);
	case EIN_SCHED_VECTORIZE:
	case EIN_SCHED_UNROLL:
	case EIN_SCHED_PARALLEL:
	case EIN_SCHED_STREAM:
		return do_mark(a, stmt);
	case EIN_SCHED_COMPUTE_AT:
		return do_compute_at(a, stmt);
	case EIN_SCHED_FUSE:
		return do_fuse(a, stmt);
	case EIN_SCHED_PACK:
		return do_pack(a, stmt);
	case EIN_SCHED_ACCUMULATE:
		return do_accumulate(a, stmt);
	case EIN_SCHED_PREFETCH:
		return do_prefetch(a, stmt);
	default:
		return unsupported(a, "is reserved for the GPU backend; CPU "
			"targets do not support it");
	}
}

/* Record "why" (taken) as the reason the schedule is illegal after
 * directive a->dir, unless it already was before.  Returns 0, or -1 if
 * out of memory. */
static int illegal(struct apply *a, char *why, const char *fmt,
	const char *name, const char *stmt)
{
	char head[256];
	size_t len;

	if (!why)
		return -1;
	if (a->pending) {
		free(why);
		return 0;
	}
	snprintf(head, sizeof(head), fmt, name, stmt);
	len = strlen(head) + strlen(why) + 64;
	a->pending_msg = malloc(len);
	if (a->pending_msg)
		snprintf(a->pending_msg, len, "'%s' is illegal: %s%s%s",
			ein_sched_verb_name(a->dir->verb), head,
			head[0] ? " " : "", why);
	a->pending = a->dir;
	free(why);
	return a->pending_msg ? 0 : -1;
}

/* Check the loops marked parallel or vectorised in "map".  Returns 1 if
 * they are all legal, 0 (after recording why) if not, -1 on error. */
static int check_marks(struct apply *a, __isl_keep isl_union_map *map)
{
	int i, k, r;
	int member[ein_schedule_n_stmt(a->s) + 1];
	char *why;

	for (i = 0; i < ein_schedule_n_stmt(a->s); ++i)
		for (k = 0; k < ein_schedule_n_loop(a->s, i); ++k) {
			struct ein_loop_attr *attr;
			int dim = ein_schedule_loop_dim(a->s, i, k);
			const char *name = ein_schedule_loop_name(a->s, i, k);
			const char *st = ein_schedule_get_stmt(a->s, i)->name;

			attr = ein_schedule_loop_attr(a->s, i, k);
			if (!attr->parallel && !attr->vector &&
			    !attr->gpu_block && !attr->gpu_thread)
				continue;
			if (ein_schedule_loop_members(a->s, i, k, member) < 0)
				return -1;
			if (attr->gpu_block || attr->gpu_thread) {
				r = ein_deps_check_carried(a->deps, map, dim,
					member, 0, &why);
				if (r <= 0)
					return r < 0 ? -1 : illegal(a, why,
						"loop '%s' of %s, mapped to the "
						"grid, would break", name, st) <
						0 ? -1 : 0;
			}
			if (attr->parallel) {
				r = ein_deps_check_carried(a->deps, map, dim,
					member, 0, &why);
				if (r <= 0)
					return r < 0 ? -1 : illegal(a, why,
						"parallel loop '%s' of %s "
						"would break", name, st) < 0 ?
						-1 : 0;
			}
			if (attr->vector) {
				r = ein_deps_check_carried(a->deps, map, dim,
					member, !a->strict, &why);
				if (r <= 0)
					return r < 0 ? -1 : illegal(a, why,
						"vectorised loop '%s' of %s "
						"would break", name, st) < 0 ?
						-1 : 0;
			}
		}
	return 1;
}

/* The statement in loop "loop" of "stmt" that writes the tensor "l" packs
 * there, or (for an accumulate) that accesses the output it accumulates,
 * other than stmt itself and its initialisation when that writes the
 * buffer (pack.h); *writes says which.  -1 if there is none, -2 on
 * error. */
static int local_conflict(struct apply *a, int stmt, int loop,
	const struct ein_local *l, int *writes)
{
	int n = ein_schedule_n_stmt(a->s), member[n + 1], j, k, init = -1;

	if (ein_schedule_loop_members(a->s, stmt, loop, member) < 0)
		return -2;
	if (l->kind == EIN_LOCAL_ACCUMULATE)
		init = ein_sched_pack_init_in_buffer(a->s, stmt, loop,
			l->tensor);
	if (init == -2)
		return -2;
	for (j = 0; j < n; ++j) {
		const struct ein_scop_stmt *st = ein_schedule_get_stmt(a->s, j);

		if (!member[j] || j == init || (j == stmt &&
				l->kind == EIN_LOCAL_ACCUMULATE))
			continue;
		for (k = 0; k < st->n_access; ++k) {
			const struct ein_scop_access *acc = &st->access[k];

			if (acc->tensor != l->tensor || (!acc->is_write &&
					l->kind == EIN_LOCAL_PACK))
				continue;
			*writes = acc->is_write;
			return j;
		}
	}
	return -1;
}

/* Why local buffer "l" of loop "loop" of "stmt" is illegal, given the
 * statement "other" that writes (or reads) its tensor there. */
static char *local_why(struct apply *a, int stmt, int loop,
	const struct ein_local *l, int other, int writes)
{
	const char *s = ein_schedule_get_stmt(a->s, stmt)->name;
	const char *o = ein_schedule_get_stmt(a->s, other)->name;
	const char *t = a->deps->scop->func->tensor[l->tensor].name;
	const char *name = ein_schedule_loop_name(a->s, stmt, loop);
	size_t len = strlen(s) + strlen(o) + 2 * strlen(t) + strlen(name) +
		128;
	char *why = malloc(len);

	if (!why)
		return NULL;
	if (l->kind == EIN_LOCAL_PACK)
		snprintf(why, len, "%s reads %s from a copy made in each "
			"iteration of its loop '%s', but %s writes %s in that "
			"loop", s, t, name, o, t);
	else
		snprintf(why, len, "%s keeps %s in a local buffer during each "
			"iteration of its loop '%s', but %s %s %s in that "
			"loop", s, t, name, o, writes ? "writes" : "reads", t);
	return why;
}

/* Check the local buffers of pack and accumulate: nothing else in the
 * loop may write a packed tensor (the copy would be stale) or access an
 * accumulated one (it would miss the updates in the buffer, or have its
 * own overwritten).  Returns 1 if they are legal, 0 (after recording
 * why) if not, -1 on error. */
static int check_locals(struct apply *a)
{
	int i, k, j, c, writes = 0;

	for (i = 0; i < ein_schedule_n_stmt(a->s); ++i)
		for (k = 0; k < ein_schedule_n_loop(a->s, i); ++k)
			for (j = 0; j < ein_schedule_n_local(a->s, i, k);
			     ++j) {
				const struct ein_local *l =
					ein_schedule_get_local(a->s, i, k, j);

				if (l->kind == EIN_LOCAL_PREFETCH)
					continue;
				c = local_conflict(a, i, k, l, &writes);
				if (c == -2)
					return -1;
				if (c < 0)
					continue;
				return illegal(a, local_why(a, i, k, l, c,
					writes), "%s%s", "", "") < 0 ? -1 : 0;
			}
	return 1;
}

/* The legality check after directive a->dir: the schedule may be
 * illegal for a while (placing a producer before its own producers are
 * placed), so a verdict is only recorded (see struct apply), and reported
 * if no later directive makes the schedule legal again.  Returns -1 on
 * error, 0 otherwise. */
static int check_legal(struct apply *a)
{
	const struct ein_deps *all = a->deps;
	struct ein_deps view = *all;
	isl_union_map *map = ein_schedule_get_map(a->s);
	char *why = NULL;
	int r = map ? 0 : -1, i;

	/* A recomputed statement's only dependences are its results' flow
	 * to its target, which recompute.h keeps in every schedule: each
	 * iteration computes what it reads, before it. */
	view.dep = malloc((all->n + 1) * sizeof(*view.dep));
	view.n = 0;
	for (i = 0; view.dep && i < all->n; ++i)
		if (!ein_schedule_is_recompute(a->s, all->dep[i].src) &&
		    !ein_schedule_is_recompute(a->s, all->dep[i].snk))
			view.dep[view.n++] = all->dep[i];
	if (!view.dep)
		r = -1;
	a->deps = &view;
	if (r == 0)
		r = ein_deps_check_order(a->deps, map, a->strict, &why);
	if (r == 0)
		r = illegal(a, why, "%s%sit breaks", "", "") < 0 ? -1 : 0;
	if (r > 0)
		r = check_marks(a, map);
	if (r > 0)
		r = check_locals(a);
	a->deps = all;
	free(view.dep);
	isl_union_map_free(map);
	if (r > 0) {
		a->pending = NULL;
		free(a->pending_msg);
		a->pending_msg = NULL;
	}
	if (r < 0 && ein_diag_n_error(a->ctx) == 0)
		ein_internal(a->ctx, "the legality check failed");
	return r < 0 ? -1 : 0;
}

/* Report the recorded verdict, if any. */
static int report_pending(struct apply *a)
{
	if (!a->pending)
		return 0;
	ein_error_at(a->ctx, a->pending->verb_loc, "%s", a->pending_msg);
	free(a->pending_msg);
	a->pending_msg = NULL;
	return -1;
}

/* A vectorised loop must be its statement's innermost loop, which is the
 * one LLVM's vectoriser works on. */
static int check_innermost(struct apply *a, const struct ein_sched_file *f)
{
	int d, i, k;

	for (d = 0; d < f->n_dir; ++d) {
		const struct ein_sched_directive *dir = &f->dir[d];

		if (dir->verb != EIN_SCHED_VECTORIZE)
			continue;
		a->dir = dir;
		i = find_stmt(a, &dir->stmt);
		k = i < 0 ? -1 : ein_schedule_find_loop(a->s, i,
			dir->arg[0].name);
		if (k < 0 || k == ein_schedule_n_loop(a->s, i) - 1)
			continue;
		ein_error_at(a->ctx, dir->arg[0].loc, "cannot vectorise loop "
			"'%s': it is not the innermost loop of %s",
			dir->arg[0].name, dir->stmt.tensor);
		ein_hint(a->ctx, "the innermost loop is '%s'; reorder or split "
			"so that '%s' is innermost",
			ein_schedule_loop_name(a->s, i,
				ein_schedule_n_loop(a->s, i) - 1),
			dir->arg[0].name);
		return -1;
	}
	return 0;
}

/* A streamed loop must be vectorised (by any directive of the file, and
 * after the splits that pass the mark to an inner loop): its stores
 * become non-temporal only as explicit vectors.  The error is at the
 * first stream directive of the statement. */
static int check_stream(struct apply *a, const struct ein_sched_file *f)
{
	int d, i, k, n;

	for (d = 0; d < f->n_dir; ++d) {
		const struct ein_sched_directive *dir = &f->dir[d];

		if (dir->verb != EIN_SCHED_STREAM)
			continue;
		a->dir = dir;
		i = find_stmt(a, &dir->stmt);
		n = i < 0 ? 0 : ein_schedule_n_loop(a->s, i);
		for (k = 0; k < n; ++k) {
			const struct ein_loop_attr *attr;

			attr = ein_schedule_loop_attr(a->s, i, k);
			if (!attr->stream || attr->vector)
				continue;
			ein_error_at(a->ctx, dir->arg[0].loc, "cannot stream "
				"loop '%s' of %s: it is not vectorised",
				ein_schedule_loop_name(a->s, i, k),
				dir->stmt.tensor);
			ein_hint(a->ctx, "stream the vectorised loop, e.g. "
				"'%s: vectorize %s 16' and '%s: stream %s'",
				dir->stmt.tensor, dir->arg[0].name,
				dir->stmt.tensor, dir->arg[0].name);
			return -1;
		}
	}
	return 0;
}

/* Apply the directives of "file" to a->s, with the legality check after
 * each of them when "each", else after the last one only.  Returns -1
 * on error, 0 otherwise (a verdict in a->pending). */
static int transform_all(struct apply *a, const struct ein_sched_file *file,
	int each)
{
	int d, stmt;

	for (d = 0; d < file->n_dir; ++d) {
		a->dir = &file->dir[d];
		stmt = find_stmt(a, &a->dir->stmt);
		if (stmt < 0)
			return -1;
		if (transform(a, stmt) < 0) {
			if (ein_diag_n_error(a->ctx) == 0)
				ein_internal(a->ctx, "cannot apply '%s'",
					ein_sched_verb_name(a->dir->verb));
			return -1;
		}
		if ((each || d == file->n_dir - 1) && check_legal(a) < 0)
			return -1;
	}
	return 0;
}

/* Only the verdict after the last directive decides, and directives
 * change the schedule only (not the scop), so the check runs once, at
 * the end; only when that finds the schedule illegal are the directives
 * replayed on a copy of the schedule as it was, checked after each, to
 * name the directive after which it became illegal.  (A check after
 * every directive made a file of D directives cost D full checks: 3.1 s
 * of the 12-statement CNN of tests/onnx, issue 23.) */
static int apply_all(struct apply *a, const struct ein_sched_file *file)
{
	struct ein_schedule *before = ein_schedule_copy(a->s);
	int r = transform_all(a, file, !before);

	if (r == 0 && before && a->pending) {
		struct ein_schedule *s = a->s;

		a->pending = NULL;
		free(a->pending_msg);
		a->pending_msg = NULL;
		a->s = before;
		r = transform_all(a, file, 1);
		a->s = s;
	}
	ein_schedule_free(before);
	if (r < 0 || report_pending(a) < 0 || check_innermost(a, file) < 0)
		return -1;
	return check_stream(a, file);
}

/* A recomputed temporary written by the threads of a parallel loop in
 * every iteration they run must have been contracted to a buffer per
 * iteration (contract.c shows it always is: each read's source is in its
 * iteration); else the threads would write its elements together. */
static int check_recompute_storage(ein_ctx *ctx, struct ein_schedule *s)
{
	struct ein_scop *scop = ein_schedule_get_scop(s);
	int i;

	for (i = 0; i < ein_schedule_n_stmt(s); ++i) {
		int t = ein_schedule_get_stmt(s, i)->access[0].tensor;

		if (!ein_schedule_is_recompute(s, i) ||
		    !ein_scop_tensor_is_accessed(scop, t))
			continue;
		ein_internal(ctx, "recomputed temporary '%s' is stored whole",
			ein_scop_tensor_name(scop, t));
		return -1;
	}
	return 0;
}

/* Apply the directives of "file" with the settings of "a" (the CPU's or
 * the GPU's verbs), after checking that the file is for this definition. */
static int apply_file(struct apply *a, const struct ein_sched_file *file)
{
	const char *def = a->deps->scop->func->def->name;
	int r;

	if (file->def && strcmp(file->def, def)) {
		ein_error(a->ctx, EIN_ERROR_INVALID, "%s: error: the schedule "
			"is for definition '%s', not '%s'", file->src->name,
			file->def, def);
		return -1;
	}
	r = apply_all(a, file);
	free(a->pending_msg);
	a->pending_msg = NULL;
	return r;
}

/* ein_sched_apply, with the storage contraction when "contract" (and
 * the check of the storage of recomputed temporaries, which it makes and
 * which is an internal check, never a verdict on the file). */
static int apply_lower(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, const struct ein_sched_file *file,
	int strict, int contract)
{
	struct apply a = { ctx, s, deps, strict, 0, NULL, NULL, NULL };
	int r = apply_file(&a, file);

	if (r == 0)
		r = ein_sched_recompute_lower(ctx, s);
	if (r == 0)
		r = ein_sched_pack_lower(ctx, s);
	if (r == 0)
		r = ein_sched_prefetch_lower(ctx, s);
	if (r == 0 && contract)
		r = ein_sched_contract(ctx, s);
	if (r == 0 && contract)
		r = check_recompute_storage(ctx, s);
	return r;
}

int ein_sched_apply(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, const struct ein_sched_file *file,
	int strict)
{
	return apply_lower(ctx, s, deps, file, strict, 1);
}

int ein_sched_apply_check(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, const struct ein_sched_file *file,
	int strict)
{
	return apply_lower(ctx, s, deps, file, strict, 0);
}

/* The loops of "stmt" mapped to work-groups (*nb, the outermost ones),
 * and the first and last mapped to work-items (*ft, *lt; -1 if none). */
static void mapped_range(struct ein_schedule *s, int stmt, int *nb, int *ft,
	int *lt)
{
	int k;

	*nb = 0;
	*ft = *lt = -1;
	for (k = 0; k < ein_schedule_n_loop(s, stmt); ++k) {
		const struct ein_loop_attr *attr =
			ein_schedule_loop_attr(s, stmt, k);

		*nb += attr->gpu_block != 0;
		if (attr->gpu_thread && *ft < 0)
			*ft = k;
		if (attr->gpu_thread)
			*lt = k;
	}
}

/* Is loop "k" of "stmt" where OpenCL keeps the buffer of directive a->dir
 * (local or accumulate)?  A "local" copy is made by all the work-items of
 * a group together, between barriers that they must all reach: in a loop
 * at or inside the innermost block loop that runs outside the threads'
 * loops.  An accumulator is a work-item's own: at or inside the
 * innermost thread loop (outside it, the buffer would hold the elements
 * of the other work-items of the loop, and copy them back). */
static int check_gpu_place(struct apply *a, int stmt, int k,
	const struct ein_sched_arg *arg)
{
	const char *verb = ein_sched_verb_name(a->dir->verb);
	const char *name = a->dir->stmt.tensor;
	int nb, ft, lt;

	mapped_range(a->s, stmt, &nb, &ft, &lt);
	if (nb == 0 || ft < 0) {
		ein_error_at(a->ctx, a->dir->verb_loc, "'%s' needs the loops "
			"of %s mapped to the grid", verb, name);
		ein_hint(a->ctx, "map them with gpu_blocks and gpu_threads "
			"in the same file");
		return -1;
	}
	if (a->dir->verb == EIN_SCHED_LOCAL && (k < nb - 1 || k >= ft)) {
		ein_error_at(a->ctx, arg->loc, "loop '%s' of %s is not between "
			"its gpu_blocks and gpu_threads loops: the work-items "
			"of a group copy the tile together, in a loop they all "
			"run", arg->name, name);
		ein_hint(a->ctx, "copy at the innermost block loop or at a "
			"loop between the blocks' and the threads' loops (e.g. "
			"'reorder i.o j.o k.o i.i j.i k.i')");
		return -1;
	}
	if (a->dir->verb == EIN_SCHED_ACCUMULATE && k < lt) {
		ein_error_at(a->ctx, arg->loc, "loop '%s' of %s is outside its "
			"innermost gpu_threads loop: each work-item keeps its "
			"own part of the output in private memory", arg->name,
			name);
		ein_hint(a->ctx, "accumulate at the innermost gpu_threads loop "
			"or in a loop inside it");
		return -1;
	}
	return 0;
}

/* Check where the directives "local" and "accumulate" of "file" keep
 * their buffers (check_gpu_place), once every loop is mapped. */
static int check_gpu_locals(struct apply *a, const struct ein_sched_file *f)
{
	int d, i, k;

	for (d = 0; d < f->n_dir; ++d) {
		const struct ein_sched_directive *dir = &f->dir[d];
		const struct ein_sched_arg *arg;

		if (dir->verb != EIN_SCHED_LOCAL &&
		    dir->verb != EIN_SCHED_ACCUMULATE)
			continue;
		a->dir = dir;
		arg = &dir->arg[dir->verb == EIN_SCHED_LOCAL ? 1 : 0];
		i = find_stmt(a, &dir->stmt);
		k = i < 0 ? -1 : find_loop(a, i, arg);
		if (k < 0 || check_gpu_place(a, i, k, arg) < 0)
			return -1;
	}
	return 0;
}

/* The number of local buffers "s" asks for, and the directives' positions
 * (the first "max") into loc, in the order sched/pack.c adds the buffers
 * (statement, loop, request). */
static int buffer_locs(struct ein_schedule *s, struct ein_loc *loc, int max)
{
	int i, k, j, n = 0;

	for (i = 0; i < ein_schedule_n_stmt(s); ++i)
		for (k = 0; k < ein_schedule_n_loop(s, i); ++k)
			for (j = 0; j < ein_schedule_n_local(s, i, k); ++j) {
				const struct ein_local *l =
					ein_schedule_get_local(s, i, k, j);

				if (l->kind == EIN_LOCAL_PREFETCH)
					continue;
				if (n < max)
					loc[n] = l->loc;
				n++;
			}
	return n;
}

/* OpenCL C declares a __local or private array with a constant size: the
 * "n" buffers from "first" of "scop", made for the directives at "loc",
 * must have one. */
static int check_gpu_buffers(ein_ctx *ctx, const struct ein_scop *scop,
	int first, int n, const struct ein_loc *loc)
{
	int b;

	for (b = 0; b < n && first + b < scop->n_buffer; ++b) {
		const struct ein_scop_buffer *buf = &scop->buffer[first + b];

		if (buf->n_fixed > 0)
			continue;
		ein_error_at(ctx, loc[b], "the tile of '%s' that the "
			"directive keeps in %s has no constant size",
			scop->func->tensor[buf->of].name, buf->name);
		ein_hint(ctx, "tile the loops inside its loop by constants, "
			"or fix the sizes");
		return -1;
	}
	return 0;
}

/* Lower the local buffers of the OpenCL directives (sched/pack.c), each
 * checked to have a constant size. */
static int lower_gpu_buffers(ein_ctx *ctx, struct ein_schedule *s)
{
	const struct ein_scop *scop = ein_schedule_get_scop(s);
	int n = buffer_locs(s, NULL, 0), first = scop->n_buffer;
	struct ein_loc loc[n + 1];

	buffer_locs(s, loc, n);
	if (ein_sched_pack_lower(ctx, s) < 0)
		return -1;
	return check_gpu_buffers(ctx, scop, first, n, loc);
}

int ein_sched_apply_gpu(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, const struct ein_sched_file *file,
	int strict)
{
	struct apply a = { ctx, s, deps, strict, 1, NULL, NULL, NULL };

	if (apply_file(&a, file) < 0 || check_gpu_locals(&a, file) < 0)
		return -1;
	return lower_gpu_buffers(ctx, s);
}

int ein_sched_check(ein_ctx *ctx, struct ein_schedule *s,
	const struct ein_deps *deps, int strict)
{
	struct apply a = { ctx, s, deps, strict, 0, NULL, NULL, NULL };
	int r = check_legal(&a);

	if (r == 0 && a.pending) {
		ein_internal(ctx, "the schedule is illegal: %s", a.pending_msg);
		r = -1;
	}
	free(a.pending_msg);
	return r;
}
