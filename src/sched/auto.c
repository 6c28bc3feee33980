/*
 * auto.c: the automatic schedule, written by rules (see auto.h).
 *
 * The schedule is built one group of directives at a time, in a fixed
 * order: first the placement of a producer/consumer chain, then each
 * source statement's own directives, in source order.  A group is a list
 * of alternatives, the most ambitious first; the first one that, added
 * to the groups already accepted, passes ein_sched_apply (the check
 * every schedule file passes: legality against the exact dependences,
 * then the lowering of pack and accumulate) is kept, the last
 * alternative being nothing.  The text accepted so far is always a
 * legal schedule, so the result is one.
 *
 * Each candidate is checked on a model of its own (scop and default
 * schedule made afresh, with the sizes symbolic, so that the schedule is
 * legal at every size): applying a schedule extends its model with
 * buffers and copies.  The dependences are those of the source
 * statements, which every fresh scop numbers and names alike, so they
 * are computed once (on a scop kept for them) and shared; the cost
 * model's features share one memo of their counts.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/set.h>
#include <isl/val.h>
#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include "diag.h"
#include "ctx.h"
#include "frontend/type.h"
#include "poly/scop.h"
#include "poly/count.h"
#include "poly/specialize.h"
#include "poly/deps.h"
#include "poly/dot4.h"
#include "sched/schedule.h"
#include "sched/apply.h"
#include "sched/auto.h"
#include "sched/cost.h"
#include "sched/features.h"
#include "sched/lookup.h"

/* The reduction slice of a contraction's register tile (BLIS's kc): a
 * 256-long slice of a 2-vector-wide panel is 32 KiB of float32 on
 * AVX-512, the L1 of the machines the hand schedules were tuned on. */
#define K_SLICE 256
/* The iterations of a one-loop statement run per parallel chunk, in
 * vectors. */
#define CHUNK_VECTORS 256
/* The least work, in statement instances, under a loop worth running in
 * parallel: below it, starting the thread pool costs more than the loop
 * (issue 23: the softmax of a 2 x 5 tensor, 10 + 10 + 10 instances, took
 * 0.43 ms per run in parallel, thread start-up; a few microseconds in
 * one thread).  32768 instances are some tens of microseconds of work
 * at a few instructions each, about what waking the pool costs. */
#define PARALLEL_MIN_WORK 32768
/* The least work, in flops (two per multiply-add), of a contraction
 * whose register tiles, and initialisation, run in parallel.  A
 * contraction's instance is a multiply-add, far more than the few
 * instructions PARALLEL_MIN_WORK counts on, and its tiles are few: at
 * 48^3 (221,184 flops, PARALLEL_MIN_WORK passed 7 times over) `C.init:
 * parallel i` alone cost 30% on one thread (33.1 -> 23.9 GFLOP/s) and
 * on two threads of a loaded machine the fork-join ran at 0.05 GFLOP/s
 * (issue 23).  2^23 flops (about 161^3) is some milliseconds of one
 * thread's work at the speeds the spanning tile reaches. */
#define PARALLEL_MIN_TILE_FLOPS (1 << 23)
#define MAX_INDEX 16
#define MAX_ALT 16
/* The most statements the rules schedule one group at a time.  Each
 * candidate is checked on a fresh model of the whole definition, so the
 * rules cost about n^2 models (1,600 one-line statements ran past 30 s,
 * the default schedule takes 1.8 s; no kernel of tests/kernels or
 * examples has more than 5).  Above this count every statement gets the
 * rule for any statement at once, checked as one group: a few models
 * (schedule_many). */
#define MAX_AUTO_STMTS 32
/* The most statements schedule_many schedules: checking one group of
 * directives for all of them still costs more than linear time (128
 * one-line statements 0.8 s of CPU, 1,600 past 55 s against 1.8 s for
 * the default schedule); above it the definition keeps the default
 * schedule, and the reason says so. */
#define MAX_MANY_STMTS 256

/* What the rules need of the target.
 * vector_bytes: the width of a vector register;
 * rows: the rows of a contraction's register tile of two vectors per row
 *	(12 x 2 on AVX-512's 32 registers, 6 x 2 on AVX2's 16, 8 x 2 on
 *	NEON's 32 of 16 bytes), as schedules/<target>/matmul.sched. */
struct machine {
	int vector_bytes;
	int rows;
};

/* A source statement as the rules see it.
 * fs: its checked form; name: as schedule files name it ("T", "T#2");
 * n_loop, order: its default loops (ein_schedule_default), outermost
 *	first, as positions in fs->index;
 * lanes: the elements of its widest type in one vector;
 * narrow: its widest type is narrower than 32 bits (no gather loads it);
 * work: its instances (its initialisation's too) at the sizes when every
 *	size is known, else -1;
 * serial: no loop of it runs in parallel (too little work under it);
 * host: the statement whose outermost loop the fusion rule computes it
 *	in, -1 if none;
 * placed: the epilogue rule computes it in a later statement's loop (it
 *	has no outer loop of its own to run in parallel);
 * strip: the epilogue or the chain rule split its vector loop v into
 *	strips of one vector (v.o, v.i) to compute its producers in each:
 *	its own rule vectorises v.i;
 * done: the stencil rule wrote its directives (it gets no group of its
 *	own). */
struct stmt {
	const struct ein_func_stmt *fs;
	char name[80];
	int n_loop;
	int order[MAX_INDEX];
	int lanes;
	int narrow;
	double work;
	int serial;
	int host;
	int placed;
	int strip;
	int done;
};

/* A group's alternatives: the directives and a label each; with the
 * cost model on, the legal one among the first "n_scored" that it
 * predicts fastest is kept (the first of equals), and the others are
 * tried in order only when none of those is legal. */
struct group {
	int n_scored;
	int n;
	char *text[MAX_ALT];
	char label[MAX_ALT][160];
};

/* The state of one run.
 * accepted: the directives (and comments) accepted so far;
 * summary: the labels of the accepted groups, for *why;
 * chain: the chain rule placed every statement in the last one;
 * model: rank the alternatives of scored groups by the cost model at
 *	"sizes" (func's order); used_model: it chose an alternative;
 * known: every size of func was given (not the model's stand-in);
 * serial: a statement was kept out of parallel (set_serial): the file
 *	says so even when it holds no directive;
 * scop, deps: the source statements' dependences, on a scop kept for
 *	them; memo: the counts of the features computed so far;
 * dw_depth: in a chain whose first statement is a depthwise convolution,
 *	the depth of the chain's loop (its channel's place in the output),
 *	else -1; dw_vec: the vector width of that chain's other statements
 *	along their last index;
 * pointwise: the pointwise rule scheduled every statement. */
struct autosched {
	ein_ctx *ctx;
	const struct ein_func *func;
	const char *target;
	int strict;
	int model;
	int used_model;
	int64_t *sizes;
	int known;
	int serial;
	struct machine m;
	int n_stmt;
	struct stmt *stmt;
	char *accepted;
	char *summary;
	int chain;
	struct ein_scop *scop;
	struct ein_deps *deps;
	struct ein_features_memo *memo;
	int dw_depth;
	int dw_vec;
	int pointwise;
};

static struct machine machine_of(const char *target)
{
	struct ein_sched_vector_unit u = ein_sched_target_vectors(target);
	struct machine m = { u.bytes, 8 };

	if (u.bytes >= 64)
		m.rows = 12;
	else if (u.bytes >= 32)
		m.rows = 6;
	return m;
}

/* ---- the statements ---------------------------------------------------- */

/* Is "e" index variable "pos" itself? */
static int is_index(const struct ein_ast_expr *e, int pos)
{
	return e->kind == EIN_EXPR_IDENT && e->ident_kind == EIN_IDENT_INDEX &&
		e->slot == pos;
}

/* Does "e" mention index variable "pos"? */
static int mentions(const struct ein_ast_expr *e, int pos)
{
	int i;

	if (is_index(e, pos))
		return 1;
	for (i = 0; i < e->n_arg; ++i)
		if (mentions(e->args[i], pos))
			return 1;
	return 0;
}

/* How well index "pos" suits a vector loop over the accesses in "e":
 * +1 per access contiguous along it (its last subscript only), -1000 per
 * access strided along it (another subscript), as the default order's
 * choice of the innermost loop (sched/schedule.c). */
static int contiguity(const struct ein_ast_expr *e, int pos)
{
	int i, n = 0;

	if (e->kind == EIN_EXPR_ACCESS && e->n_arg > 0) {
		for (i = 0; i + 1 < e->n_arg; ++i)
			if (mentions(e->args[i], pos))
				n -= 1000;
		if (n == 0 && mentions(e->args[e->n_arg - 1], pos))
			n = 1;
	}
	for (i = 0; i < e->n_arg; ++i)
		n += contiguity(e->args[i], pos);
	return n;
}

/* The coefficient of index "pos" in the index expression "e": 0 if "e"
 * does not mention it, INT_MIN if it is not linear in it. */
static int coefficient(const struct ein_ast_expr *e, int pos)
{
	int a, b;

	if (!mentions(e, pos))
		return 0;
	if (is_index(e, pos))
		return 1;
	if (e->kind != EIN_EXPR_BINARY)
		return INT_MIN;
	a = coefficient(e->args[0], pos);
	b = coefficient(e->args[1], pos);
	if (a == INT_MIN || b == INT_MIN)
		return INT_MIN;
	if (e->op == EIN_OP_ADD)
		return a + b;
	if (e->op == EIN_OP_SUB)
		return a - b;
	if (e->op == EIN_OP_MUL && e->args[0]->kind == EIN_EXPR_INT)
		return e->args[0]->ival * b;
	if (e->op == EIN_OP_MUL && e->args[1]->kind == EIN_EXPR_INT)
		return a * e->args[1]->ival;
	return INT_MIN;
}

/* Does an access in "e" step along index "pos" by more than one element
 * in its last subscript (a stride-2 pool or convolution)?  Such a read
 * is a gather; on elements narrower than 32 bits there is no gather
 * instruction, and LLVM's vectoriser inserts them a byte at a time (the
 * 3x3/2 max pool of quantised ResNet-50, uint8, 64 x 112^2, one thread,
 * CPU time per call on a loaded machine: 2.8-3.2 ms as vectors of 64
 * lanes, 1.3-1.5 ms scalar; the float pool, whose gathers are
 * instructions, 0.76-1.4 ms). */
static int strided_last(const struct ein_ast_expr *e, int pos)
{
	int i, c;

	if (e->kind == EIN_EXPR_ACCESS && e->n_arg > 0) {
		c = coefficient(e->args[e->n_arg - 1], pos);
		if (c != 0 && c != 1)
			return 1;
	}
	for (i = 0; i < e->n_arg; ++i)
		if (strided_last(e->args[i], pos))
			return 1;
	return 0;
}


/* The largest element size of the tensors "e" accesses and, outside
 * subscripts ("value"), of the types its operations on tensor values
 * compute in, at least "size".  A statement that reads and writes uint8
 * but computes in int32 (a requantised residual Add) gets the lanes of
 * int32: in 64 lanes its 32-bit values take four registers each
 * (resnet50_k21_conv's epilogue: 1.02 ms of CPU with strips of 64, 0.71
 * with strips of 16).  Arithmetic on indices alone (a padding guard's
 * 2 * h + r - 1 >= 0) does not count: it made the uint8 max pool's
 * vectors 16 lanes of gathers (1.24 -> 1.39 ms). */
static int widest_in(const struct ein_func *func,
	const struct ein_ast_expr *e, int size, int value)
{
	int i, s = 0;

	if (e->kind == EIN_EXPR_ACCESS)
		s = ein_type_size(func->tensor[e->slot].type);
	else if (value && e->vtype != EIN_TYPE_NONE && ein_ast_expr_reads_tensor(e))
		s = ein_type_size(e->vtype);
	if (s > size)
		size = s;
	for (i = 0; i < e->n_arg; ++i)
		size = widest_in(func, e->args[i], size,
			value && e->kind != EIN_EXPR_ACCESS);
	return size;
}

static int widest(const struct ein_func *func, const struct ein_ast_expr *e,
	int size)
{
	return widest_in(func, e, size, 1);
}

/* The name schedule files give source statement "k": its tensor's name,
 * with "#n" when it is the n-th statement (n > 1) writing the tensor. */
static void stmt_name(const struct ein_func *func, int k, char *buf, int len)
{
	int t = func->stmt[k].ast->lhs->slot, n = 1, i;

	for (i = 0; i < k; ++i)
		n += func->stmt[i].ast->lhs->slot == t;
	if (n == 1)
		snprintf(buf, len, "%s", func->tensor[t].name);
	else
		snprintf(buf, len, "%s#%d", func->tensor[t].name, n);
}

/* The position of index "name" in "fs", -1 if none. */
static int index_pos(const struct ein_func_stmt *fs, const char *name)
{
	int i;

	for (i = 0; i < fs->n_index; ++i)
		if (!strcmp(fs->index[i], name))
			return i;
	return -1;
}

/* Read statement k's default loops off the default schedule "s". */
static int default_loops(struct autosched *a, struct ein_schedule *s, int k)
{
	struct stmt *st = &a->stmt[k];
	int i, l;

	for (i = 0; i < ein_schedule_n_stmt(s); ++i) {
		const struct ein_scop_stmt *ss = ein_schedule_get_stmt(s, i);

		if (ss->src != k || ss->is_init)
			continue;
		st->n_loop = ein_schedule_n_loop(s, i);
		if (st->n_loop > MAX_INDEX)
			return -1;
		for (l = 0; l < st->n_loop; ++l) {
			st->order[l] = index_pos(st->fs,
				ein_schedule_loop_name(s, i, l));
			if (st->order[l] < 0)
				return -1;
		}
		return 0;
	}
	return -1;
}

/* The parameter set with every size fixed at a->sizes (a->known). */
static __isl_give isl_set *fixed_sizes(struct autosched *a)
{
	isl_set *params;
	int i;

	params = isl_set_universe(ein_func_get_param_space(a->ctx, a->func));
	for (i = 0; i < a->func->n_size; ++i)
		params = ein_specialize_fix(params, isl_dim_param, i,
			a->sizes[i]);
	return params;
}

/* The instances of every statement of a->scop from source statement
 * "k" (its initialisation included), at the sizes; -1 if a size is not
 * known or on error. */
static double stmt_work(struct autosched *a, int k)
{
	isl_set *params;
	double sum = 0;
	int i;

	if (!a->known)
		return -1;
	params = fixed_sizes(a);
	for (i = 0; sum >= 0 && i < a->scop->n_stmt; ++i) {
		const struct ein_scop_stmt *ss = &a->scop->stmt[i];
		isl_set *dom;
		double n;

		if (ss->src != k)
			continue;
		dom = isl_set_intersect_params(isl_set_copy(ss->domain),
			isl_set_copy(params));
		n = dom ? ein_count_points(dom, NULL) : -1;
		isl_set_free(dom);
		sum = n < 0 ? -1 : sum + n;
	}
	isl_set_free(params);
	return sum;
}

/* Fill a->stmt from the definition and its default schedule, and
 * a->scop and a->deps. */
static int init_stmts(struct autosched *a)
{
	const struct ein_func *func = a->func;
	struct ein_scop *scop = ein_scop_from_func(a->ctx, func);
	struct ein_schedule *src = scop ? ein_schedule_source(scop) : NULL;
	struct ein_schedule *s = src ? ein_schedule_default(scop) : NULL;
	int k, r = s ? 0 : -1;

	a->scop = scop;
	a->deps = s ? ein_deps_compute(scop, ein_schedule_get_map(src)) :
		NULL;
	a->n_stmt = func->n_stmt;
	a->stmt = calloc(func->n_stmt + 1, sizeof(*a->stmt));
	if (!a->stmt || !a->deps)
		r = -1;
	for (k = 0; r == 0 && k < func->n_stmt; ++k) {
		struct stmt *st = &a->stmt[k];
		int size;

		st->fs = &func->stmt[k];
		st->host = -1;
		stmt_name(func, k, st->name, sizeof(st->name));
		size = widest(func, st->fs->ast->lhs,
			widest(func, st->fs->ast->rhs, 1));
		st->lanes = a->m.vector_bytes / size;
		if (st->lanes < 1)
			st->lanes = 1;
		st->narrow = size < 4;
		r = default_loops(a, s, k);
		st->work = r == 0 ? stmt_work(a, k) : -1;
	}
	ein_schedule_free(s);
	ein_schedule_free(src);
	return r;
}

/* ---- checking a candidate ---------------------------------------------- */

/* The schedule file of the directives "body". */
static char *file_text(struct autosched *a, const char *body)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "# The automatic schedule (sched/auto.c, docs/schedules.md "
		"\"The automatic schedule\"):\n# save it, edit it and pass it "
		"back with --schedule.\nein-schedule 1\ntarget %s\ndef %s\n"
		"tuned-by ein automatic scheduler (rules%s)\n\n%s", a->target,
		a->func->def->name, a->used_model ? ", cost model" : "", body);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* Apply "file" to a model of its own, with the shared dependences.
 * Returns 0 if ein_sched_apply accepts it, -1 if not (with the messages
 * still on ctx).  With "f", the cost model's features of the schedule go
 * there; without, only the verdict is needed, and the storage
 * contraction, which decides nothing of it, is left out. */
