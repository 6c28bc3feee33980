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
#include "sched/schedule.h"
#include "sched/apply.h"
#include "sched/auto.h"
#include "sched/cost.h"
#include "sched/features.h"

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
#define MAX_INDEX 16
#define MAX_ALT 16
/* The most statements the rules schedule.  Each candidate is checked on
 * a fresh model of the whole definition, so the rules cost about n^2
 * models (1,600 one-line statements ran past 30 s, the default schedule
 * takes 1.8 s); above this count the definition keeps the default
 * schedule (no kernel of tests/kernels or examples has more than 5). */
#define MAX_AUTO_STMTS 32

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
 * work: its instances (its initialisation's too) at the sizes when every
 *	size is known, else -1;
 * serial: no loop of it runs in parallel (too little work under it). */
struct stmt {
	const struct ein_func_stmt *fs;
	char name[80];
	int n_loop;
	int order[MAX_INDEX];
	int lanes;
	double work;
	int serial;
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
 *	them; memo: the counts of the features computed so far. */
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
};

static struct machine machine_of(const char *target)
{
	struct machine m = { 16, 8 };

	if (strstr(target, "avx512"))
		m.vector_bytes = 64, m.rows = 12;
	else if (strstr(target, "avx2"))
		m.vector_bytes = 32, m.rows = 6;
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

/* The largest element size of the tensors "e" accesses, at least "size". */
static int widest(const struct ein_func *func, const struct ein_ast_expr *e,
	int size)
{
	int i;

	if (e->kind == EIN_EXPR_ACCESS) {
		int s = ein_type_size(func->tensor[e->slot].type);

		if (s > size)
			size = s;
	}
	for (i = 0; i < e->n_arg; ++i)
		size = widest(func, e->args[i], size);
	return size;
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
	params = isl_set_universe(ein_func_get_param_space(a->ctx, a->func));
	for (i = 0; i < a->func->n_size; ++i)
		params = ein_specialize_fix(params, isl_dim_param, i,
			a->sizes[i]);
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
		stmt_name(func, k, st->name, sizeof(st->name));
		size = widest(func, st->fs->ast->lhs,
			widest(func, st->fs->ast->rhs, 1));
		st->lanes = a->m.vector_bytes / size;
		if (st->lanes < 1)
			st->lanes = 1;
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

/* Is statement "st" a contraction (GEMM-like once its indices are named:
 * the output's last index j read by one operand only, an output index i
 * read by the other only, a reduction k read by both)?  Fills "c". */
static int is_contraction(const struct stmt *st, struct contraction *c)
{
	const struct ein_ast_stmt *s = st->fs->ast;
	const struct ein_ast_expr *f0, *f1;

	if (s->op != EIN_ASSIGN_ADD || s->rhs->kind != EIN_EXPR_BINARY ||
	    s->rhs->op != EIN_OP_MUL || !plain_access(s->lhs) ||
	    s->lhs->n_arg < 2 || st->fs->n_index > MAX_INDEX)
		return 0;
	f0 = conv_factor(s->rhs->args[0]);
	f1 = conv_factor(s->rhs->args[1]);
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

/* The BLIS template for "c" at "level": 0 everything, 1 without pack, 2
 * without accumulate either, 3 without unrolling the rows either; with
 * register tiles of "rows" rows and reduction slices of "slice". */
static char *contraction_text(const struct stmt *st,
	const struct contraction *c, int rows, int slice, int level)
{
	const char *const *ix = st->fs->index;
	const char *n = st->name;
	int w = 2 * st->lanes, p;
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
	fprintf(f, "%s: vectorize %s.i %d\n", n, ix[c->j], w);
	if (st->serial)
		;
	else if (c->n_outer)
		fprintf(f, "%s: parallel %s\n", n, ix[c->outer[0]]);
	else
		fprintf(f, "%s: parallel %s.o\n", n, ix[c->j]);
	if (st->fs->ast->init && !st->serial)
		fprintf(f, "%s.init: parallel %s\n", n, ix[0]);
	if (fclose(f) != 0)
		return free(text), NULL;
	return text;
}

/* The register tiles and slices the cost model chooses among: the
 * machine's rows and half of them, slices of K_SLICE, half and double. */
#define N_SHAPE 6

/* Add the BLIS template with everything at "rows" x "slice" to "g". */
static int add_blis(struct group *g, const struct stmt *st,
	const struct contraction *c, int rows, int slice)
{
	char label[160];

	snprintf(label, sizeof(label), "contraction (BLIS: register tile, "
		"packed panel), rows %s, vectors %s, slices of %s, %d x %d, "
		"slice %d", st->fs->index[c->i], st->fs->index[c->j],
		st->fs->index[c->k], rows, 2 * st->lanes, slice);
	return add_alt(g, contraction_text(st, c, rows, slice, 0), label);
}

/* The alternatives of the contraction rule for "st": with the cost
 * model, the full template at each register tile and slice of N_SHAPE
 * first, scored; then (or without it, only) the machine's shape at each
 * level. */
static int contraction_group(struct autosched *a, const struct stmt *st,
	const struct contraction *c, struct group *g)
{
	static const char *const what[] = {
		"contraction (BLIS: register tile, packed panel)",
		"contraction without pack",
		"contraction without pack and accumulate",
		"contraction tiled and vectorised only",
	};
	int level, k;

	for (k = 0; a->model && k < N_SHAPE; ++k)
		if (add_blis(g, st, c, k % 2 ? a->m.rows / 2 : a->m.rows,
				(K_SLICE / 2) << (k / 2)) < 0)
			return -1;
	g->n_scored = g->n;
	for (level = a->model; level < 4; ++level) {
		char label[160];

		snprintf(label, sizeof(label), "%s, rows %s, vectors %s, "
			"slices of %s", what[level], st->fs->index[c->i],
			st->fs->index[c->j], st->fs->index[c->k]);
		if (add_alt(g, contraction_text(st, c, a->m.rows, K_SLICE,
				level), label) < 0)
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
 * width: w's extent at the sizes (the model's stand-in when not known);
 * lanes, n_vec: the tile's vectors along f, of "lanes" elements each;
 * unit: unit[p] when index p has one value (a 1x1 window's r and s),
 *	left out of the weights' pack layout (it reads them at a constant). */
struct conv {
	const struct ein_ast_expr *x, *k;
	int f, w;
	int depthwise;
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
	int i;

	params = isl_set_universe(ein_func_get_param_space(a->ctx, a->func));
	for (i = 0; i < a->func->n_size; ++i)
		params = ein_specialize_fix(params, isl_dim_param, i,
			a->sizes[i]);
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
 * template at the machine's tile. */
static int conv_group(struct autosched *a, const struct stmt *st,
	struct conv *c, struct group *g)
{
	static const char *const what[] = {
		"convolution (register tile, packed weights)",
		"convolution without pack",
		"convolution without pack and accumulate",
	};
	int level, cols, p;

	for (p = 0; p < st->fs->n_index; ++p)
		c->unit[p] = index_extent(a, st, p) == 1;
	c->width = index_extent(a, st, c->w);
	conv_vectors(c, st->lanes, index_extent(a, st, c->f));
	cols = conv_columns(&a->m, c->width, c->n_vec * c->lanes *
		(a->m.vector_bytes / st->lanes));
	for (level = 0; level < 3; ++level) {
		char label[160];

		snprintf(label, sizeof(label), "%s%s, vectors %s, %d columns "
			"of %s", what[level], c->depthwise ? " (depthwise)" :
			"", st->fs->index[c->f], cols, st->fs->index[c->w]);
		if (add_alt(g, conv_text(st, c, cols, level), label) < 0)
			return -1;
	}
	return 0;
}

/* Is statement "st" a convolution that the convolution rule schedules
 * (not depthwise: its input's vectors along f would be gathers)? */
static int is_dense_conv(const struct stmt *st)
{
	struct conv c;

	return is_conv(st, &c) && !c.depthwise;
}

/* ---- any statement ----------------------------------------------------- */

/* The loop to vectorise in "st": its innermost default loop, if an access
 * is contiguous along it and none strided; -1 if none. */
static int vector_index(const struct stmt *st)
{
	int v;

	if (st->n_loop == 0)
		return -1;
	v = st->order[st->n_loop - 1];
	if (contiguity(st->fs->ast->lhs, v) + contiguity(st->fs->ast->rhs, v)
			<= 0)
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
			fprintf(f, "%s: vectorize %s %d\n", st->name, ix[v],
				st->lanes);
		if (p >= 0)
			fprintf(f, "%s: parallel %s\n", st->name, ix[p]);
	}
	if (stream && v >= 0)
		fprintf(f, "%s: stream %s%s\n", st->name, ix[v],
			v == p ? ".i" : "");
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

/* ---- chains ------------------------------------------------------------ */

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
		if (is_contraction(&a->stmt[k], &c) ||
		    is_dense_conv(&a->stmt[k]) ||
		    func->tensor[lhs->slot].role != EIN_ROLE_TEMP ||
		    lhs->n_arg < 1 || lhs->args[0]->kind != EIN_EXPR_IDENT)
			return 0;
	}
	return 1;
}

/* Place every producer in the last statement's outermost loop, the
 * latest producer first (each is then placed where its first reader,
 * already inside, reads it). */
static int chain_group(struct autosched *a, struct group *g)
{
	const struct stmt *last = &a->stmt[a->n_stmt - 1];
	const char *loop = last->fs->index[last->order[0]];
	char *text = NULL, label[160];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int k;

	if (!f)
		return -1;
	for (k = a->n_stmt - 2; k >= 0; --k)
		fprintf(f, "%s: compute_at %s %s\n", a->stmt[k].name,
			last->name, loop);
	if (fclose(f) != 0)
		return free(text), -1;
	snprintf(label, sizeof(label), "chain: the producers computed in "
		"each iteration of %s's loop %s", last->name, loop);
	if (add_alt(g, text, label) < 0)
		return -1;
	return add_alt(g, strdup(""), "");
}

/* ---- the whole definition ---------------------------------------------- */

/* Decide whether statement k runs serially: when the work under its
 * outermost loop, its own instances (in a chain, the last statement's
 * loop runs every producer too: all of theirs), is known and below
 * PARALLEL_MIN_WORK; say so in a comment. */
static int set_serial(struct autosched *a, int k)
{
	struct stmt *st = &a->stmt[k];
	double work = st->work;
	int i;
	struct contraction c;

	if (a->chain && k == a->n_stmt - 1)
		for (i = 0; i + 1 < a->n_stmt && work >= 0; ++i)
			work = a->stmt[i].work < 0 ? -1 :
				work + a->stmt[i].work;
	st->serial = work >= 0 && work < PARALLEL_MIN_WORK;
	/* A chain's producer has no loop of its own to run in parallel. */
	if (!st->serial || (a->chain && k != a->n_stmt - 1) ||
	    (parallel_index(st) < 0 && (a->chain || !is_contraction(st, &c))))
		return 0;
	a->serial = 1;
	if (append(&a->summary, a->summary[0] ? "; " : "", "%s: not "
			"parallel (%.0f instances)", st->name, work) < 0)
		return -1;
	return append(&a->accepted, "", "# %s: not parallel: %.0f "
		"instances at these sizes, below %d\n", st->name, work,
		PARALLEL_MIN_WORK);
}

/* The group of statement k. */
static int stmt_group(struct autosched *a, int k, struct group *g)
{
	struct stmt *st = &a->stmt[k];
	struct contraction c;
	struct conv cv;
	int last = k == a->n_stmt - 1;

	if (set_serial(a, k) < 0)
		return -1;
	if (!a->chain && is_contraction(st, &c) &&
	    contraction_group(a, st, &c, g) < 0)
		return -1;
	if (!a->chain && !is_contraction(st, &c) && is_conv(st, &cv) &&
	    !cv.depthwise && conv_group(a, st, &cv, g) < 0)
		return -1;
	/* A producer placed in the chain's loop keeps its own inner loops
	 * only: its outermost is the consumer's. */
	if (a->chain && !last)
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

	if (is_chain(a)) {
		if (chain_group(a, &g) < 0)
			return -1;
		a->chain = 1;
		if (choose(a, a->stmt[a->n_stmt - 1].name, &g) < 0)
			return -1;
		a->chain = strstr(a->accepted, "compute_at") != NULL;
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
	if (func->n_stmt > MAX_AUTO_STMTS) {
		char msg[96];

		snprintf(msg, sizeof(msg), "no rule applies: %d statements, "
			"more than the %d the rules schedule", func->n_stmt,
			MAX_AUTO_STMTS);
		*why = strdup(msg);
	} else if (a.accepted && a.summary && a.sizes &&
	    (a.memo || !a.model) && init_stmts(&a) == 0 &&
	    schedule_all(&a) == 0) {
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