static int apply_fresh(struct autosched *a, const struct ein_sched_file *file,
	double *f)
{
	struct ein_scop *scop = ein_scop_from_func(a->ctx, a->func);
	struct ein_schedule *s = scop ? ein_schedule_default(scop) : NULL;
	struct ein_deps deps = *a->deps;
	int r;

	deps.scop = scop;
	if (!s)
		r = -1;
	else if (f)
		r = ein_sched_apply(a->ctx, s, &deps, file, a->strict);
	else
		r = ein_sched_apply_check(a->ctx, s, &deps, file, a->strict);
	if (r == 0 && f)
		r = ein_features_of_schedule_memo(a->ctx, a->func, s, a->sizes,
			a->target, a->memo, f);
	ein_schedule_free(s);
	ein_scop_free(scop);
	return r;
}

/* Is the schedule of the accepted directives and "extra" legal?  If not,
 * *why is the first line of the reason (the caller frees it).  With
 * "score", the cost model's prediction for it goes there (its features
 * are computed on the model the schedule is checked on). */
static int legal(struct autosched *a, const char *extra, char **why,
	double *score)
{
	struct ein_diag_mark mark = ein_diag_get_mark(a->ctx);
	char *body = malloc(strlen(a->accepted) + strlen(extra) + 1);
	char *text;
	struct ein_sched_file *file = NULL;
	double f[EIN_FEATURES_N];
	int r = -1;

	*why = NULL;
	if (body) {
		sprintf(body, "%s%s", a->accepted, extra);
		text = file_text(a, body);
		free(body);
		file = text ? ein_sched_file_parse(a->ctx,
			ein_src_alloc("(automatic)", text)) : NULL;
		free(text);
	}
	if (file)
		r = apply_fresh(a, file, score ? f : NULL);
	if (r == 0 && score)
		*score = ein_cost_predict(f);
	ein_sched_file_free(file);
	if (r < 0)
		*why = ein_diag_rollback(a->ctx, mark);
	isl_ctx_reset_error(ein_ctx_get_isl(a->ctx));
	return r == 0;
}

/* Append "prefix", then "fmt" formatted, to the string *dst. */
__attribute__((format(printf, 3, 4)))
static int append(char **dst, const char *prefix, const char *fmt, ...)
{
	va_list ap;
	char *grown;
	size_t len = strlen(*dst) + strlen(prefix);
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	grown = realloc(*dst, len + n + 1);
	if (!grown)
		return -1;
	strcat(grown, prefix);
	va_start(ap, fmt);
	vsnprintf(grown + len, n + 1, fmt, ap);
	va_end(ap);
	*dst = grown;
	return 0;
}

/* Replace newlines and '#' in a message so that it fits a comment. */
static void one_line(char *s)
{
	for (; s && *s; ++s)
		if (*s == '\n' || *s == '#')
			*s = ' ';
}

/* Note in a comment that alternative i of "g" was rejected and why
 * ("why" taken). */
static int note_rejected(struct autosched *a, const char *what,
	const struct group *g, int i, char *why)
{
	int r;

	one_line(why);
	r = append(&a->accepted, "", "# %s: not %s: %s\n", what, g->label[i],
		why ? why : "rejected");
	free(why);
	return r;
}

/* Keep alternative "i" of "g" ("" means the default); "score": its
 * label's suffix (the model's prediction), "" if none. */
static int keep(struct autosched *a, const char *what, const struct group *g,
	int i, const char *score)
{
	int r;

	if (i < 0 || !g->text[i][0])
		return append(&a->accepted, "", "# %s: the default "
			"(no rule applies)\n", what);
	r = append(&a->accepted, "", "# %s: %s%s\n%s", what, g->label[i],
		score, g->text[i]);
	if (r == 0)
		r = append(&a->summary, a->summary[0] ? "; " : "", "%s: %s%s",
			what, g->label[i], score);
	return r;
}

/* The legal alternative among the first g->n_scored of "g" (after the
 * accepted groups) that the cost model predicts fastest, the first of
 * equals; -1 if none is legal, -2 on error. */
static int best_scored(struct autosched *a, const char *what,
	struct group *g, double *best)
{
	int i, pick = -1;

	for (i = 0; i < g->n_scored && g->text[i][0]; ++i) {
		char *why;
		double score;

		if (!legal(a, g->text[i], &why, &score)) {
			if (note_rejected(a, what, g, i, why) < 0)
				return -2;
			continue;
		}
		if (pick < 0 || score < *best)
			pick = i, *best = score;
	}
	return pick;
}

/* Keep the first alternative of "g" that is legal after the accepted
 * groups (or, with the cost model on, the one among its scored ones
 * that the model prefers, if one is legal); note in comments which were
 * rejected and why.  "what" names the group in the comments and the
 * summary. */
static int choose(struct autosched *a, const char *what, struct group *g)
{
	int i = 0, r = 0, kept = 0;

	if (a->model && g->n_scored > 0) {
		double best = 0;
		int pick = best_scored(a, what, g, &best);
		char score[96];

		snprintf(score, sizeof(score), " (cost model: %.3f, the lowest "
			"of %d)", best, g->n_scored);
		if (pick >= 0) {
			r = keep(a, what, g, pick, score);
			kept = a->used_model = 1;
		}
		r = pick < -1 ? -1 : r;
		i = g->n_scored;
	}
	for (; !kept && r == 0 && i < g->n; ++i) {
		char *why;

		if (g->text[i][0] && !legal(a, g->text[i], &why, NULL)) {
			r = note_rejected(a, what, g, i, why);
			continue;
		}
		r = keep(a, what, g, i, "");
		kept = 1;
	}
	for (i = 0; i < g->n; ++i)
		free(g->text[i]);
	g->n = 0;
	g->n_scored = 0;
	return r;
}

/* Add the alternative "label" with the directives in "text" (taken) to
 * "g". */
static int add_alt(struct group *g, char *text, const char *label)
{
	if (!text || g->n >= MAX_ALT)
		return free(text), -1;
	g->text[g->n] = text;
	snprintf(g->label[g->n++], sizeof(g->label[0]), "%s", label);
	return 0;
}

/* ---- contractions ------------------------------------------------------ */

static int64_t index_extent(struct autosched *a, const struct stmt *st,
	int pos);

/* A contraction C(.., i, .., j) += A(.. i .. k ..) * B(.. k .. j ..):
 * a, b: the accesses of A and B (B the one that holds j);
 * i, j, k: the tile's rows, vector index (the output's last) and the
 *	reduction sliced, as positions in the statement's indices;
 * n_outer, outer: the other output indices, in the output's order (the
 *	batch); n_red, red: the other reductions. */
struct contraction {
	const struct ein_ast_expr *a, *b;
	int i, j, k;
	int n_outer, outer[MAX_INDEX];
	int n_red, red[MAX_INDEX];
};

/* "e" without the conversions around it. */
static const struct ein_ast_expr *strip(const struct ein_ast_expr *e)
{
	while (e->kind == EIN_EXPR_CAST)
		e = e->args[0];
	return e;
}

/* A factor of a product without the zero point an int8 convolution or
 * matrix product subtracts from its uint8 input ("X_q(...) - Z", with Z
 * a literal: src/onnx/quantize.c), so that the int8 kernels and their
 * int32 accumulation get the convolution and contraction rules as the
 * float ones do; "e" itself otherwise. */
static const struct ein_ast_expr *conv_factor(const struct ein_ast_expr *e)
{
	const struct ein_ast_expr *z;

	e = strip(e);
	if (e->kind != EIN_EXPR_BINARY || e->op != EIN_OP_SUB)
		return e;
	z = strip(e->args[1]);
	return z->kind == EIN_EXPR_INT ? strip(e->args[0]) : e;
}

/* Is "e" an access whose every subscript is an index variable? */
static int plain_access(const struct ein_ast_expr *e)
{
	int i;

	if (e->kind != EIN_EXPR_ACCESS || e->n_arg == 0)
		return 0;
	for (i = 0; i < e->n_arg; ++i)
		if (e->args[i]->kind != EIN_EXPR_IDENT ||
		    e->args[i]->ident_kind != EIN_IDENT_INDEX)
			return 0;
	return 1;
}

/* Choose i, k and the rest once a, b and j are known. */
static int contraction_indices(const struct ein_func_stmt *fs,
	struct contraction *c)
{
	int d, p;
	const struct ein_ast_expr *lhs = fs->ast->lhs;

	c->i = c->k = -1;
	for (d = 0; d < lhs->n_arg - 1; ++d) {
		p = lhs->args[d]->slot;
		if (mentions(c->a, p) && !mentions(c->b, p))
			c->i = p;
	}
	p = c->a->args[c->a->n_arg - 1]->slot;
	if (p >= fs->n_lhs && mentions(c->b, p))
		c->k = p;
	for (p = fs->n_lhs; c->k < 0 && p < fs->n_index; ++p)
		if (mentions(c->a, p) && mentions(c->b, p))
			c->k = p;
	if (c->i < 0 || c->k < 0)
		return 0;
	c->n_outer = c->n_red = 0;
	for (d = 0; d < lhs->n_arg; ++d)
		if (lhs->args[d]->slot != c->i && lhs->args[d]->slot != c->j)
			c->outer[c->n_outer++] = lhs->args[d]->slot;
	for (p = fs->n_lhs; p < fs->n_index; ++p)
		if (p != c->k)
			c->red[c->n_red++] = p;
	return 1;
}

/* Does "e" mention no index variable (a literal, a size, a tensor of
 * no dimension: the same value in every instance)? */
static int invariant(const struct ein_ast_expr *e)
{
	int i;

	if (e->kind == EIN_EXPR_IDENT && e->ident_kind == EIN_IDENT_INDEX)
		return 0;
	for (i = 0; i < e->n_arg; ++i)
		if (!invariant(e->args[i]))
			return 0;
	return 1;
}

/* Append the factors of product "e" that vary with the indices to f[n],
 * f[n + 1] (conversions stripped; a factor that is not a product itself
 * is one factor) and return their count from n on, which may exceed
 * 2 (then f holds the first two).  The invariant factors (PolyBench 2mm's
 * "1.5 * A(i, k) * B(k, j)", "alpha() * ...") leave the product a
 * contraction: the register tile multiplies them in per term. */
static int product_operands(const struct ein_ast_expr *e,
	const struct ein_ast_expr **f, int n)
{
	e = strip(e);
	if (e->kind == EIN_EXPR_BINARY && e->op == EIN_OP_MUL)
		return product_operands(e->args[1], f,
			product_operands(e->args[0], f, n));
	if (invariant(e))
		return n;
	if (n < 2)
		f[n] = e;
	return n + 1;
}

/* Is statement "st" a contraction (GEMM-like once its indices are named:
 * the output's last index j read by one operand only, an output index i
 * read by the other only, a reduction k read by both), under invariant
 * factors or none?  Fills "c". */
static int is_contraction(const struct stmt *st, struct contraction *c)
{
	const struct ein_ast_stmt *s = st->fs->ast;
	const struct ein_ast_expr *f[2], *f0, *f1;

	if (s->op != EIN_ASSIGN_ADD || !plain_access(s->lhs) ||
	    s->lhs->n_arg < 2 || st->fs->n_index > MAX_INDEX ||
	    product_operands(s->rhs, f, 0) != 2)
		return 0;
	f0 = conv_factor(f[0]);
	f1 = conv_factor(f[1]);
	if (!plain_access(f0) || !plain_access(f1))
		return 0;
	c->j = s->lhs->args[s->lhs->n_arg - 1]->slot;
	if (mentions(f0, c->j) == mentions(f1, c->j))
		return 0;
	c->b = mentions(f0, c->j) ? f0 : f1;
	c->a = c->b == f0 ? f1 : f0;
	return contraction_indices(st->fs, c);
}

/* The layout of B's pack that puts j innermost (its subscripts in
 * order, j moved last), or "" when j is B's last subscript already. */
static void pack_layout(const struct stmt *st, const struct contraction *c,
	char *buf, int len)
{
	const struct ein_ast_expr *b = c->b;
	int d, n = 0;

	buf[0] = '\0';
	if (is_index(b->args[b->n_arg - 1], c->j))
		return;
	n += snprintf(buf + n, len - n, " layout");
	for (d = 0; d < b->n_arg && n < len; ++d)
		if (!is_index(b->args[d], c->j))
			n += snprintf(buf + n, len - n, " %s",
				st->fs->index[b->args[d]->slot]);
	if (n < len)
		snprintf(buf + n, len - n, " %s", st->fs->index[c->j]);
}

/* The shape of a contraction's register tile: "rows" rows of i by
 * "n_vec" vectors of j, reduction slices of "slice"; "span": 0, or j's
 * extent when the tile spans it (its width: j.o runs once and, without
 * a batch index, the rows' loop i.o is the one to run in parallel);
 * "vec": then the width of j.i's vectors (span_vector). */
struct tile {
	int rows, n_vec, slice, span, vec;
};

/* The BLIS template for "c" at "level": 0 everything, 1 without pack, 2
 * without accumulate either, 3 without unrolling the rows either; with
 * register tiles and reduction slices of shape "t". */
static char *contraction_text(const struct stmt *st,
	const struct contraction *c, const struct tile *t, int level)
{
	const char *const *ix = st->fs->index;
	const char *n = st->name;
	int w = t->span ? t->span : t->n_vec * st->lanes;
	int v = t->span ? t->vec : w, rows = t->rows, slice = t->slice, p;
	char *text = NULL, layout[256];
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s: tile %s %d %s %d %s %d\n%s: reorder", n, ix[c->j], w,
		ix[c->k], slice, ix[c->i], rows, n);
	for (p = 0; p < c->n_outer; ++p)
		fprintf(f, " %s", ix[c->outer[p]]);
	fprintf(f, " %s.o %s.o %s.o", ix[c->j], ix[c->k], ix[c->i]);
	for (p = 0; p < c->n_red; ++p)
		fprintf(f, " %s", ix[c->red[p]]);
	fprintf(f, " %s.i %s.i %s.i\n", ix[c->k], ix[c->i], ix[c->j]);
	pack_layout(st, c, layout, sizeof(layout));
	if (level < 1)
		fprintf(f, "%s: pack %s at %s.o%s\n", n, c->b->name, ix[c->k],
			layout);
	if (level < 2)
		fprintf(f, "%s: accumulate %s.o\n", n, ix[c->i]);
	if (level < 3)
		fprintf(f, "%s: unroll %s.i full\n", n, ix[c->i]);
	fprintf(f, "%s: vectorize %s.i %d\n", n, ix[c->j], v);
	if (st->serial)
		;
	else if (c->n_outer)
		fprintf(f, "%s: parallel %s\n", n, ix[c->outer[0]]);
	else
		fprintf(f, "%s: parallel %s.o\n", n, ix[t->span ? c->i : c->j]);
	if (st->fs->ast->init && !st->serial)
		fprintf(f, "%s.init: parallel %s\n", n, ix[0]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The wide register tile of a contraction on AVX-512 (32 registers):
 * half the rows, four vectors per row (6 x 64 floats: 24 accumulators,
 * per step four vectors of B and six broadcasts of A, against twelve
 * broadcasts for two vectors), and the reduction in slices of up to
 * WIDE_SLICE (a 768 x 64 panel of B is 192 KiB, in L2 beside the rows of
 * A and C it meets; BERT's 3072 -> 768 product took 4-6% less time than
 * in slices of 1536, docs/performance.md, "Weights in panels and the
 * wide tile's slice").  Taken without the cost model, which scores only
 * the two-vector tiles, for the products of a short sequence by a large
 * weight, a transformer's: rows (i) at most WIDE_MAX_ROWS, columns (j) a
 * multiple of the tile, the reduction at least WIDE_MIN_K.  BERT-base's
 * six products at sequence 128 took
 * 4-13% less time than with the 12 x 32 tile in slices of 256 (one
 * thread, docs/performance.md, "The BERT layer"). */
#define WIDE_SLICE 768
#define WIDE_MAX_ROWS 256
#define WIDE_MIN_K 512

static int64_t index_extent(struct autosched *a, const struct stmt *st,
	int pos);

/* The slice of the wide tile for "c" (above), 0 if it does not apply. */
static int wide_slice(struct autosched *a, const struct stmt *st,
	const struct contraction *c)
{
	int64_t ni, nj, nk;

	if (a->m.vector_bytes != 64 || a->m.rows < 12 || !a->known)
		return 0;
	ni = index_extent(a, st, c->i);
	nj = index_extent(a, st, c->j);
	nk = index_extent(a, st, c->k);
	if (ni < 1 || ni > WIDE_MAX_ROWS || nj < 1 || nj % (4 * st->lanes) ||
	    nk < WIDE_MIN_K)
		return 0;
	return nk < WIDE_SLICE ? (int) nk : WIDE_SLICE;
}

/* The register tiles and slices the cost model chooses among: the
 * machine's rows and half of them, slices of K_SLICE, half and double. */
#define N_SHAPE 6

/* Add the BLIS template with everything at "rows" x "slice" to "g". */
static int add_blis(struct group *g, const struct stmt *st,
	const struct contraction *c, int rows, int slice)
{
	struct tile t = { rows, 2, slice, 0, 0 };
	char label[160];

	snprintf(label, sizeof(label), "contraction (BLIS: register tile, "
		"packed panel), rows %s, vectors %s, slices of %s, %d x %d, "
		"slice %d", st->fs->index[c->i], st->fs->index[c->j],
		st->fs->index[c->k], rows, 2 * st->lanes, slice);
	return add_alt(g, contraction_text(st, c, &t, 0), label);
}

static const char *const contraction_what[] = {
	"contraction (BLIS: register tile, packed panel)",
	"contraction without pack",
	"contraction without pack and accumulate",
	"contraction tiled and vectorised only",
};

/* The most vectors of j that a register tile spans when j is short.  At
 * j's extent of 64 floats on AVX-512 (doitgen and TCCG's abc-acd-db at
 * 64^4), a tile of 6 rows by 4 vectors, j.o run once, took half the time
 * of the machine's 12 x 2 with j.o run twice (0.254 against 0.514 ms for
 * doitgen; for abc-acd-db 12 x 4, 48 accumulators, spilled: 0.53 ms
 * against 0.34; docs/performance.md, "Short contractions and fusion for
 * reuse"). */
#define SPAN_VECTORS 4

/* The width of the vectors along j.i in a tile that spans j's extent
 * "nj", so that no vector is masked: the widest power of two that
 * divides "nj" when it is whole vectors of "lanes" (64 on AVX-512: four
 * vectors at once, as before issue 23; matmul 64^3 and TCCG's
 * abc-acd-db at 64^4 ran 1-2% faster than in vectors of 16), else the
 * widest power of two at most "lanes" and at most "nj", the columns past
 * the last whole vector the vector loop's remainder.  A tile of 24
 * columns vectorised as 32 (one masked vector of 32 on AVX-512) ran
 * matmul 24^3 at 7.3-7.9 GFLOP/s, as 16 and a remainder of 8 at 78-89;
 * one of 48 as 48 (no power of two: not explicit vectors) at 44, as 16
 * at 183 (one thread; issue 23, docs/performance.md). */
static int span_vector(int64_t nj, int lanes)
{
	int v = 1;

	while (nj % (2 * v) == 0)
		v *= 2;
	if (v >= lanes)
		return v;
	for (v = 1; 2 * v <= lanes && 2 * v <= nj; v *= 2)
		;
	return v;
}

/* The vectors of a row of the tile that spans j's extent "nj", in
 * "n_vec" vectors of "lanes" (the last maybe partial), that the rows are
 * counted for: "n_vec", but three for one whole vector and a partial
 * one, whose columns past the whole vector are a loop of their own.
 * Matmul 24^3 and 29^3 (one thread, AVX-512; issue 23) ran at 89 and 56
 * GFLOP/s with 12 rows, 100 and 77 with 8; at 40^3 (two whole and a
 * partial one) 8 rows ran 155-157, 6 rows 153-154. */
static int span_accumulators(int64_t nj, int lanes, int n_vec)
{
	if (n_vec == 2 && nj % lanes)
		return 3;
	return n_vec;
}

/* The tile of contraction "c" when j's extent at the known sizes is at
 * most SPAN_VECTORS vectors: it spans j (n_vec vectors, the last one
 * maybe partial; the tile is j's extent wide), with as many
 * rows as keep the machine's accumulators (rows x 2) in registers, and
 * slices that keep the panel (slice x n_vec vectors) the size of the
 * machine's K_SLICE x 2; neither above its index's extent.  Returns 0
 * (and leaves "t") when the sizes are not known or j is longer. */
static int span_tile(struct autosched *a, const struct stmt *st,
	const struct contraction *c, struct tile *t)
{
	int64_t nj, ni, nk;

	if (!a->known)
		return 0;
	nj = index_extent(a, st, c->j);
	if (nj < 1 || nj > SPAN_VECTORS * st->lanes)
		return 0;
	t->n_vec = (nj + st->lanes - 1) / st->lanes;
	t->rows = 2 * a->m.rows / span_accumulators(nj, st->lanes, t->n_vec);
	if (t->rows > a->m.rows)
		t->rows = a->m.rows;
	ni = index_extent(a, st, c->i);
	if (ni >= 1 && ni < t->rows)
		t->rows = ni;
	t->slice = 2 * K_SLICE / t->n_vec;
	nk = index_extent(a, st, c->k);
	if (nk >= 1 && nk < t->slice)
		t->slice = nk;
	t->span = nj;
	t->vec = span_vector(nj, st->lanes);
	return 1;
}

/* The alternatives of the contraction rule for "st" with the tile "t"
 * that spans j: each level of the template, from the one without pack
 * when j is B's last subscript (the panel's rows are then whole rows of
 * B, contiguous already: a pack would copy them as they are) and from
 * the full one when it is not (the pack moves j innermost). */
static int span_group(const struct stmt *st, const struct contraction *c,
	const struct tile *t, struct group *g)
{
	const struct ein_ast_expr *b = c->b;
	const char *const *ix = st->fs->index;
	int level = is_index(b->args[b->n_arg - 1], c->j);

	for (; level < 4; ++level) {
		char label[160];

		snprintf(label, sizeof(label), "%s, rows %s, vectors %s (its "
			"whole extent), slices of %s, %d x %d, slice %d",
			contraction_what[level], ix[c->i], ix[c->j], ix[c->k],
			t->rows, t->span, t->slice);
		if (add_alt(g, contraction_text(st, c, t, level), label) < 0)
			return -1;
	}
	return 0;
}

/* Is contraction "c" of "st" a product of a vector by a matrix (GEMV),
 * every size known: i and every outer index of one value, k the only
 * reduction and both A and B read along it, B(.., j, k) (a Gemm's or
 * MatMul's weights transposed, as the classifier heads of MobileNetV2
 * and ResNet-50 read them)?  Packing B for the register tile copies the
 * whole matrix on every call to use each element once. */
static int is_gemv(struct autosched *a, const struct stmt *st,
	const struct contraction *c)
{
	int d;

	if (!a->known || c->n_red || index_extent(a, st, c->i) != 1 ||
	    !is_index(c->a->args[c->a->n_arg - 1], c->k) ||
	    !is_index(c->b->args[c->b->n_arg - 1], c->k))
		return 0;
	for (d = 0; d < c->n_outer; ++d)
		if (index_extent(a, st, c->outer[d]) != 1)
			return 0;
	return 1;
}

/* The GEMV template of "st": each output element a dot product along k,
 * vectorised (partial sums in a vector, added at the end), j in
 * parallel when "par" (MobileNetV2's 1280 -> 1000 head, one thread,
 * AVX-512: 0.35 -> 0.18 ms alone against the register tile that packs
 * the weights). */
static char *gemv_text(const struct stmt *st, const struct contraction *c,
	int par)
{
	const char *const *ix = st->fs->index;
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int d;

	if (!f)
		return NULL;
	fprintf(f, "%s: reorder", st->name);
	for (d = 0; d < lhs->n_arg; ++d)
		fprintf(f, " %s", ix[lhs->args[d]->slot]);
	fprintf(f, " %s\n%s: vectorize %s %d\n", ix[c->k], st->name,
		ix[c->k], st->lanes);
	if (par)
		fprintf(f, "%s: parallel %s\n", st->name, ix[c->j]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The GEMV alternatives (is_gemv), before the contraction rule's own. */
static int gemv_group(const struct stmt *st, const struct contraction *c,
	struct group *g)
{
	char label[160];

	snprintf(label, sizeof(label), "product of a vector by a matrix: "
		"dot products along %s, vectorised", st->fs->index[c->k]);
	if (!st->serial && add_alt(g, gemv_text(st, c, 1), label) < 0)
		return -1;
	return add_alt(g, gemv_text(st, c, 0), label);
}

/* The alternatives of the contraction rule for "st": a GEMV's
 * (gemv_group), then the template's levels, unscored; when j is short,
 * span_group's; else, with the cost model, the full template at each
 * register tile and slice of N_SHAPE first, scored; then (or without
 * it, only) the machine's shape at each level. */
static int contraction_group(struct autosched *a, const struct stmt *st,
	const struct contraction *c, struct group *g)
{
	const char *const *what = contraction_what;
	struct tile t = { a->m.rows, 2, K_SLICE, 0, 0 };
	int level, k, slice;

	if (is_gemv(a, st, c)) {
		if (gemv_group(st, c, g) < 0)
			return -1;
		for (level = 0; level < 4; ++level)
			if (add_alt(g, contraction_text(st, c, &t, level),
					what[level]) < 0)
				return -1;
		return 0;
	}
	if (span_tile(a, st, c, &t))
		return span_group(st, c, &t, g);
	slice = wide_slice(a, st, c);
	if (slice > 0) {
		struct tile wide = { a->m.rows / 2, 4, slice, 0, 0 };
		char label[160];

		snprintf(label, sizeof(label), "contraction (BLIS: register "
			"tile, packed panel), rows %s, vectors %s, slices of "
			"%s, wide: %d x %d, slice %d", st->fs->index[c->i],
			st->fs->index[c->j], st->fs->index[c->k],
			wide.rows, wide.n_vec * st->lanes, slice);
		if (add_alt(g, contraction_text(st, c, &wide, 0), label) < 0)
			return -1;
	}
	for (k = 0; a->model && !slice && k < N_SHAPE; ++k)
		if (add_blis(g, st, c, k % 2 ? a->m.rows / 2 : a->m.rows,
				(K_SLICE / 2) << (k / 2)) < 0)
			return -1;
	g->n_scored = slice ? 0 : g->n;
	for (level = a->model || slice; level < 4; ++level) {
		char label[160];

		snprintf(label, sizeof(label), "%s, rows %s, vectors %s, "
			"slices of %s", what[level], st->fs->index[c->i],
			st->fs->index[c->j], st->fs->index[c->k]);
		if (add_alt(g, contraction_text(st, c, &t, level), label) < 0)
			return -1;
	}
	return 0;
}

/* ---- convolutions ------------------------------------------------------ */

/* A direct convolution O(.., f, .., w) += X(.. w ..) * K(.. f ..), with
 * its padding's guard "cond ? X * K : 0" if any (ONNX's Conv as
 * src/onnx/ops_nn.c writes it, bench/kernels.ein's conv1x1):
 * x, k: the input's and the weights' accesses (K's subscripts index
 *	variables only, none of them w; X reads w, and f only when the
 *	convolution is depthwise);
 * f, w: the output channel (vectors run along it) and the output's last
 *	index (the register tile's columns), as positions in the indices;
 * depthwise: X reads f too (a grouped convolution of one channel per
 *	group), its vectors are gathers;
 * dot4: each term is a four-term dot product of uint8 X by int8 K in
 *	VNNI's layout (is_dot4_conv): K needs no pack, and vpdpbusd
 *	computes a step of the reduction per vector (src/codegen/llvm_dot4.c);
 * width: w's extent at the sizes (the model's stand-in when not known);
 * lanes, n_vec: the tile's vectors along f, of "lanes" elements each;
 * unit: unit[p] when index p has one value (a 1x1 window's r and s),
 *	left out of the weights' pack layout (it reads them at a constant). */
struct conv {
	const struct ein_ast_expr *x, *k;
	int f, w;
	int depthwise;
	int dot4;
	int64_t width;
	int lanes, n_vec;
	int unit[MAX_INDEX];
};

/* Is "e" the literal 0? */
static int is_zero(const struct ein_ast_expr *e)
{
	e = strip(e);
	return (e->kind == EIN_EXPR_INT && e->ival == 0) ||
		(e->kind == EIN_EXPR_FLOAT && e->fval == 0);
}

/* The product of a convolution's right-hand side "e": "e" itself, or
 * the product a padding guard "cond ? product : 0" selects; NULL if it
 * is neither. */
static const struct ein_ast_expr *conv_product(const struct ein_ast_expr *e)
{
	e = strip(e);
	if (e->kind == EIN_EXPR_SELECT && is_zero(e->args[2]))
		e = strip(e->args[1]);
	if (e->kind != EIN_EXPR_BINARY || e->op != EIN_OP_MUL)
		return NULL;
	return e;
}

/* The output channel of a convolution: the first output index other
 * than "c->w" that the weights read, -1 if none. */
static int conv_channel(const struct ein_ast_expr *lhs, struct conv *c)
{
	int d;

	for (d = 0; d + 1 < lhs->n_arg; ++d)
		if (mentions(c->k, lhs->args[d]->slot))
			return lhs->args[d]->slot;
	return -1;
}

/* Is statement "st" a direct convolution (see struct conv)?  Fills "c"
 * but its width. */
static int is_conv(const struct stmt *st, struct conv *c)
{
	const struct ein_ast_stmt *s = st->fs->ast;
	const struct ein_ast_expr *p, *f0, *f1;

	if (s->op != EIN_ASSIGN_ADD || !plain_access(s->lhs) ||
	    s->lhs->n_arg < 2 || st->fs->n_index > MAX_INDEX ||
	    st->fs->n_index == st->fs->n_lhs)
		return 0;
	p = conv_product(s->rhs);
	if (!p)
		return 0;
	f0 = conv_factor(p->args[0]);
	f1 = conv_factor(p->args[1]);
	if (f0->kind != EIN_EXPR_ACCESS || f1->kind != EIN_EXPR_ACCESS)
		return 0;
	c->w = s->lhs->args[s->lhs->n_arg - 1]->slot;
	if (mentions(f0, c->w) == mentions(f1, c->w))
		return 0;
	c->x = mentions(f0, c->w) ? f0 : f1;
	c->k = c->x == f0 ? f1 : f0;
	if (!plain_access(c->k))
		return 0;
	c->f = conv_channel(s->lhs, c);
	if (c->f < 0)
		return 0;
	c->depthwise = mentions(c->x, c->f);
	c->dot4 = 0;
	return 1;
}

/* The extent of index "pos" of statement "st" at the sizes, -1 if not
 * bounded. */
static int64_t index_extent(struct autosched *a, const struct stmt *st,
	int pos)
{
	isl_set *params, *dom;
	isl_aff *var;
	isl_val *lo, *hi;
	int64_t n = -1;

	params = fixed_sizes(a);
	dom = isl_set_intersect_params(isl_set_copy(st->fs->domain), params);
	var = dom ? isl_aff_var_on_domain(isl_local_space_from_space(
		isl_set_get_space(dom)), isl_dim_set, pos) : NULL;
	lo = isl_set_min_val(dom, var);
	hi = isl_set_max_val(dom, var);
	isl_aff_free(var);
	isl_set_free(dom);
	if (isl_val_is_int(lo) == isl_bool_true &&
	    isl_val_is_int(hi) == isl_bool_true)
		n = isl_val_get_num_si(hi) - isl_val_get_num_si(lo) + 1;
	isl_val_free(lo);
	isl_val_free(hi);
	return n;
}

/* The bytes a convolution's accumulated tile (columns x two vectors)
 * stays below: at 1 KiB or more LLVM 16 left it in memory (ResNet-50's
 * 3x3 convolution at 56 x 56, 64 channels, one thread: 21 GFLOP/s with
 * 8 columns of 2 x 16 floats, 166-174 with 7, 140 with 4;
 * docs/performance.md). */
#define CONV_TILE_BYTES 1024

/* The vectors of a convolution's tile along f for "channels" output
 * channels (-1: not known) and vectors of "lanes" elements: the widest
 * vectors, of at least 4 lanes, and then 2, 3 or 1 of them, that divide
 * the channels, so that no partial vector or block is left (MobileNetV2's
 * 24 channels: 3 vectors of 8; its 144: 1 vector of 16, as 2 x 16 left a
 * partial block, 0.6 GFLOP/s); else 2 vectors of "lanes" (the last block
 * partial). */
static void conv_vectors(struct conv *c, int lanes, int64_t channels)
{
	int v = lanes;

	while (channels > 0 && v > 4 && channels % v)
		v /= 2;
	c->lanes = v;
	if (channels <= 0 || channels % v) {
		c->lanes = lanes;
		c->n_vec = 2;
	} else if (channels % (2 * v) == 0)
		c->n_vec = 2;
	else if (channels % (3 * v) == 0)
		c->n_vec = 3;
	else
		c->n_vec = 1;
}

/* The columns of a convolution's register tile on "m" for an output
 * "width" wide, of "col_bytes" bytes each: the widest divisor of the
 * width that fits the tile's rows and CONV_TILE_BYTES (so that no
 * partial tile is left: ResNet's widths 112 ... 7 are multiples of 7),
 * else two thirds of that (a partial tile is left); never wider than the
 * width. */
static int conv_columns(const struct machine *m, int64_t width,
	int col_bytes)
{
	int d, most = m->rows;

	if (most >= CONV_TILE_BYTES / col_bytes)
		most = CONV_TILE_BYTES / col_bytes - 1;
	if (width >= 1 && width <= most)
		return width;
	for (d = most; d >= most / 2; --d)
		if (width > 0 && width % d == 0)
			return d;
	return 2 * most / 3;
}

/* Print "ix"'s subscripts of access "e" with index "last" moved last,
 * leaving out those that "skip" marks (NULL: none). */
static void print_moved_last(FILE *f, const char *const *ix,
	const struct ein_ast_expr *e, int last, const int *skip)
{
	int d, p;

	for (d = 0; d < e->n_arg; ++d) {
		p = e->args[d]->slot;
		if (!is_index(e->args[d], last) && !(skip && skip[p]))
			fprintf(f, " %s", ix[p]);
	}
	fprintf(f, " %s", ix[last]);
}

/* Print the loop order of the convolution template: the output's
 * indices with f and w split (f.o, w.o), the reductions, then the
 * register tile w.i x f.i.o x f.i.i. */
static void print_conv_order(FILE *f, const struct stmt *st,
	const struct conv *c)
{
	const char *const *ix = st->fs->index;
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	int d, p;

	fprintf(f, "%s: reorder", st->name);
	for (d = 0; d < lhs->n_arg; ++d) {
		p = lhs->args[d]->slot;
		fprintf(f, " %s%s", ix[p], p == c->f || p == c->w ? ".o" : "");
	}
	for (p = st->fs->n_lhs; p < st->fs->n_index; ++p)
		fprintf(f, " %s", ix[p]);
	fprintf(f, " %s.i %s.i.o %s.i.i\n", ix[c->w], ix[c->f], ix[c->f]);
}

/* The convolution template for "c" at "level": 0 everything, 1 without
 * pack, 2 without accumulate either; register tiles of "cols" columns
 * of w by c->n_vec vectors of f (bench/schedules/conv3x3.sched). */
static char *conv_text(const struct stmt *st, const struct conv *c, int cols,
	int level)
{
	const char *const *ix = st->fs->index;
	const char *n = st->name;
	int v = c->lanes;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s: split %s %d\n%s: split %s.i %d\n%s: split %s %d\n",
		n, ix[c->f], c->n_vec * v, n, ix[c->f], v, n, ix[c->w], cols);
	print_conv_order(f, st, c);
	if (level < 1) {
		fprintf(f, "%s: pack %s at %s.o layout", n, c->k->name,
			ix[c->f]);
		print_moved_last(f, ix, c->k, c->f, c->unit);
		fputc('\n', f);
	}
	if (level < 2) {
		fprintf(f, "%s: accumulate %s.o layout", n, ix[c->w]);
		print_moved_last(f, ix, st->fs->ast->lhs, c->f, NULL);
		fputc('\n', f);
	}
	fprintf(f, "%s: unroll %s.i full\n%s: unroll %s.i.o full\n"
		"%s: vectorize %s.i.i %d\n", n, ix[c->w], n, ix[c->f], n,
		ix[c->f], v);
	if (!st->serial)
		fprintf(f, "%s: parallel %s.o\n", n, ix[c->f]);
	if (st->fs->ast->init && level < 2)
		fprintf(f, "%s.init: compute_at %s %s.o\n", n, n, ix[c->w]);
	else if (st->fs->ast->init && !st->serial)
		fprintf(f, "%s.init: parallel %s\n", n, ix[0]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The alternatives of the convolution rule for "st", each level of the
 * template at the machine's tile; a four-term dot-product convolution
 * starts at level 1: its weights are in the micro-kernel's layout
 * already (bench/schedules/x86_64-avx512/qconv_vnni_s2.sched). */
static int conv_group(struct autosched *a, const struct stmt *st,
	struct conv *c, struct group *g)
{
	static const char *const what[] = {
		"convolution (register tile, packed weights)",
		"convolution without pack",
		"convolution without pack and accumulate",
	};
	static const char *const what_dot4[] = {
		"",
		"convolution of four-term dot products (register tile, "
			"VNNI's layout, no pack)",
		"convolution of four-term dot products without accumulate",
	};
	int level, cols, p;

	for (p = 0; p < st->fs->n_index; ++p)
		c->unit[p] = index_extent(a, st, p) == 1;
	c->width = index_extent(a, st, c->w);
	conv_vectors(c, st->lanes, index_extent(a, st, c->f));
	cols = conv_columns(&a->m, c->width, c->n_vec * c->lanes *
		(a->m.vector_bytes / st->lanes));
	for (level = c->dot4; level < 3; ++level) {
		char label[160];

		snprintf(label, sizeof(label), "%s%s, vectors %s, %d columns "
			"of %s", c->dot4 ? what_dot4[level] : what[level],
			c->depthwise ? " (depthwise)" :
			"", st->fs->index[c->f], cols, st->fs->index[c->w]);
		if (add_alt(g, conv_text(st, c, cols, level), label) < 0)
			return -1;
	}
	return 0;
}

/* ---- convolutions of four-term dot products (VNNI's layout) ------------ */

/* Are "a" and "b" the same expression (same literals, indices, sizes and
 * accesses)? */
static int same_expr(const struct ein_ast_expr *a, const struct ein_ast_expr *b)
{
	int i;

	if (a->kind != b->kind || a->n_arg != b->n_arg || a->op != b->op ||
	    a->ival != b->ival || a->fval != b->fval || a->slot != b->slot ||
	    a->ident_kind != b->ident_kind || a->type != b->type)
		return 0;
	for (i = 0; i < a->n_arg; ++i)
		if (!same_expr(a->args[i], b->args[i]))
			return 0;
	return 1;
}

/* The last subscript of access "e" as base + offset: "base" NULL for a
 * literal. */
static void last_offset(const struct ein_ast_expr *e,
	const struct ein_ast_expr **base, int64_t *off)
{
	const struct ein_ast_expr *x = e->args[e->n_arg - 1];

	*base = x;
	*off = 0;
	if (x->kind == EIN_EXPR_INT)
		*base = NULL, *off = x->ival;
	else if (x->kind == EIN_EXPR_BINARY && x->op == EIN_OP_ADD &&
	    x->args[1]->kind == EIN_EXPR_INT)
		*base = x->args[0], *off = x->args[1]->ival;
}

/* Is access "e" access "first" but for its last subscript, of which
 * "*off" is then the offset from first's? */
static int same_but_last(const struct ein_ast_expr *first,
	const struct ein_ast_expr *e, int64_t *off)
{
	const struct ein_ast_expr *b0, *b;
	int64_t o0;
	int i;

	if (e->slot != first->slot || e->n_arg != first->n_arg)
		return 0;
	for (i = 0; i + 1 < e->n_arg; ++i)
		if (!same_expr(e->args[i], first->args[i]))
			return 0;
	last_offset(first, &b0, &o0);
	last_offset(e, &b, off);
	*off -= o0;
	return (!b0 && !b) || (b0 && b && same_expr(b0, b));
}

/* Do the four products of "d" read four consecutive elements of the same
 * uint8 and int8 accesses (poly/dot4.h), their offsets read from the
 * subscripts as written? */
static int dot4_consecutive(struct ein_dot4 *d)
{
	long du[4], ds[4];
	int64_t o;
	int q;

	for (q = 0; q < 4; ++q) {
		if (!same_but_last(d->u[0], d->u[q], &o))
			return 0;
		du[q] = o;
		if (!same_but_last(d->s[0], d->s[q], &o))
			return 0;
		ds[q] = o;
	}
	return ein_dot4_order(d, du, ds);
}

/* Is statement "st" a reduction into a plain access of two or more
 * subscripts, with reduction indices, of four-term uint8 x int8 dot
 * products whose uint8 terms read consecutive bytes (dot4_consecutive)?
 * Fills "d" if so: the form of is_dot4_conv and is_dot4_gemm. */
static int dot4_accumulation(const struct stmt *st, struct ein_dot4 *d)
{
	const struct ein_ast_stmt *s = st->fs->ast;

	return s->op == EIN_ASSIGN_ADD && plain_access(s->lhs) &&
		s->lhs->n_arg >= 2 && st->fs->n_index <= MAX_INDEX &&
		st->fs->n_index != st->fs->n_lhs &&
		ein_dot4_match(s->rhs, d) && dot4_consecutive(d);
}

/* Does access "e" read index "f" in its next-to-last subscript only (a
 * vector along f is then 4 consecutive bytes a lane)? */
static int next_to_last_only(const struct ein_ast_expr *e, int f)
{
	int k;

	for (k = 0; k < e->n_arg; ++k)
		if (k != e->n_arg - 2 && mentions(e->args[k], f))
			return 0;
	return 1;
}

/* Is statement "st" a convolution whose every term is a four-term dot
 * product of uint8 input by int8 weights in VNNI's layout, as
 * bench/kernels.ein qconv_vnni_s2:
 *
 *	Y(m, p, q) +=! X(c, 2p + r, 2q + s, 0) * K(c, r, s, m, 0) + ...
 *		+ X(c, 2p + r, 2q + s, 3) * K(c, r, s, m, 3)
 *
 * the input reading the output's last index w (its column) and not the
 * output channel f, the weights reading f as their next-to-last
 * subscript only (a vector along f is then 4 consecutive bytes a lane,
 * vpdpbusd's operand) and not w?  Fills "c" but its width; c->x and c->k
 * are the first product's accesses.  The weights' last extent (4) is
 * last_extent_4's test. */
static int is_dot4_conv(const struct stmt *st, struct conv *c)
{
	const struct ein_ast_stmt *s = st->fs->ast;
	const struct ein_ast_expr *nl;
	struct ein_dot4 d;

	if (!dot4_accumulation(st, &d))
		return 0;
	c->x = d.u[0];
	c->k = d.s[0];
	c->w = s->lhs->args[s->lhs->n_arg - 1]->slot;
	nl = c->k->args[c->k->n_arg - 2];
	if (nl->kind != EIN_EXPR_IDENT || nl->ident_kind != EIN_IDENT_INDEX ||
	    nl->slot >= st->fs->n_lhs || nl->slot == c->w)
		return 0;
	c->f = nl->slot;
	if (!next_to_last_only(c->k, c->f) ||
	    !mentions(c->x, c->w) || mentions(c->k, c->w) ||
	    mentions(c->x, c->f))
		return 0;
	c->depthwise = 0;
	c->dot4 = 1;
	return 1;
}

/* Is the last extent of the tensor that access "k" reads the constant 4
 * (VNNI's layout: the 16 lanes' bytes 64 consecutive ones; llvm_dot4.c
 * `last_extent_is_4`)? */
static int last_extent_4(const struct autosched *a,
	const struct ein_ast_expr *k)
{
	const struct ein_tensor *t = &a->func->tensor[k->slot];
	isl_pw_aff *pa;
	isl_val *v;
	int fit;

	if (t->n_dim < 2 || !t->shape || !t->shape[t->n_dim - 1])
		return 0;
	pa = t->shape[t->n_dim - 1];
	if (isl_pw_aff_is_cst(pa) != isl_bool_true)
		return 0;
	v = isl_pw_aff_max_val(isl_pw_aff_copy(pa));
	fit = isl_val_is_int(v) == isl_bool_true && isl_val_cmp_si(v, 4) == 0;
	isl_val_free(v);
	return fit;
}

/* Is statement "st" a convolution that the convolution rule schedules
 * (not depthwise: its input's vectors along f would be gathers)? */
static int is_dense_conv(const struct stmt *st)
{
	struct conv c;

	return (is_conv(st, &c) && !c.depthwise) || is_dot4_conv(st, &c);
}

/* ---- matrix products of four-term dot products (VNNI's layout) -------- */

/* A matrix product of four-term dot products, bench/kernels.ein qgemm's
 * form (the quantiser's int8 MatMul and Gemm, src/onnx/quantize.c):
 *
 *	C(.., i, j) +=! U(.., i, .., 4 k) * S(k, j, 0) + ...
 *		+ U(.., i, .., 4 k + 3) * S(k, j, 3)
 *
 * u, s: the first product's uint8 and int8 accesses; i, j: the output's
 * last two indices (the register tile's rows, the vectors); S reads j as
 * its next-to-last subscript only (a vector along j is 4 consecutive
 * bytes a lane, vpdpbusd's operand), U does not read j. */
struct dot4_gemm {
	const struct ein_ast_expr *u, *s;
	int i, j;
};

/* Is statement "st" such a product?  Fills "m" if so. */
static int is_dot4_gemm(const struct stmt *st, struct dot4_gemm *m)
{
	const struct ein_ast_stmt *s = st->fs->ast;
	struct ein_dot4 d;

	if (!dot4_accumulation(st, &d))
		return 0;
	m->u = d.u[0];
	m->s = d.s[0];
	m->j = s->lhs->args[s->lhs->n_arg - 1]->slot;
	m->i = s->lhs->args[s->lhs->n_arg - 2]->slot;
	return is_index(m->s->args[m->s->n_arg - 2], m->j) &&
		next_to_last_only(m->s, m->j) && !mentions(m->u, m->j) &&
		mentions(m->u, m->i) && !mentions(m->s, m->i);
}

/* The product's schedule, as schedules/x86_64-avx512/qgemm.sched's
 * (0.96x oneDNN's int8 GEMM at 1024^3, docs/performance.md): panels of
 * 4 tiles along j by 8 tiles of rows, a register tile of "rows" x
 * "n_vec" vectors of "lanes" int32 accumulated in registers over the
 * whole reduction, initialised there; "acc" 0 leaves the tile in
 * memory (the fallback). */
static char *dot4_gemm_text(const struct stmt *st, const struct dot4_gemm *m,
	int rows, int vj, int acc)
{
	const char *const *ix = st->fs->index;
	const char *n = st->name, *i = ix[m->i], *j = ix[m->j];
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int p;

	if (!f)
		return NULL;
	fprintf(f, "%s: tile %s %d %s %d\n%s: split %s.i %d\n"
		"%s: split %s.i %d\n%s: reorder", n, j, 4 * vj, i, 8 * rows,
		n, j, vj, n, i, rows, n);
	for (p = 0; p < st->fs->n_lhs; ++p)
		if (p != m->i && p != m->j)
			fprintf(f, " %s", ix[p]);
	fprintf(f, " %s.o %s.o %s.i.o %s.i.o", j, i, j, i);
	for (p = st->fs->n_lhs; p < st->fs->n_index; ++p)
		fprintf(f, " %s", ix[p]);
	fprintf(f, " %s.i.i %s.i.i\n", i, j);
	if (acc)
		fprintf(f, "%s: accumulate %s.i.o\n", n, i);
	fprintf(f, "%s: unroll %s.i.i full\n%s: vectorize %s.i.i %d\n", n, i,
		n, j, vj);
	if (!st->serial)
		fprintf(f, "%s: parallel %s.o\n", n, j);
	if (st->fs->ast->init && acc)
		fprintf(f, "%s.init: compute_at %s %s.i.o\n", n, n, i);
	else if (st->fs->ast->init && !st->serial)
		fprintf(f, "%s.init: parallel %s\n", n, ix[0]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The alternatives of the rule for matrix products of four-term dot
 * products: the register tile accumulated in registers, then in memory.
 * On AVX-512 6 rows of four vectors (24 accumulators of 32 registers);
 * on AVX2 6 rows of two (12 of 16: the AVX2 form of the dot product
 * needs two registers for each vector of S's bytes, its even and odd
 * ones, llvm_dot4.c; the int8 GEMM at 1024^3 on a Zen 3 took 16.4-16.8
 * ms with 6 x 16, 19.2-19.5 with 3 x 32); on SSE 4 rows of two. */
static int dot4_gemm_group(struct autosched *a, const struct stmt *st,
	const struct dot4_gemm *m, struct group *g)
{
	int n_vec = a->m.vector_bytes >= 64 ? 4 : 2;
	int rows = a->m.vector_bytes == 32 ? a->m.rows : a->m.rows / 2;
	int vj = n_vec * st->lanes, acc;

	for (acc = 1; acc >= 0; --acc) {
		char label[160];

		snprintf(label, sizeof(label), "matrix product of four-term dot "
			"products (%d x %d register tile%s, VNNI's layout)",
			rows, vj, acc ? "" : " in memory");
		if (add_alt(g, dot4_gemm_text(st, m, rows, vj, acc), label) < 0)
			return -1;
	}
	return 0;
}

/* Does a rule give statement "st" a register tile (a contraction, a
 * dense convolution or a matrix product of four-term dot products), which
 * computing it a row at a time in a consumer would lose? */
static int has_register_tile(const struct stmt *st)
{
	struct contraction c;
	struct dot4_gemm m;

	return is_contraction(st, &c) || is_dense_conv(st) ||
		is_dot4_gemm(st, &m);
}

/* ---- any statement ----------------------------------------------------- */

/* The loop to vectorise in "st": its innermost default loop, if an access
 * is contiguous along it and none strided, nor, on elements narrower
 * than 32 bits, read at a step of several elements; -1 if none. */
static int vector_index(const struct stmt *st)
{
	int v;

	if (st->n_loop == 0)
		return -1;
	v = st->order[st->n_loop - 1];
	if (contiguity(st->fs->ast->lhs, v) + contiguity(st->fs->ast->rhs, v)
			<= 0)
		return -1;
	if (st->narrow && strided_last(st->fs->ast->rhs, v))
		return -1;
	return v;
}

/* The loop to run in parallel in "st": its outermost default loop if
 * it is an output index, -1 if none. */
static int parallel_index(const struct stmt *st)
{
	if (st->n_loop == 0 || st->order[0] >= st->fs->n_lhs)
		return -1;
	return st->order[0];
}

/* The directives of the "any statement" rule: vectorise index "v" and
 * run index "p" in parallel (either -1: no), the initialisation of a
 * "!" statement parallel too when "p" is; with "stream", the vector
 * stores are non-temporal. */
static char *simple_text(const struct stmt *st, int v, int p, int stream)
{
	const char *const *ix = st->fs->index;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (v >= 0 && v == p)
		fprintf(f, "%s: split %s %d\n%s: parallel %s.o\n"
			"%s: vectorize %s.i %d\n", st->name, ix[v],
			CHUNK_VECTORS * st->lanes, st->name, ix[v], st->name,
			ix[v], st->lanes);
	else {
		if (v >= 0)
			fprintf(f, "%s: vectorize %s%s %d\n", st->name, ix[v],
				st->strip ? ".i" : "", st->lanes);
		if (p >= 0)
			fprintf(f, "%s: parallel %s\n", st->name, ix[p]);
	}
	if (stream && v >= 0)
		fprintf(f, "%s: stream %s%s\n", st->name, ix[v],
			v == p || st->strip ? ".i" : "");
	if (p >= 0 && st->fs->ast->init)
		fprintf(f, "%s.init: parallel %s\n", st->name, ix[0]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The alternatives of the "any statement" rule for "st"; "par": whether
 * it may be parallel (not when placed inside another's parallel loop);
 * "vec": whether it may be vectorised. */
static int simple_group(const struct stmt *st, int par, int vec,
	int stream, struct group *g)
{
	int v = vec ? vector_index(st) : -1;
	int p = par ? parallel_index(st) : -1;
	int r = 0;
	char label[160];

	if (v >= 0 && p >= 0 && stream) {
		snprintf(label, sizeof(label), "vectorize %s, parallel %s, "
			"stream", st->fs->index[v], st->fs->index[p]);
		r |= add_alt(g, simple_text(st, v, p, 1), label);
	}
	if (v >= 0 && p >= 0) {
		snprintf(label, sizeof(label), "vectorize %s, parallel %s",
			st->fs->index[v], st->fs->index[p]);
		r |= add_alt(g, simple_text(st, v, p, 0), label);
	}
	if (p >= 0) {
		snprintf(label, sizeof(label), "parallel %s",
			st->fs->index[p]);
		r |= add_alt(g, simple_text(st, -1, p, 0), label);
	}
	if (v >= 0) {
		snprintf(label, sizeof(label), "vectorize %s",
			st->fs->index[v]);
		r |= add_alt(g, simple_text(st, v, -1, 0), label);
	}
	return r | add_alt(g, strdup(""), "");
}

/* ---- depthwise convolutions -------------------------------------------- */

/* The least output width, in vectors, at which a depthwise convolution
 * gets vectors along its width: below it, each row's masked edge vector
 * costs more than the vectors gain (MobileNetV2's kernels on AVX-512, one
 * thread, the chain at the channel: 28 columns 0.31 ms with the register
 * tile of vectors along them, 0.15 ms with LLVM's own code; 56 columns
 * 0.42 against 0.72; docs/performance.md). */
#define DW_MIN_VECTORS 3
/* The same at a stride of 2: each vector of the tile gathers its input
 * at every other column, so that more of them must pay for the rows'
 * edges (MobileNetV2's stride-2 kernels on AVX-512, one thread, the chain
 * at the channel: 56 columns as 7 vectors of 8, 0.54 -> 0.34 ms; 28
 * columns as 3.5 vectors of 8, 0.14 -> 0.18 ms; docs/performance.md). */
#define DW_MIN_STRIDED_VECTORS 6
/* The rows of a depthwise convolution's register tile of one vector per
 * row: with a 3-wide window's columns unrolled, 24 copies of the vector
 * loop, within the 32 that unrolling allows (8 rows measured 0.37-0.42 ms
 * against 0.42-0.57 with 4 on MobileNetV2's 112 and 56 columns).  With
 * the sizes symbolic, the tile is halved and the window's columns stay a
 * loop: isl then builds the full tiles' code for every size, which took
 * 40 s for the 8 x 3 copies of the padded convolution of
 * tests/kernels/conv_imported.ein (7.7 s for 4 x 1; 0.9 s by default). */
#define DW_ROWS 8
/* The most copies of a loop that unrolling the loops around it may make
 * (sched/apply.c checks the same bound). */
#define DW_MAX_COPIES 32

/* A depthwise convolution O(.., c, h, w) += X(.. c .., h*s + r, w*s + q) *
 * K(c, .., r, q), each output channel reading its own input channel, with
 * its padding's guard if any (struct conv with "depthwise" set):
 * c: the convolution (f: the channel, w: the width, x, k);
 * h: the output index before w (the tile's rows), -1 if none;
 * q: the reduction in X's last subscript (the window's columns), -1 if
 *	none;
 * stride: w's coefficient in X's last subscript;
 * padded: the product is under a padding guard;
 * wide: vectors along w pay (dw_wide);
 * rows: the register tile's rows, unroll_q: its window columns unrolled. */
struct dwconv {
	struct conv c;
	int h, q;
	int stride;
	int padded;
	int wide;
	int rows;
	int unroll_q;
};

/* Is statement "st" a depthwise convolution whose input reads w in its
 * last subscript only, at a positive stride?  Fills "d" but its sizes. */
static int is_depthwise(const struct stmt *st, struct dwconv *d)
{
	const struct ein_ast_expr *lhs = st->fs->ast->lhs, *x, *last;
	int i;

	if (!is_conv(st, &d->c) || !d->c.depthwise)
		return 0;
	x = d->c.x;
	last = x->args[x->n_arg - 1];
	for (i = 0; i + 1 < x->n_arg; ++i)
		if (mentions(x->args[i], d->c.w))
			return 0;
	d->stride = coefficient(last, d->c.w);
	d->padded = strip(st->fs->ast->rhs)->kind == EIN_EXPR_SELECT;
	d->h = lhs->args[lhs->n_arg - 2]->slot;
	if (d->h == d->c.f)
		d->h = -1;
	d->q = -1;
	for (i = st->fs->n_lhs; i < st->fs->n_index; ++i)
		if (mentions(last, i))
			d->q = i;
	return d->stride > 0;
}

/* Print the depthwise register tile of "d" for "st": rows of h by one
 * vector of w, the reductions inside the tile's outer loops, accumulated
 * in registers at w.o when "acc" (its initialisation placed there too,
 * unless "chained": the chain placed the statement and its
 * initialisation in its own loop). */
static void print_dw_tile(FILE *f, const struct stmt *st,
	const struct dwconv *d, int acc, int chained)
{
	const char *const *ix = st->fs->index;
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	const char *n = st->name;
	int i, p, w = d->c.w;

	fprintf(f, "%s: split %s %d\n%s: split %s %d\n%s: reorder", n,
		ix[d->h], d->rows, n, ix[w], d->c.lanes, n);
	for (i = 0; i < lhs->n_arg; ++i) {
		p = lhs->args[i]->slot;
		fprintf(f, " %s%s", ix[p], p == d->h || p == w ? ".o" : "");
	}
	for (p = st->fs->n_lhs; p < st->fs->n_index; ++p)
		fprintf(f, " %s", ix[p]);
	fprintf(f, " %s.i %s.i\n", ix[d->h], ix[w]);
	if (acc)
		fprintf(f, "%s: accumulate %s.o\n", n, ix[w]);
	if (acc && !chained && st->fs->ast->init)
		fprintf(f, "%s.init: compute_at %s %s.o\n", n, n, ix[w]);
	fprintf(f, "%s: unroll %s.i full\n", n, ix[d->h]);
	if (d->unroll_q)
		fprintf(f, "%s: unroll %s full\n", n, ix[d->q]);
	fprintf(f, "%s: vectorize %s.i %d\n", n, ix[w], d->c.lanes);
}

/* Print the tile of "d" for "st" over rows of h and the whole width, the
 * width vectorised and the rows accumulated at h.o (as the 60-s tune of
 * bench/auto_defs.ein's dw3x3 at 28 columns found). */
static void print_dw_rows(FILE *f, const struct stmt *st,
	const struct dwconv *d, int chained)
{
	const char *const *ix = st->fs->index;
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	const char *n = st->name;
	int i, p, w = d->c.w;

	fprintf(f, "%s: split %s %d\n%s: reorder", n, ix[d->h], d->rows, n);
	for (i = 0; i < lhs->n_arg; ++i) {
		p = lhs->args[i]->slot;
		if (p != w)
			fprintf(f, " %s%s", ix[p], p == d->h ? ".o" : "");
	}
	for (p = st->fs->n_lhs; p < st->fs->n_index; ++p)
		fprintf(f, " %s", ix[p]);
	fprintf(f, " %s.i %s\n%s: accumulate %s.o\n", ix[d->h], ix[w], n,
		ix[d->h]);
	if (!chained && st->fs->ast->init)
		fprintf(f, "%s.init: compute_at %s %s.o\n", n, n, ix[d->h]);
	fprintf(f, "%s: unroll %s.i full\n%s: vectorize %s %d\n", n,
		ix[d->h], n, ix[w], d->c.lanes);
}

/* The depthwise template for "d" at "level": 0 the register tile with
 * accumulate, 1 without accumulate, 2 rows accumulated over the whole
 * width, 3 no tile (LLVM vectorises the default's innermost loop); the
 * channel loop parallel when "par". */
static char *dw_text(const struct stmt *st, const struct dwconv *d,
	int level, int par, int chained)
{
	const char *const *ix = st->fs->index;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (level < 2)
		print_dw_tile(f, st, d, level == 0, chained);
	else if (level == 2)
		print_dw_rows(f, st, d, chained);
	else
		fprintf(f, "# %s: no register tile: LLVM vectorises its "
			"innermost loop\n", st->name);
	if (par)
		fprintf(f, "%s: parallel %s\n", st->name, ix[d->c.f]);
	if (par && st->fs->ast->init && (level % 2 || chained))
		fprintf(f, "%s.init: parallel %s\n", st->name, ix[d->c.f]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The vector width of a depthwise convolution's tile along a row
 * "width" wide (-1: not known) for vectors of "lanes" elements: half of
 * them when that divides the width and the whole vectors do not, so that
 * no row ends in a partial vector (MobileNetV2's 56 columns as 7 vectors
 * of 8: 0.35 -> 0.30 ms at stride 1, 0.42 -> 0.34 at stride 2, against
 * 3.5 vectors of 16; one thread, AVX-512). */
static int dw_lanes(int lanes, int64_t width)
{
	if (width > 0 && width % lanes && lanes / 2 >= 4 &&
	    width % (lanes / 2) == 0)
		return lanes / 2;
	return lanes;
}

/* Do vectors along the width of "d" pay: a row of at least
 * DW_MIN_VECTORS vectors at stride 1, DW_MIN_STRIDED_VECTORS at stride
 * 2 (only these two measured)? */
static int dw_wide(const struct dwconv *d)
{
	int least = d->stride == 1 ? DW_MIN_VECTORS : DW_MIN_STRIDED_VECTORS;

	return d->h >= 0 && d->stride <= 2 &&
		d->c.width >= least * d->c.lanes;
}

/* The alternatives of the depthwise rule for "st": the register tile
 * (with accumulate, then without) when vectors along w pay; else, at
 * stride 1 without padding, rows over the whole width (bench-auto's dw3x3
 * at 28 columns: 0.092 ms as the tune found it, 0.139 without; with the
 * padding's guard splitting the width's loop it lost, MobileNetV2's k13
 * 0.177 against 0.140); then the channel loop parallel only. */
static int dw_group(struct autosched *a, const struct stmt *st,
	struct dwconv *d, int par, int chained, struct group *g)
{
	const char *const *ix = st->fs->index;
	int64_t q = d->q >= 0 ? index_extent(a, st, d->q) : -1;
	int level;

	d->c.width = index_extent(a, st, d->c.w);
	d->c.lanes = dw_lanes(st->lanes, d->c.width);
	d->wide = dw_wide(d);
	d->rows = a->known ? DW_ROWS : DW_ROWS / 2;
	d->unroll_q = a->known && q > 0 && q * d->rows <= DW_MAX_COPIES;
	for (level = d->wide ? 0 : 2; level < 4; ++level) {
		char label[160];

		if (level == 2 && (d->wide || d->stride != 1 || d->padded ||
				d->h < 0))
			continue;
		if (level == 2)
			snprintf(label, sizeof(label), "depthwise convolution "
				"(%d rows of %s accumulated, the whole width "
				"of %s vectorised: %lld columns)", d->rows,
				ix[d->h], ix[d->c.w], (long long) d->c.width);
		else if (level < 2)
			snprintf(label, sizeof(label), "depthwise convolution "
				"(register tile of %d rows of %s x %d columns "
				"of %s%s)", d->rows, ix[d->h], d->c.lanes,
				ix[d->c.w], level ? "" : ", accumulate");
		else
			snprintf(label, sizeof(label), "depthwise convolution"
				", %s not vectorised (%lld columns, stride %d)",
				ix[d->c.w], (long long) d->c.width, d->stride);
		if (add_alt(g, dw_text(st, d, level, par, chained), label) < 0)
			return -1;
	}
	return 0;
}

/* The depth of the chain's loop when the definition is a depthwise
 * convolution followed by elementwise statements (bias, activation, as
 * the ONNX import writes them): the channel's place in the convolution's
 * output, if the last statement's loops down to there are its output's
 * indices; else -1 (the chain, if any, at its outermost loop).  Computed
 * per channel, the convolution's plane is still in the cache when its
 * bias and activation read it (MobileNetV2's 56 x 56 depthwise kernel:
 * 0.67 -> 0.43 ms). */
static int dw_chain_depth(struct autosched *a)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	const struct ein_ast_expr *lhs = a->stmt[0].fs->ast->lhs;
	struct dwconv d;
	int i, depth = -1;

	if (a->n_stmt < 2 || !is_depthwise(&a->stmt[0], &d))
		return -1;
	for (i = 0; i < lhs->n_arg; ++i)
		if (lhs->args[i]->slot == d.c.f)
			depth = i;
	if (depth < 0 || depth + 1 >= last->n_loop)
		return -1;
	for (i = 0; i <= depth; ++i)
		if (last->order[i] >= last->fs->n_lhs)
			return -1;
	d.c.width = index_extent(a, &a->stmt[0], d.c.w);
	a->dw_vec = dw_lanes(a->stmt[0].lanes, d.c.width);
	while (a->dw_vec > 2 && d.c.width > 0 && a->dw_vec / 2 >= d.c.width)
		a->dw_vec /= 2;
	return depth;
}

/* The directives of a statement after the depthwise convolution in its
 * chain: vectors of a->dw_vec (no wider than the convolution's width)
 * along index "v", the chain's loop parallel when "par". */
static char *dw_after_text(struct autosched *a, const struct stmt *st,
	int v, int par)
{
	const char *const *ix = st->fs->index;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (v >= 0)
		fprintf(f, "%s: vectorize %s %d\n", st->name, ix[v], a->dw_vec);
	if (par)
		fprintf(f, "%s: parallel %s\n", st->name,
			ix[st->order[a->dw_depth]]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The group of statement k in a chain that starts with a depthwise
 * convolution: the convolution's template inside the chain's loop; the
 * others vectorised, the last one parallel at the chain's loop. */
static int dw_chain_group(struct autosched *a, int k, struct group *g)
{
	struct stmt *st = &a->stmt[k];
	struct dwconv d;
	int par = k == a->n_stmt - 1 && !st->serial;
	int v = vector_index(st), r = 0;
	char label[160];

	if (is_depthwise(st, &d))
		return dw_group(a, st, &d, 0, 1, g);
	snprintf(label, sizeof(label), "after the depthwise convolution: "
		"vectorize %s %d%s", v >= 0 ? st->fs->index[v] : "-",
		a->dw_vec, par ? ", parallel" : "");
	if (v >= 0)
		r |= add_alt(g, dw_after_text(a, st, v, par), label);
	if (par)
		r |= add_alt(g, dw_after_text(a, st, -1, par), "parallel");
	return r | add_alt(g, strdup(""), "");
}

/* ---- pooling of stride 2 ---------------------------------------------- */

/* The most copies of the vector loop that unrolling a pooling window
 * makes (sched/apply.c allows 32, DW_MAX_COPIES). */
#define POOL_MAX_COPIES DW_MAX_COPIES

/* A pooling of stride 2 O(.., c, h, w) op=! I(.., 2 * w + s) [* / literal],
 * op max, min or +, the window's reductions in I's subscripts only:
 * x: the access of I;
 * w: the output's last index (the vector loop), read by x's last
 *	subscript only, at coefficient 2;
 * c: the loop run in parallel: the output index two before w (the
 *	channel of NCHW), else the output's first;
 * lanes: the vector width along w, unroll: the window unrolled. */
struct pool {
	const struct ein_ast_expr *x;
	int w, c;
	int lanes;
	int unroll;
};

/* The access of "e" when "e" is one, possibly scaled by a literal
 * (average pooling's "I(..) / 4"); else NULL. */
static const struct ein_ast_expr *pool_access(const struct ein_ast_expr *e)
{
	const struct ein_ast_expr *l, *r;

	e = strip(e);
	if (e->kind == EIN_EXPR_ACCESS)
		return e;
	if (e->kind != EIN_EXPR_BINARY ||
	    (e->op != EIN_OP_MUL && e->op != EIN_OP_DIV))
		return NULL;
	l = strip(e->args[0]);
	r = strip(e->args[1]);
	if (l->kind == EIN_EXPR_ACCESS &&
	    (r->kind == EIN_EXPR_INT || r->kind == EIN_EXPR_FLOAT))
		return l;
	if (e->op == EIN_OP_MUL && r->kind == EIN_EXPR_ACCESS &&
	    (l->kind == EIN_EXPR_INT || l->kind == EIN_EXPR_FLOAT))
		return r;
	return NULL;
}

/* Is "st" a pooling of stride 2 (struct pool, but lanes and unroll)? */
static int is_pool(const struct stmt *st, struct pool *p)
{
	const struct ein_func_stmt *fs = st->fs;
	const struct ein_ast_expr *lhs = fs->ast->lhs, *last;
	int i;

	if (!fs->ast->init || fs->n_index <= fs->n_lhs || lhs->n_arg < 2 ||
	    (fs->ast->op != EIN_ASSIGN_MAX && fs->ast->op != EIN_ASSIGN_MIN &&
	     fs->ast->op != EIN_ASSIGN_ADD))
		return 0;
	p->x = pool_access(fs->ast->rhs);
	if (!p->x || p->x->n_arg < 2 || !plain_access(lhs))
		return 0;
	p->w = lhs->args[lhs->n_arg - 1]->slot;
	last = p->x->args[p->x->n_arg - 1];
	for (i = 0; i + 1 < p->x->n_arg; ++i)
		if (mentions(p->x->args[i], p->w))
			return 0;
	if (coefficient(last, p->w) != 2)
		return 0;
	for (i = fs->n_lhs; i < fs->n_index; ++i)
		if (coefficient(last, i) != 0 && coefficient(last, i) != 1)
			return 0;
	p->c = lhs->args[lhs->n_arg >= 3 ? lhs->n_arg - 3 : 0]->slot;
	return 1;
}

/* The vector width along w for "p": the widest of the statement's lanes,
 * half and a quarter of them (at least 4) that divides the output's
 * width when it is known, so that no row ends in a partial vector, which
 * LLVM's vectoriser gathers (max pooling 3x3/2 of 64 x 113^2 on AVX-512:
 * 56 columns as 7 vectors of 8, 0.20 ms, against 3 of 16 and a partial
 * one, 0.35); else the lanes, halved while wider than the width. */
static int pool_lanes(int lanes, int64_t width)
{
	int v;

	for (v = lanes; width > 0 && v >= 4; v /= 2)
		if (width % v == 0)
			return v;
	v = lanes;
	while (width > 0 && v > 4 && v / 2 >= width)
		v /= 2;
	return v;
}

/* The pooling template for "p" ("acc": accumulated in registers, else
 * the initialisation computed per row): vectors of w, the window
 * between the vectors' loop and the lanes, unrolled when "p->unroll",
 * the channel loop parallel when "par". */
static char *pool_text(const struct stmt *st, const struct pool *p, int acc,
	int par)
{
	const char *const *ix = st->fs->index;
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	const char *n = st->name;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int i;

	if (!f)
		return NULL;
	fprintf(f, "%s: split %s %d\n%s: reorder", n, ix[p->w], p->lanes, n);
	for (i = 0; i < lhs->n_arg; ++i)
		fprintf(f, " %s%s", ix[lhs->args[i]->slot],
			lhs->args[i]->slot == p->w ? ".o" : "");
	for (i = st->fs->n_lhs; i < st->fs->n_index; ++i)
		fprintf(f, " %s", ix[i]);
	fprintf(f, " %s.i\n", ix[p->w]);
	if (acc)
		fprintf(f, "%s: accumulate %s.o\n%s.init: compute_at %s %s.o\n",
			n, ix[p->w], n, n, ix[p->w]);
	else
		fprintf(f, "%s.init: compute_at %s %s\n", n, n,
			ix[lhs->args[lhs->n_arg - 2]->slot]);
	fprintf(f, "%s.init: vectorize %s %d\n", n, ix[p->w], p->lanes);
	for (i = st->fs->n_lhs; p->unroll && i < st->fs->n_index; ++i)
		fprintf(f, "%s: unroll %s full\n", n, ix[i]);
	fprintf(f, "%s: vectorize %s.i %d\n", n, ix[p->w], p->lanes);
	if (par)
		fprintf(f, "%s: parallel %s\n", n, ix[p->c]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The alternatives of the pooling rule for "st", none for a narrow
 * width: the template with accumulate, then without; the window unrolled when every size is known
 * and it makes at most POOL_MAX_COPIES copies (with a size symbolic, isl
 * builds the full tiles' code for every size: the depthwise rule's
 * DW_ROWS). */
static int pool_group(struct autosched *a, const struct stmt *st,
	struct pool *p, int par, struct group *g)
{
	int64_t copies = 1, e, width = index_extent(a, st, p->w);
	int i, acc;

	p->lanes = pool_lanes(st->lanes, width);
	/* A narrow width that no vector of 4 lanes or more divides (the
	 * 6 columns of the CNN of tests/onnx) would be one partial vector
	 * per row, which LLVM's vectoriser gathers: the rule for any
	 * statement instead. */
	if (width > 0 && width % p->lanes && width < 2 * p->lanes)
		return 0;
	for (i = st->fs->n_lhs; i < st->fs->n_index; ++i) {
		e = index_extent(a, st, i);
		copies = e > 0 && copies > 0 ? copies * e : -1;
	}
	p->unroll = a->known && copies > 0 && copies <= POOL_MAX_COPIES;
	for (acc = 1; acc >= 0; --acc) {
		char label[160];

		snprintf(label, sizeof(label), "pooling of stride 2 (vectors "
			"of %d along %s%s%s%s%s)", p->lanes,
			st->fs->index[p->w],
			p->unroll ? ", window unrolled" : "",
			acc ? ", accumulate" : "", par ? ", parallel " : "",
			par ? st->fs->index[p->c] : "");
		if (add_alt(g, pool_text(st, p, acc, par), label) < 0)
			return -1;
	}
	return 0;
}

/* ---- chains ------------------------------------------------------------ */

/* Is statement "st" elementwise: no reduction, no initialisation, not a
 * contraction or convolution? */
static int is_elementwise(const struct stmt *st)
{
	struct contraction c;

	return st->fs->n_index == st->fs->n_lhs && !st->fs->ast->init &&
		!is_contraction(st, &c) && !is_conv(st, &(struct conv){ 0 });
}

/* The vector loop of the last statement when every statement from
 * "first" on is elementwise and vectorised along its innermost loop, -1
 * if one is not (a producer read across its rows would be computed a
 * column at a time in each strip; a reduction needs its whole row). */
static int strip_vector(const struct autosched *a, int first)
{
	int k;

	for (k = first; k < a->n_stmt; ++k)
		if (!is_elementwise(&a->stmt[k]) ||
		    vector_index(&a->stmt[k]) < 0)
			return -1;
	return vector_index(&a->stmt[a->n_stmt - 1]);
}

/* The last statement's vector loop "v" split into strips of one vector,
 * each producer from statement "first" on computed in each strip. */
static char *strip_text(const struct autosched *a, int first, int v)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	const char *ix = last->fs->index[v];
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int k;

	if (!f)
		return NULL;
	fprintf(f, "%s: split %s %d\n", last->name, ix, last->lanes);
	for (k = a->n_stmt - 2; k >= first; --k)
		fprintf(f, "%s: compute_at %s %s.o\n", a->stmt[k].name,
			last->name, ix);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* Add to "g" the placement of statements "first" .. n - 2 in strips of
 * one vector of the last statement (strip_text), labelled "what: ...",
 * if strip_vector allows it. */
static int strip_group(struct autosched *a, int first, const char *what,
	struct group *g)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	int v = strip_vector(a, first);
	char label[160];

	if (v < 0)
		return 0;
	snprintf(label, sizeof(label), "%s: computed in each vector (strips "
		"of %d) of %s's loop %s", what, last->lanes, last->name,
		last->fs->index[v]);
	return add_alt(g, strip_text(a, first, v), label);
}

/* Is the definition a chain: temporaries, each indexed first by an index
 * variable and none a contraction, all read (directly or not) by the
 * last statement, which writes an output and is not a contraction?
 * softmax, layernorm. */
static int is_chain(const struct autosched *a)
{
	const struct ein_func *func = a->func;
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	struct contraction c;
	int k, t = last->fs->ast->lhs->slot;

	if (a->n_stmt < 2 || func->tensor[t].role != EIN_ROLE_OUTPUT ||
	    last->n_loop < 2 || last->order[0] >= last->fs->n_lhs ||
	    is_contraction(last, &c))
		return 0;
	for (k = 0; k + 1 < a->n_stmt; ++k) {
		const struct ein_ast_expr *lhs = func->stmt[k].ast->lhs;

		/* A contraction or a convolution computed a row at a time
		 * would lose its register tile (matmul_bias_relu, an
		 * imported Conv with its bias and activation). */
		if (has_register_tile(&a->stmt[k]) ||
		    func->tensor[lhs->slot].role != EIN_ROLE_TEMP ||
		    lhs->n_arg < 1 || lhs->args[0]->kind != EIN_EXPR_IDENT)
			return 0;
	}
	return 1;
}

/* Add to "g" the placement of statements "first" .. n - 2 in the last
 * statement's loop at depth "depth" (of its default loops), the latest
 * producer first (each is then placed where its first reader, already
 * inside, reads it), labelled "what: ...". */
static int add_placement(struct autosched *a, struct group *g, int first,
	int depth, const char *what)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	const char *loop = last->fs->index[last->order[depth]];
	char *text = NULL, label[160];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int k;

	if (!f)
		return -1;
	for (k = a->n_stmt - 2; k >= first; --k)
		fprintf(f, "%s: compute_at %s %s\n", a->stmt[k].name,
			last->name, loop);
	if (fclose(f) != 0)
		return free(text), -1;
	snprintf(label, sizeof(label), "%s computed in each iteration of "
		"%s's loop %s", what, last->name, loop);
	return add_alt(g, text, label);
}

/* Place every producer, in an elementwise chain (a GELU alone) in strips
 * of one vector of the last statement (strip_group: 0.26 -> 0.13 ms of
 * CPU for BERT's 128 x 3072 GELU of five statements); else in the last
 * statement's loop around its innermost (a row: a 4-D softmax of ONNX's
 * batch of 1 had its whole tensors as temporaries when placed in the
 * outermost, of one iteration) or, after a depthwise convolution, in its
 * channel loop (dw_chain_depth), else in its outermost loop. */
static int chain_group(struct autosched *a, struct group *g)
{
	int inner = a->stmt[a->n_stmt - 1].n_loop - 2;

	if (a->dw_depth < 0 && strip_group(a, 0, "chain", g) < 0)
		return -1;
	if (a->dw_depth >= 0)
		inner = a->dw_depth;
	if (inner > 0 && add_placement(a, g, 0, inner,
			"chain: the producers") < 0)
		return -1;
	if (add_placement(a, g, 0, 0, "chain: the producers") < 0)
		return -1;
	return add_alt(g, strdup(""), "");
}

/* Does a directive of "text" (a line that is not a comment) hold
 * "word"?  A rejected alternative's comment quotes its legality error
 * ("cannot compute_at bx there"), which is no directive: blur3's chain,
 * rejected, was taken for placed (its producer kept out of parallel,
 * its consumer's stores streamed). */
static int directive_has(const char *text, const char *word)
{
	while (*text) {
		size_t n = strcspn(text, "\n");
		const char *w = *text == '#' ? NULL : strstr(text, word);

		if (w && w < text + n)
			return 1;
		text += n;
		text += *text == '\n';
	}
	return 0;
}

/* ---- stencil chains ---------------------------------------------------- */

/* The rows of a strip of a stencil chain's consumer, and its columns when
 * it has two loops (a tile).  Halide's separable 3x3 blur
 * (bench/auto_defs.ein's blur3 at 1024^2, one thread): 32 x 256 tiles
 * 0.45-0.52 ms, strips of 8 rows 0.49-0.54, 32 rows 0.56-0.58, a full
 * pass of the producer before the consumer 0.70-0.81. */
#define STENCIL_ROWS 32
#define STENCIL_COLS 256
#define STENCIL_STRIP 8

/* Does "e" read only inputs of "func"? */
static int reads_inputs(const struct ein_func *func,
	const struct ein_ast_expr *e)
{
	int i;

	if (e->kind == EIN_EXPR_ACCESS &&
	    func->tensor[e->slot].role != EIN_ROLE_INPUT)
		return 0;
	for (i = 0; i < e->n_arg; ++i)
		if (!reads_inputs(func, e->args[i]))
			return 0;
	return 1;
}

/* Is the definition a stencil chain: statements "=" of temporaries that
 * read only inputs, then a last statement without reduction writing an
 * output in two loops or more?  (The chain rule, which stores each value
 * once, rejects them when the last statement reads a temporary at
 * neighbouring rows: each row of blur3's bx is read by three rows of B.)
 * Only the last statement can read the temporaries. */
static int is_stencil_chain(const struct autosched *a)
{
	const struct ein_func *func = a->func;
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	int k;

	if (a->n_stmt < 2 || last->fs->n_index != last->fs->n_lhs ||
	    func->tensor[last->fs->ast->lhs->slot].role != EIN_ROLE_OUTPUT ||
	    last->n_loop < 2 || last->order[0] >= last->fs->n_lhs)
		return 0;
	for (k = 0; k + 1 < a->n_stmt; ++k) {
		const struct ein_func_stmt *fs = a->stmt[k].fs;

		if (fs->ast->op != EIN_ASSIGN_SET || fs->ast->init ||
		    fs->n_index != fs->n_lhs ||
		    func->tensor[fs->ast->lhs->slot].role != EIN_ROLE_TEMP ||
		    !reads_inputs(func, fs->ast->rhs))
			return 0;
	}
	return 1;
}

/* The directives of the stencil rule: the last statement's rows (the
 * loop around its innermost) in tiles of STENCIL_ROWS x STENCIL_COLS
 * ("tile", two loops only) or strips of STENCIL_STRIP rows, every
 * producer recomputed in each (the rows around the tile's own computed
 * again), the last statement vectorised along its innermost loop when it
 * is contiguous there; with "par", the tiles' or strips' loop parallel
 * in two loops, else the outermost (a 3-D stencil's planes). */
static char *stencil_text(struct autosched *a, int tile, int par)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	const char *const *ix = last->fs->index;
	const char *o = ix[last->order[last->n_loop - 2]], *n = last->name;
	int v = vector_index(last), k;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	tile = tile && last->n_loop == 2;
	if (tile)
		fprintf(f, "%s: tile %s %d %s %d\n", n, o, STENCIL_ROWS,
			ix[last->order[1]], STENCIL_COLS);
	else
		fprintf(f, "%s: split %s %d\n", n, o, STENCIL_STRIP);
	for (k = a->n_stmt - 2; k >= 0; --k)
		fprintf(f, "%s: compute_at %s %s.o recompute\n",
			a->stmt[k].name, n, tile ? ix[last->order[1]] : o);
	if (v >= 0)
		fprintf(f, "%s: vectorize %s%s %d\n", n, ix[v],
			tile && v == last->order[1] ? ".i" : "", last->lanes);
	if (par && last->n_loop == 2)
		fprintf(f, "%s: parallel %s.o\n", n, o);
	else if (par)
		fprintf(f, "%s: parallel %s\n", n, ix[last->order[0]]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* Is the work of the stencil chain (every statement's instances, as the
 * last statement's loop runs them all) known and below
 * PARALLEL_MIN_WORK (set_serial)? */
static int stencil_serial(const struct autosched *a)
{
	double work = 0;
	int k;

	for (k = 0; k < a->n_stmt; ++k) {
		if (a->stmt[k].work < 0)
			return 0;
		work += a->stmt[k].work;
	}
	return work < PARALLEL_MIN_WORK;
}

/* Place a stencil chain's producers in tiles (then strips) of its last
 * statement, recomputed; mark them placed and the last one done. */
static int place_stencil(struct autosched *a, struct group *g)
{
	struct stmt *last = &a->stmt[a->n_stmt - 1];
	int par = !stencil_serial(a), tile, k;
	size_t before = strlen(a->accepted);
	char label[160];

	for (tile = 1; tile >= 0; --tile) {
		if (tile && last->n_loop != 2)
			continue;
		if (tile)
			snprintf(label, sizeof(label), "stencil chain: tiles "
				"of %d x %d, the producers recomputed in each%s",
				STENCIL_ROWS, STENCIL_COLS,
				par ? ", parallel" : "");
		else
			snprintf(label, sizeof(label), "stencil chain: strips "
				"of %d rows, the producers recomputed in each%s",
				STENCIL_STRIP, par ? ", parallel" : "");
		if (add_alt(g, stencil_text(a, tile, par), label) < 0)
			return -1;
	}
	if (add_alt(g, strdup(""), "") < 0 || choose(a, last->name, g) < 0)
		return -1;
	if (!directive_has(a->accepted + before, "recompute"))
		return 0;
	for (k = 0; k + 1 < a->n_stmt; ++k)
		a->stmt[k].placed = 1;
	last->done = 1;
	return 0;
}

/* ---- fusion for reuse -------------------------------------------------- */

/* The reads of tensor "t" in "e"; with "q" >= 0, -1 if one of them is
 * not t(q). */
static int reads_of(const struct ein_ast_expr *e, int t, int q)
{
	int i, n = 0, m;

	if (e->kind == EIN_EXPR_ACCESS && e->slot == t) {
		if (q >= 0 && (e->n_arg != 1 || !is_index(e->args[0], q)))
			return -1;
		n = 1;
	}
	for (i = 0; i < e->n_arg; ++i) {
		m = reads_of(e->args[i], t, q);
		if (m < 0)
			return -1;
		n += m;
	}
	return n;
}

/* A tensor other than "t" that statements "k" and "c" both read, -1 if
 * none. */
static int shared_read(const struct autosched *a, int k, int c, int t)
{
	int u;

	for (u = 0; u < a->func->n_tensor; ++u)
		if (u != t && reads_of(a->func->stmt[k].ast->rhs, u, -1) > 0 &&
		    reads_of(a->func->stmt[c].ast->rhs, u, -1) > 0)
			return u;
	return -1;
}

/* The statement the fusion rule computes statement "k" in, -1 if none,
 * and in *x the tensor they share.  k writes a temporary T that no
 * other statement writes and one later statement C alone reads, always
 * as T(q), q the index of C's outermost loop; both read a tensor X; and
 * neither is a contraction or a convolution (their tiles have rules of
 * their own).  PolyBench's atax, t(i) +=! A(i, j) * x(j) then
 * y(j) +=! A(i, j) * t(i): computed in each iteration of y's loop i, t(i)
 * reads row i of A just before y reads it again, from the L1, instead of
 * a second pass over the whole of A. */
static int fusion_host(const struct autosched *a, int k, int *x)
{
	const struct ein_func *func = a->func;
	const struct stmt *p = &a->stmt[k];
	struct contraction cc;
	int t = func->stmt[k].ast->lhs->slot, c, i, host = -1;

	if (func->tensor[t].role != EIN_ROLE_TEMP || p->n_loop < 1 ||
	    is_contraction(p, &cc) || is_conv(p, &(struct conv){ 0 }))
		return -1;
	for (i = 0; i < a->n_stmt; ++i) {
		const struct ein_ast_stmt *s = func->stmt[i].ast;

		if (i != k && (s->lhs->slot == t || a->stmt[i].host == k))
			return -1;
		if (i != k && reads_of(s->rhs, t, -1) > 0) {
			if (host >= 0 || i < k)
				return -1;
			host = i;
		}
	}
	if (host < 0)
		return -1;
	c = host;
	if (a->stmt[c].n_loop < 1 || a->stmt[c].host >= 0 ||
	    reads_of(func->stmt[c].ast->rhs, t, a->stmt[c].order[0]) < 1 ||
	    is_contraction(&a->stmt[c], &cc) ||
	    is_conv(&a->stmt[c], &(struct conv){ 0 }))
		return -1;
	*x = shared_read(a, k, c, t);
	return *x < 0 ? -1 : c;
}

/* Offer to compute statement "k" in each iteration of the outermost loop
 * of statement "c", which reads tensor "x" as k does; on success, k's
 * host is c. */
static int fuse(struct autosched *a, int k, int c, int x)
{
	const struct stmt *host = &a->stmt[c];
	const char *q = host->fs->index[host->order[0]];
	struct group g = { 0 };
	char text[512], label[160];
	size_t len = strlen(a->accepted);

	snprintf(text, sizeof(text), "%s: compute_at %s %s\n",
		a->stmt[k].name, host->name, q);
	snprintf(label, sizeof(label), "fusion: %.50s in each iteration of "
		"%.50s's loop %s (both read %s)", a->stmt[k].name, host->name,
		q, a->func->tensor[x].name);
	if (add_alt(&g, strdup(text), label) < 0 ||
	    add_alt(&g, strdup(""), "") < 0) {
		while (g.n > 0)
			free(g.text[--g.n]);
		return -1;
	}
	if (choose(a, host->name, &g) < 0)
		return -1;
	if (strstr(a->accepted + len, text))
		a->stmt[k].host = c;
	return 0;
}

/* Apply the fusion rule to every statement, in source order (after the
 * epilogue rule, whose placements it leaves alone). */
static int fuse_all(struct autosched *a)
{
	int k, c, x;

	for (k = 0; k < a->n_stmt; ++k) {
		/* The epilogue rule placed it, or its reader, already. */
		if (a->stmt[k].placed)
			continue;
		c = fusion_host(a, k, &x);
		if (c >= 0 && !a->stmt[c].placed && fuse(a, k, c, x) < 0)
			return -1;
	}
	return 0;
}

/* ---- epilogues ---------------------------------------------------------- */

/* The first statement of the definition's epilogue: the elementwise
 * statements after its last contraction or convolution, writing
 * temporaries, before a last elementwise statement that writes an output
 * in at least two loops (matmul + bias + GELU, matmul + bias + residual
 * add, as the graph level fuses them); -1 if there is none. */
static int epilogue_start(const struct autosched *a)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	int k, t = last->fs->ast->lhs->slot;

	if (a->n_stmt < 3 || a->func->tensor[t].role != EIN_ROLE_OUTPUT ||
	    last->n_loop < 2 || !is_elementwise(last))
		return -1;
	for (k = a->n_stmt - 2; k >= 0; --k) {
		const struct ein_ast_expr *lhs = a->stmt[k].fs->ast->lhs;

		if (!is_elementwise(&a->stmt[k]) ||
		    a->func->tensor[lhs->slot].role != EIN_ROLE_TEMP)
			break;
	}
	if (k < 0 || k == a->n_stmt - 2 || !has_register_tile(&a->stmt[k]))
		return -1;
	return k + 1;
}

/* The epilogue from statement "first" on computed a vector at a time:
 * the last statement's vector loop in strips of one vector, each
 * producer computed in each strip, so that its temporary is one vector
 * and the chain of elementwise statements is one pass over registers, as
 * if written as one expression; else a row at a time: each producer in
 * the last statement's loop around its innermost, its temporary one row,
 * in cache, instead of a pass over the whole tensor each (the GELU after
 * BERT's 128 x 3072 product: five temporaries of 1.5 MB;
 * docs/performance.md, "The BERT layer").  A row at a time, the five
 * statements of that GELU still made five passes over 12 KiB rows, 60
 * KiB of temporaries per row, past the L1: 0.26 ms per call alone,
 * 0.13 a vector at a time (docs/performance.md, "BERT's GELU
 * epilogue"). */
static int epilogue_group(struct autosched *a, int first, struct group *g)
{
	if (strip_group(a, first, "epilogue", g) < 0 ||
	    add_placement(a, g, first, a->stmt[a->n_stmt - 1].n_loop - 2,
			"epilogue:") < 0)
		return -1;
	return add_alt(g, strdup(""), "");
}

/* Place the epilogue, if the definition has one, and mark its
 * statements placed when it was kept. */
static int place_epilogue(struct autosched *a, struct group *g)
{
	int k, first = epilogue_start(a);
	size_t before = strlen(a->accepted);

	if (first < 0)
		return 0;
	if (epilogue_group(a, first, g) < 0 ||
	    choose(a, a->stmt[a->n_stmt - 1].name, g) < 0)
		return -1;
	if (!directive_has(a->accepted + before, "compute_at"))
		return 0;
	for (k = first; k < a->n_stmt - 1; ++k)
		a->stmt[k].placed = 1;
	a->stmt[a->n_stmt - 1].strip = directive_has(a->accepted + before,
		"split");
	return 0;
}

/* ---- pointwise convolutions -------------------------------------------- */

/* The most vectors along w in a pointwise convolution's register tile
 * (the whole output row: 112 columns = 7 vectors of 16 floats, 56 = 7 of
 * 8). */
#define PW_MAX_VECTORS 8
/* The most output channels (rows) in that tile. */
#define PW_MAX_ROWS 8
/* The most bytes of input that one output row reads (the reduction's
 * channels by the width), read again by every block of output channels:
 * up to here it stays in L1 (MobileNetV2's 144 channels by 56 columns,
 * 31.5 KiB: 0.47 -> 0.42 ms); ResNet-50's 256 x 56 (56 KiB) ran 4.3x
 * slower than the convolution rule (1.40 -> 6.28 ms, one thread). */
#define PW_ROW_BYTES 32768
/* The least reduction channels at which a chain's pointwise convolution
 * runs row by row (struct pwconv, by_row), and the slice of them that
 * each block of output channels reduces at a time: a slice of a row of
 * 56 columns is 14 KiB, read from L1 by every block (one thread,
 * AVX-512, the row order against the channel blocks outermost: ResNet-50's
 * 256 -> 64 channels at 56 x 56 1.62 -> 1.28 ms, 256 -> 128 3.09 -> 2.49,
 * 64 -> 256 1.61 -> 1.40, 64 -> 64 0.42 -> 0.35; MobileNetV2's 96 -> 24
 * 0.24 -> 0.18, 144 -> 24 0.44 -> 0.31, 32 -> 16 0.195 -> 0.18; but
 * 16 -> 96 at 112 columns 0.63 -> 0.97 and 24 -> 144 0.39 -> 0.43: a
 * shallow reduction's row is read from L1 anyway, and the row of all the
 * output channels is then an extra pass; docs/performance.md). */
#define PW_DEEP_CHANNELS 32
#define PW_SLICE 64

/* A pointwise (1 x 1, stride 1) convolution of an NCHW output
 * O(.., f, .., h, w) += X(.., c, .., w) * K(f, c, ..) whose row is a few
 * vectors: MobileNetV2's expansions (16 -> 96 channels at 112 x 112).
 * The convolution rule's vectors along f leave it an accumulated tile
 * transposed back to NCHW per 7 columns, which costs more than the 16
 * products per element (1.38 ms); a GEMM whose columns are the row's w
 * (rows of f, the reduction c, vectors along w, each weight broadcast)
 * reads X and writes O contiguously (0.48 ms, bias and Clip in the tile;
 * one thread, AVX-512).  Only when every size is known, the input that
 * one output row reads fits PW_ROW_BYTES or the rule runs by rows, and
 * the row is at most PW_MAX_VECTORS vectors (pw_tile):
 * c: the convolution; h: the output index before w;
 * lanes, n_vec: the tile's vectors along w (n_vec of them span the
 *	row), rows: its output channels;
 * r: the reduction over the input's channels (the only one of more than
 *	one value), -1 if none or several;
 * by_row: a chain whose reduction r has PW_DEEP_CHANNELS or more: each
 *	output row is computed for all output channels at once, the
 *	reduction in slices of PW_SLICE outside the blocks of output
 *	channels, so that every block reads the slice of the input row
 *	from L1 (the rows then run in parallel). */
struct pwconv {
	struct conv c;
	int h;
	int lanes, n_vec, rows;
	int r;
	int by_row;
};

/* Do the reductions that "e" mentions all have one value in "st"? */
static int unit_reductions(struct autosched *a, const struct stmt *st,
	const struct ein_ast_expr *e)
{
	int p;

	for (p = st->fs->n_lhs; p < st->fs->n_index; ++p)
		if (mentions(e, p) && index_extent(a, st, p) != 1)
			return 0;
	return 1;
}

/* The vectors of "p"'s tile along a row "width" wide on "m": the widest
 * vectors of st->lanes or half that which divide the width into at most
 * PW_MAX_VECTORS; then the most rows, at most PW_MAX_ROWS, that divide
 * the "channels" and keep the accumulators within the registers (28 of
 * AVX-512's 32, 14 of AVX2's 16: a broadcast and a load beside them).
 * 0 if no such tile. */
static int pw_tile(const struct machine *m, struct pwconv *p, int lanes,
	int64_t width, int64_t channels)
{
	int acc = 2 * m->rows + m->rows / 3;

	p->lanes = lanes;
	if (width % p->lanes || width / p->lanes > PW_MAX_VECTORS)
		p->lanes = lanes / 2;
	if (p->lanes < 4 || width <= 0 || width % p->lanes ||
	    width / p->lanes > PW_MAX_VECTORS)
		return 0;
	p->n_vec = width / p->lanes;
	p->rows = acc / p->n_vec;
	if (p->rows > PW_MAX_ROWS)
		p->rows = PW_MAX_ROWS;
	while (p->rows > 1 && channels % p->rows)
		--p->rows;
	return p->rows >= 2;
}

/* Is statement "st" a pointwise convolution (struct pwconv) with a tile
 * at the sizes?  Only when every size is known: the tile spans the row. */
static int is_pointwise(struct autosched *a, const struct stmt *st,
	struct pwconv *p)
{
	const struct ein_ast_expr *lhs = st->fs->ast->lhs, *x, *last;
	int i, pf = -1;
	int64_t width, row;

	struct contraction c;

	if (!a->known || !is_conv(st, &p->c) || p->c.depthwise ||
	    lhs->n_arg < 3 || is_contraction(st, &c))
		return 0;
	x = p->c.x;
	last = x->args[x->n_arg - 1];
	for (i = 0; i + 1 < x->n_arg; ++i)
		if (mentions(x->args[i], p->c.w))
			return 0;
	for (i = 0; i < lhs->n_arg; ++i)
		if (lhs->args[i]->slot == p->c.f)
			pf = i;
	p->h = lhs->args[lhs->n_arg - 2]->slot;
	if (pf < 0 || pf >= lhs->n_arg - 2 || coefficient(last, p->c.w) != 1 ||
	    !unit_reductions(a, st, last) ||
	    !unit_reductions(a, st, x->args[x->n_arg - 2]))
		return 0;
	width = index_extent(a, st, p->c.w);
	row = width * (a->m.vector_bytes / st->lanes);
	p->r = -1;
	for (i = st->fs->n_lhs; i < st->fs->n_index; ++i) {
		int64_t n = index_extent(a, st, i);

		if (n > 1)
			p->r = p->r == -1 ? i : -2;
		row *= n;
	}
	if (p->r < 0)
		p->r = -1;
	p->by_row = a->n_stmt > 1 && p->r >= 0 &&
		index_extent(a, st, p->r) >= PW_DEEP_CHANNELS;
	return row > 0 && (row <= PW_ROW_BYTES || p->by_row) &&
		pw_tile(&a->m, p, st->lanes, width,
			index_extent(a, st, p->c.f));
}

/* Is the definition a pointwise convolution (its first statement)
 * followed by elementwise statements over the same indices, temporaries
 * but the last, which writes an output (bias, Clip, a residual add, as
 * the graph level fuses them)?  Fills "p". */
static int is_pointwise_chain(struct autosched *a, struct pwconv *p)
{
	const struct ein_ast_expr *lhs0 = a->stmt[0].fs->ast->lhs;
	int k, t;

	if (!is_pointwise(a, &a->stmt[0], p))
		return 0;
	for (k = 1; k < a->n_stmt; ++k) {
		const struct ein_ast_expr *lhs = a->stmt[k].fs->ast->lhs;

		t = lhs->slot;
		if (!is_elementwise(&a->stmt[k]) || !plain_access(lhs) ||
		    lhs->n_arg != lhs0->n_arg || a->stmt[k].n_loop !=
		    lhs->n_arg || a->func->tensor[t].role !=
		    (k == a->n_stmt - 1 ? EIN_ROLE_OUTPUT : EIN_ROLE_TEMP))
			return 0;
	}
	return 1;
}

/* Print "st"'s output indices (its default loops) in "f" with indices
 * "f_ix" and "w" (-1: none) split (f_ix.o, w.o), f_ix.i after the index
 * at position "ph" (-1: none). */
static void print_pw_outer(FILE *f, const struct stmt *st, int f_ix, int ph,
	int w)
{
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	const char *const *ix = st->fs->index;
	int d, s;

	for (d = 0; d < lhs->n_arg; ++d) {
		s = lhs->args[d]->slot;
		fprintf(f, " %s%s", ix[s], s == f_ix || s == w ? ".o" : "");
		if (d == ph)
			fprintf(f, " %s.i", ix[f_ix]);
	}
}

/* Print "st"'s output indices (its default loops) in "f" with index
 * "f_ix" moved just before the last one (w): the output channels inside
 * each row. */
static void print_row_outer(FILE *f, const struct stmt *st, int f_ix)
{
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	const char *const *ix = st->fs->index;
	int d, s;

	for (d = 0; d < lhs->n_arg; ++d) {
		s = lhs->args[d]->slot;
		if (d == lhs->n_arg - 1)
			fprintf(f, " %s", ix[f_ix]);
		if (s != f_ix)
			fprintf(f, " %s", ix[s]);
	}
}

/* The loop order of "p"'s tile by rows (by_row) in "f": the output's
 * indices but f and w, the slices of the reduction r, the blocks of f
 * and w, the reductions of one value, then the tile: a slice of r, rows
 * of f by the row's vectors of w. */
static void print_pw_row_order(FILE *f, struct autosched *a,
	const struct stmt *st, const struct pwconv *p)
{
	const struct ein_ast_expr *lhs = st->fs->ast->lhs;
	const char *const *ix = st->fs->index;
	int d, s, r;

	for (d = 0; d < lhs->n_arg; ++d) {
		s = lhs->args[d]->slot;
		if (s != p->c.f && s != p->c.w)
			fprintf(f, " %s", ix[s]);
	}
	fprintf(f, " %s.o %s.o %s.o", ix[p->r], ix[p->c.f], ix[p->c.w]);
	for (r = st->fs->n_lhs; r < st->fs->n_index; ++r)
		if (index_extent(a, st, r) == 1)
			fprintf(f, " %s", ix[r]);
	fprintf(f, " %s.i", ix[p->r]);
}

/* The pointwise convolution's own tile in "f": rows of f by the row's
 * vectors of w, the reductions (those of one value first) outside it,
 * accumulated in a buffer of the tile.  w is split by the row's width
 * first so that the unrolled loop has a constant bound at every size
 * (the schedule is checked with the sizes symbolic): at the sizes, w.o
 * runs once. */
static void print_pw_conv(FILE *f, struct autosched *a, const struct stmt *st,
	const struct pwconv *p)
{
	const char *const *ix = st->fs->index;
	const char *n = st->name;
	int r, unit;

	const char *w = ix[p->c.w];

	if (p->by_row)
		fprintf(f, "%s: split %s %d\n", n, ix[p->r], PW_SLICE);
	fprintf(f, "%s: split %s %d\n%s: split %s %d\n%s: split %s.i %d\n"
		"%s: reorder", n, ix[p->c.f], p->rows, n, w,
		p->n_vec * p->lanes, n, w, p->lanes, n);
	if (p->by_row)
		print_pw_row_order(f, a, st, p);
	else
		print_pw_outer(f, st, p->c.f, -1, p->c.w);
	for (unit = 1; unit >= 0 && !p->by_row; --unit)
		for (r = st->fs->n_lhs; r < st->fs->n_index; ++r)
			if ((index_extent(a, st, r) == 1) == unit)
				fprintf(f, " %s", ix[r]);
	fprintf(f, " %s.i %s.i.o %s.i.i\n", ix[p->c.f], w, w);
	fprintf(f, "%s: accumulate %s.o\n%s: unroll %s.i full\n"
		"%s: unroll %s.i.o full\n%s: vectorize %s.i.i %d\n", n, w,
		n, ix[p->c.f], n, w, n, w, p->lanes);
}

/* The directives of the pointwise rule: the last statement split like
 * the tile (rows of f around its rows of w; by rows: all of f in each
 * row), every other statement computed in each of its rows, the
 * convolution's tile there; the last statement's channel blocks (by
 * rows: its rows) in parallel unless "serial". */
static char *pw_text(struct autosched *a, const struct pwconv *p, int serial)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	const struct ein_ast_expr *lhs = last->fs->ast->lhs;
	const char *const *ix = last->fs->index;
	int k, n = lhs->n_arg, lf = lhs->args[0]->slot, lh, lw;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (k = 0; k < n; ++k)
		if (a->stmt[0].fs->ast->lhs->args[k]->slot == p->c.f)
			lf = lhs->args[k]->slot;
	lh = lhs->args[n - 2]->slot;
	lw = lhs->args[n - 1]->slot;
	if (a->n_stmt == 1) {
		print_pw_conv(f, a, last, p);
		fprintf(f, "%s.init: compute_at %s %s.o\n", last->name,
			last->name, ix[p->c.w]);
	} else {
		if (p->by_row) {
			fprintf(f, "%s: reorder", last->name);
			print_row_outer(f, last, lf);
		} else {
			fprintf(f, "%s: split %s %d\n%s: reorder", last->name,
				ix[lf], p->rows, last->name);
			print_pw_outer(f, last, lf, n - 2, -1);
		}
		fprintf(f, "\n%s: vectorize %s %d\n", last->name, ix[lw],
			p->lanes);
		for (k = a->n_stmt - 2; k >= 0; --k)
			fprintf(f, "%s: compute_at %s %s\n", a->stmt[k].name,
				last->name, ix[lh]);
		for (k = 1; k + 1 < a->n_stmt; ++k) {
			const struct ein_ast_expr *l = a->stmt[k].fs->ast->lhs;

			fprintf(f, "%s: vectorize %s %d\n", a->stmt[k].name,
				a->stmt[k].fs->index[l->args[n - 1]->slot],
				p->lanes);
		}
		print_pw_conv(f, a, &a->stmt[0], p);
	}
	if (!serial && p->by_row)
		fprintf(f, "%s: parallel %s\n", last->name, ix[lh]);
	else if (!serial)
		fprintf(f, "%s: parallel %s.o\n", last->name,
			a->n_stmt == 1 ? ix[p->c.f] : ix[lf]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* Schedule the whole definition by the pointwise rule when it is a
 * pointwise chain (is_pointwise_chain); set a->pointwise when the rule's
 * schedule was kept (nothing else is then added). */
static int place_pointwise(struct autosched *a, struct group *g)
{
	struct pwconv p;
	double work = 0;
	int k, serial;
	char label[160];
	size_t before = strlen(a->accepted);

	if (!is_pointwise_chain(a, &p))
		return 0;
	for (k = 0; k < a->n_stmt && work >= 0; ++k)
		work = a->stmt[k].work < 0 ? -1 : work + a->stmt[k].work;
	serial = work >= 0 && work < PARALLEL_MIN_WORK;
	snprintf(label, sizeof(label), "pointwise convolution: %d rows of %s "
		"by %d vectors of %d along %s%s%s%s", p.rows,
		a->stmt[0].fs->index[p.c.f], p.n_vec, p.lanes,
		a->stmt[0].fs->index[p.c.w], a->n_stmt > 1 ?
		", the elementwise statements in its rows" : "",
		p.by_row ? ", by rows, slices of the reduction " : "",
		p.by_row ? a->stmt[0].fs->index[p.r] : "");
	if (!serial && add_alt(g, pw_text(a, &p, 0), label) < 0)
		return -1;
	if (add_alt(g, pw_text(a, &p, 1), label) < 0)
		return -1;
	if (choose(a, a->stmt[a->n_stmt - 1].name, g) < 0)
		return -1;
	a->pointwise = strstr(a->accepted + before, "accumulate") != NULL;
	return 0;
}

/* ---- the whole definition ---------------------------------------------- */

/* Does the fusion or the epilogue rule compute another statement in
 * statement k's loops? */
static int is_hosting(const struct autosched *a, int k)
{
	int i;

	for (i = 0; i < a->n_stmt; ++i)
		if (a->stmt[i].host == k)
			return 1;
	return 0;
}

/* The flops of contraction "st" at the known sizes, two per instance
 * of its update (its initialisation not counted); -1 if a size is not
 * known or on error. */
static double contraction_flops(struct autosched *a, const struct stmt *st)
{
	isl_set *params, *dom;
	double n;

	if (!a->known)
		return -1;
	params = fixed_sizes(a);
	dom = isl_set_intersect_params(isl_set_copy(st->fs->domain), params);
	n = dom ? ein_count_points(dom, NULL) : -1;
	isl_set_free(dom);
	return n < 0 ? -1 : 2 * n;
}

/* Statement "st" runs serially, having "amount" "unit" of work, below
 * "limit": say so in the summary and in a comment of the schedule. */
static int note_serial(struct autosched *a, const struct stmt *st,
	double amount, const char *unit, long limit)
{
	a->serial = 1;
	if (append(&a->summary, a->summary[0] ? "; " : "", "%s: not "
			"parallel (%.0f %s)", st->name, amount, unit) < 0)
		return -1;
	return append(&a->accepted, "", "# %s: not parallel: %.0f %s at "
		"these sizes, below %ld\n", st->name, amount, unit, limit);
}

/* Does contraction "st", scheduled by the contraction rule (outside a
 * chain, not placed in another's loop), have too little work for its
 * tiles to run in parallel, fewer than PARALLEL_MIN_TILE_FLOPS?  Then
 * say so in a comment. */
static int set_serial_contraction(struct autosched *a, struct stmt *st)
{
	double flops = contraction_flops(a, st);

	st->serial = flops >= 0 && flops < PARALLEL_MIN_TILE_FLOPS;
	if (!st->serial)
		return 0;
	return note_serial(a, st, flops, "flops", PARALLEL_MIN_TILE_FLOPS);
}

/* Decide whether statement k runs serially: a contraction the
 * contraction rule schedules when it has too little work for parallel
 * tiles (set_serial_contraction); any other when the work under its
 * outermost loop, its own instances (in a chain, the last statement's
 * loop runs every producer too: all of theirs), is known and below
 * PARALLEL_MIN_WORK; say so in a comment. */
static int set_serial(struct autosched *a, int k)
{
	struct stmt *st = &a->stmt[k];
	double work = st->work;
	int i;
	struct contraction c;

	if (!a->chain && st->host < 0 && !st->placed && !is_hosting(a, k) &&
	    is_contraction(st, &c))
		return set_serial_contraction(a, st);

	if (a->chain && k == a->n_stmt - 1)
		for (i = 0; i + 1 < a->n_stmt && work >= 0; ++i)
			work = a->stmt[i].work < 0 ? -1 :
				work + a->stmt[i].work;
	for (i = 0; i < a->n_stmt && work >= 0; ++i)
		if (a->stmt[i].host == k)
			work = a->stmt[i].work < 0 ? -1 :
				work + a->stmt[i].work;
	st->serial = work >= 0 && work < PARALLEL_MIN_WORK;
	/* A chain's producer, or one the fusion or the epilogue rule
	 * placed, has no loop of its own to run in parallel. */
	if (!st->serial || (a->chain && k != a->n_stmt - 1) || st->host >= 0 ||
	    st->placed ||
	    (parallel_index(st) < 0 && (a->chain || !is_contraction(st, &c))))
		return 0;
	return note_serial(a, st, work, "instances", PARALLEL_MIN_WORK);
}

/* The group of statement k. */
static int stmt_group(struct autosched *a, int k, struct group *g)
{
	struct stmt *st = &a->stmt[k];
	struct contraction c;
	struct conv cv;
	struct dot4_gemm dg;
	struct dwconv dw;
	struct pool pl;
	int last = k == a->n_stmt - 1;

	if (st->done)
		return 0;
	if (set_serial(a, k) < 0)
		return -1;
	if (a->chain && a->dw_depth >= 0)
		return dw_chain_group(a, k, g);
	if (!a->chain && is_depthwise(st, &dw) &&
	    dw_group(a, st, &dw, !st->serial, 0, g) < 0)
		return -1;
	if (!a->chain && is_contraction(st, &c) &&
	    contraction_group(a, st, &c, g) < 0)
		return -1;
	if (!a->chain && !is_contraction(st, &c) && is_conv(st, &cv) &&
	    !cv.depthwise && conv_group(a, st, &cv, g) < 0)
		return -1;
	if (!a->chain && is_dot4_conv(st, &cv) && last_extent_4(a, cv.k) &&
	    conv_group(a, st, &cv, g) < 0)
		return -1;
	if (!a->chain && is_dot4_gemm(st, &dg) && last_extent_4(a, dg.s) &&
	    dot4_gemm_group(a, st, &dg, g) < 0)
		return -1;
	if (!a->chain && st->host < 0 && !st->placed && is_pool(st, &pl) &&
	    pool_group(a, st, &pl, !st->serial, g) < 0)
		return -1;
	/* A producer placed in the chain's loop (or by the fusion or the
	 * epilogue rule) keeps its own inner loops only: its outermost is
	 * the consumer's. */
	if ((a->chain && !last) || st->host >= 0 || st->placed)
		return simple_group(st, 0, st->n_loop >= 2, 0, g);
	/* The chain's output is written once, a row at a time, and not
	 * read again by the kernel: non-temporal stores save reading its
	 * lines first (softmax 4096^2: 15.2 -> 12.1 ms, docs/performance.md). */
	return simple_group(st, !st->serial, 1, a->chain && last, g);
}

static int schedule_all(struct autosched *a)
{
	struct group g = { 0 };
	int k;

	if (place_pointwise(a, &g) < 0)
		return -1;
	if (a->pointwise)
		return 0;
	a->dw_depth = dw_chain_depth(a);
	if (is_chain(a)) {
		size_t before = strlen(a->accepted);

		if (chain_group(a, &g) < 0)
			return -1;
		a->chain = 1;
		if (choose(a, a->stmt[a->n_stmt - 1].name, &g) < 0)
			return -1;
		a->chain = directive_has(a->accepted, "compute_at");
		a->stmt[a->n_stmt - 1].strip = a->chain &&
			directive_has(a->accepted + before, "split");
	}
	if (!a->chain) {
		a->dw_depth = -1;
		if (is_stencil_chain(a) && place_stencil(a, &g) < 0)
			return -1;
	}
	if (!a->chain && !a->stmt[a->n_stmt - 1].done) {
		if (place_epilogue(a, &g) < 0 || fuse_all(a) < 0)
			return -1;
	}
	for (k = 0; k < a->n_stmt; ++k) {
		if (stmt_group(a, k, &g) < 0 ||
		    choose(a, a->stmt[k].name, &g) < 0) {
			for (k = 0; k < g.n; ++k)
				free(g.text[k]);
			return -1;
		}
	}
	return 0;
}

/* The rule for any statement, for every statement of the definition at
 * once: vectorised and parallel ("level" 0) or vectorised only (1), as
 * simple_text, a statement whose work is known and below
 * PARALLEL_MIN_WORK never parallel. */
static char *many_text(struct autosched *a, int level)
{
	char *text = strdup(""), *one;
	int k;

	for (k = 0; text && k < a->n_stmt; ++k) {
		const struct stmt *st = &a->stmt[k];
		int serial = st->work >= 0 && st->work < PARALLEL_MIN_WORK;
		int p = level == 0 && !serial ? parallel_index(st) : -1;

		one = simple_text(st, vector_index(st), p, 0);
		if (!one || append(&text, "", "%s", one) < 0) {
			free(one);
			free(text);
			return NULL;
		}
		free(one);
	}
	return text;
}

/* Schedule a definition of more than MAX_AUTO_STMTS statements: the rule
 * for any statement applied to all of them in one group, so that the
 * rules check a few models, not one per candidate of each statement
 * (1,600 one-line statements: past 30 s one statement at a time); the
 * other rules (contractions, chains, fusion), whose candidates each need
 * a model, do not run. */
static int schedule_many(struct autosched *a)
{
	struct group g = { 0 };
	char what[64];

	snprintf(what, sizeof(what), "%d statements (more than %d)",
		a->n_stmt, MAX_AUTO_STMTS);
	if (add_alt(&g, many_text(a, 0), "every statement: the rule for "
			"any statement") < 0 ||
	    add_alt(&g, many_text(a, 1), "every statement: vectorised, not "
			"parallel") < 0 ||
	    add_alt(&g, strdup(""), "") < 0) {
		while (g.n > 0)
			free(g.text[--g.n]);
		return -1;
	}
	return choose(a, what, &g);
}

/* Does "text" hold a directive (a line that is not a comment)? */
static int has_directive(const char *text)
{
	while (*text) {
		if (*text != '#' && *text != '\n')
			return 1;
		text += strcspn(text, "\n");
		text += *text == '\n';
	}
	return 0;
}

/* Does "sizes" give every size of "func"? */
static int all_known(const struct ein_func *func, const int64_t *sizes)
{
	int i;

	for (i = 0; i < func->n_size; ++i)
		if (!sizes || sizes[i] <= 0)
			return 0;
	return 1;
}

/* The sizes the cost model scores at (auto.h). */
static int64_t *model_sizes(const struct ein_func *func, const int64_t *sizes)
{
	int64_t *v = calloc(func->n_size + 1, sizeof(*v));
	int i;

	for (i = 0; v && i < func->n_size; ++i)
		v[i] = sizes && sizes[i] > 0 ? sizes[i] : EIN_AUTO_MODEL_SIZE;
	return v;
}

__isl_give struct ein_sched_file *ein_sched_auto(ein_ctx *ctx,
	const struct ein_func *func, const char *target, int strict,
	int model, const int64_t *sizes, __isl_give char **why)
{
	struct autosched a = { 0 };
	struct ein_diag_mark mark = ein_diag_get_mark(ctx);
	struct ein_sched_file *file = NULL;
	char *text = NULL;

	*why = NULL;
	a.ctx = ctx;
	a.func = func;
	a.target = target;
	a.strict = strict;
	a.model = model && ein_cost_model_n_tree() > 0;
	a.sizes = model_sizes(func, sizes);
	a.known = all_known(func, sizes);
	a.m = machine_of(target);
	a.accepted = strdup("");
	a.summary = strdup("");
	a.memo = a.model ? ein_features_memo_alloc() : NULL;
	if (func->n_stmt > MAX_MANY_STMTS) {
		char msg[96];

		snprintf(msg, sizeof(msg), "no rule applies: %d statements, "
			"more than the %d the rules schedule", func->n_stmt,
			MAX_MANY_STMTS);
		*why = strdup(msg);
	} else if (a.accepted && a.summary && a.sizes &&
	    (a.memo || !a.model) && init_stmts(&a) == 0 &&
	    (func->n_stmt > MAX_AUTO_STMTS ? schedule_many(&a) :
	     schedule_all(&a)) == 0) {
		if (has_directive(a.accepted) || a.serial)
			text = file_text(&a, a.accepted);
		if (text)
			file = ein_sched_file_parse(ctx,
				ein_src_alloc("(automatic)", text));
		*why = strdup(a.summary[0] ? a.summary :
			"no rule applies: the default schedule");
	}
	free(text);
	free(ein_diag_rollback(ctx, mark));
	free(a.stmt);
	ein_deps_free(a.deps);
	ein_scop_free(a.scop);
	ein_features_memo_free(a.memo);
	free(a.sizes);
	free(a.accepted);
	free(a.summary);
	return file;
}
