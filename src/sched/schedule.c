/*
 * schedule.c: named loop nests per statement, their 2d+1 vectors, and the
 * schedule tree (see schedule.h for the model).
 *
 * The default loop order of an update keeps the source order of its
 * indices (left-hand side, then reductions) except that the index that
 * makes the most accesses contiguous, and none strided, goes innermost,
 * so that the vectoriser sees stride-1 accesses.  This is only done when the
 * statement reads the tensor it writes at the written element alone: the
 * updates of each output element then still happen in the order of the
 * reduction indices, so the result is bit-identical to the source order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <isl/schedule_node.h>
#include <isl/ilp.h>
#include "sched/schedule.h"
#include "sched/isolate.h"

/* A loop of a statement: its name, its value over the statement's domain,
 * what the schedule asks of it, and the local buffers it asks for in its
 * iterations (n_local, local). */
struct loop {
	char *name;
	isl_pw_aff *value;
	struct ein_loop_attr attr;
	int n_local;
	struct ein_local *local;
};

/* The loops of a statement, outermost first, and its placement: in the
 * first "level" loops of statement "parent" (-1: none), as compute_at
 * (with "recompute": 1 asked for, placed as a store until 2, lowered:
 * its first "level" dimensions are then parent's loop values, as a
 * copy's), fused, or as a copy ("copy", the kind of the scop statement:
 * its first "level" dimensions are parent's loop values, and it runs
 * before or after parent's statements at that level; "slot" orders the
 * copies). */
struct stmt_sched {
	int n_loop;
	struct loop *loop;
	int parent;
	int level;
	int compute_at;
	int recompute;
	enum ein_stmt_kind copy;
	int slot;
};

/* The statements: s[i] is the schedule of scop->stmt[i]; n_copy of them
 * are copies. */
struct ein_schedule {
	struct ein_scop *scop;
	int n;
	struct stmt_sched *s;
	int n_copy;
};

/* The 2d+1 vector of a statement: n_level loop values val[k], with
 * positions pos[0..n_level], and the attributes of the statement's own
 * loop at each level (NULL where the level is another statement's). */
struct vec {
	int n_level;
	int *pos;
	isl_pw_aff **val;
	const struct ein_loop_attr **attr;
	isl_set **iso;
};

static void loop_clear(struct loop *l)
{
	free(l->name);
	free(l->local);
	isl_pw_aff_free(l->value);
}

/* The scop statement of statement "i" (the scop's statements may move when
 * copies are added, so none is kept). */
static struct ein_scop_stmt *stmt_at(const struct ein_schedule *s, int i)
{
	return &s->scop->stmt[i];
}

void ein_schedule_free(struct ein_schedule *s)
{
	int i, j;

	if (!s)
		return;
	for (i = 0; i < s->n; ++i) {
		for (j = 0; j < s->s[i].n_loop; ++j)
			loop_clear(&s->s[i].loop[j]);
		free(s->s[i].loop);
	}
	free(s->s);
	free(s);
}

static void attr_free(void *user)
{
	free(user);
}

const struct ein_loop_attr *ein_loop_attr_from_id(__isl_keep isl_id *id)
{
	const char *name = id ? isl_id_get_name(id) : NULL;

	if (!name || strncmp(name, EIN_LOOP_MARK, strlen(EIN_LOOP_MARK)))
		return NULL;
	return isl_id_get_user(id);
}

/* The name of a mark: "ein: parallel vectorize 8 unroll 4" (or "ein:
 * scalar"), which is what the AST printer shows above the loop. */
static void mark_name(char *buf, size_t len, const struct ein_loop_attr *a)
{
	int n = snprintf(buf, len, "%s", EIN_LOOP_MARK);

	if (a->parallel)
		n += snprintf(buf + n, len - n, " parallel");
	if (a->vector)
		n += snprintf(buf + n, len - n, " vectorize %d", a->vector);
	if (a->stream)
		n += snprintf(buf + n, len - n, " stream");
	if (a->scalar)
		n += snprintf(buf + n, len - n, " scalar");
	if (a->gpu_block)
		n += snprintf(buf + n, len - n, " gpu_block %d",
			a->gpu_block - 1);
	if (a->gpu_thread)
		n += snprintf(buf + n, len - n, " gpu_thread %d",
			a->gpu_thread - 1);
	if (a->gpu_copy)
		n += snprintf(buf + n, len - n, " gpu_copy %d",
			a->gpu_copy - 1);
	if (a->unroll < 0)
		snprintf(buf + n, len - n, " unroll full");
	else if (a->unroll)
		snprintf(buf + n, len - n, " unroll %d", a->unroll);
}

/* Does "expr" read tensor "tensor" anywhere? */
static int reads_tensor(const struct ein_ast_expr *expr, int tensor)
{
	int i;

	if (expr->kind == EIN_EXPR_ACCESS && expr->slot == tensor)
		return 1;
	for (i = 0; i < expr->n_arg; ++i)
		if (reads_tensor(expr->args[i], tensor))
			return 1;
	return 0;
}

/* Does "expr" mention index variable "pos"? */
static int mentions(const struct ein_ast_expr *expr, int pos)
{
	int i;

	if (expr->kind == EIN_EXPR_IDENT)
		return expr->ident_kind == EIN_IDENT_INDEX && expr->slot == pos;
	for (i = 0; i < expr->n_arg; ++i)
		if (mentions(expr->args[i], pos))
			return 1;
	return 0;
}

/* The weight of an access whose address moves by a row or more when an
 * index changes: one such access outweighs any number of contiguous
 * ones. */
#define STRIDED 1000

/* How well "expr" suits index "pos" as the innermost loop: each access
 * in it that "pos" indexes through its last subscript only (stride 1)
 * counts 1, each that "pos" indexes through another subscript (a large
 * stride) counts -STRIDED; accesses "pos" does not index do not count
 * (they are invariant in that loop). */
static int innermost_score(const struct ein_ast_expr *expr, int pos)
{
	int i, n = 0;

	if (expr->kind == EIN_EXPR_ACCESS && expr->n_arg > 0) {
		for (i = 0; i + 1 < expr->n_arg; ++i)
			if (mentions(expr->args[i], pos))
				n -= STRIDED;
		if (n == 0 && mentions(expr->args[expr->n_arg - 1], pos))
			n = 1;
	}
	for (i = 0; i < expr->n_arg; ++i)
		n += innermost_score(expr->args[i], pos);
	return n;
}

/* Fill order[0 .. n_index-1] with the default loop order of the update of
 * source statement "fs" (see the head comment): the index with the best
 * innermost_score over the statement's accesses moves innermost, if it
 * has a positive one; on a tie, the later index of the left-hand side
 * (so that stores are contiguous), else the later index. */
static void default_order(const struct ein_func_stmt *fs, int *order)
{
	int i, best = -1, best_n = 0, k = 0;

	for (i = 0; i < fs->n_index; ++i)
		order[i] = i;
	if (fs->n_index == 0 || reads_tensor(fs->ast->rhs, fs->ast->lhs->slot))
		return;
	for (i = fs->n_index - 1; i >= 0; --i) {
		int n = innermost_score(fs->ast->lhs, i) +
			innermost_score(fs->ast->rhs, i);

		if (n > best_n || (n == best_n && n > 0 && best >= fs->n_lhs &&
				i < fs->n_lhs)) {
			best = i;
			best_n = n;
		}
	}
	if (best < 0)
		return;
	for (i = 0; i < fs->n_index; ++i)
		if (i != best)
			order[k++] = i;
	order[k] = best;
}

/* Index variable "pos" of "stmt" as a function on its domain. */
static __isl_give isl_pw_aff *index_value(struct ein_scop_stmt *stmt, int pos)
{
	isl_space *space = isl_set_get_space(stmt->domain);
	isl_aff *aff = isl_aff_var_on_domain(isl_local_space_from_space(space),
		isl_dim_set, pos);

	return isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(aff),
		isl_set_copy(stmt->domain));
}

/* Give statement "i" one loop per index, in the order "order" (NULL:
 * the indices' order), named after the indices. */
static int init_stmt(struct ein_schedule *s, int i, const int *order)
{
	struct stmt_sched *ss = &s->s[i];
	const struct ein_func_stmt *fs;
	int k, n = isl_set_dim(stmt_at(s, i)->domain, isl_dim_set);

	fs = &s->scop->func->stmt[stmt_at(s, i)->src];
	ss->parent = -1;
	ss->loop = calloc(n + 1, sizeof(*ss->loop));
	if (!ss->loop)
		return -1;
	ss->n_loop = n;
	for (k = 0; k < n; ++k) {
		int pos = order ? order[k] : k;

		ss->loop[k].name = strdup(fs->index[pos]);
		ss->loop[k].value = index_value(stmt_at(s, i), pos);
		if (!ss->loop[k].name || !ss->loop[k].value)
			return -1;
	}
	return 0;
}

static struct ein_schedule *schedule_alloc(struct ein_scop *scop, int reorder)
{
	struct ein_schedule *s = calloc(1, sizeof(*s));
	int i;

	if (!s)
		return NULL;
	s->scop = scop;
	s->s = calloc(scop->n_stmt + 1, sizeof(*s->s));
	if (!s->s)
		return (ein_schedule_free(s), NULL);
	s->n = scop->n_stmt;
	for (i = 0; i < s->n; ++i) {
		struct ein_scop_stmt *stmt = &scop->stmt[i];
		const struct ein_func_stmt *fs = &scop->func->stmt[stmt->src];
		int order[fs->n_index + 1];

		default_order(fs, order);
		if (init_stmt(s, i, reorder && !stmt->is_init ? order : NULL))
			return (ein_schedule_free(s), NULL);
	}
	return s;
}

struct ein_schedule *ein_schedule_source(struct ein_scop *scop)
{
	return schedule_alloc(scop, 0);
}

struct ein_schedule *ein_schedule_default(struct ein_scop *scop)
{
	return schedule_alloc(scop, 1);
}

struct ein_schedule *ein_schedule_copy(const struct ein_schedule *s)
{
	struct ein_schedule *dup = calloc(1, sizeof(*dup));
	int i, j;

	if (!dup)
		return NULL;
	dup->scop = s->scop;
	dup->s = calloc(s->n + 1, sizeof(*dup->s));
	if (!dup->s)
		return (ein_schedule_free(dup), NULL);
	dup->n = s->n;
	dup->n_copy = s->n_copy;
	for (i = 0; i < s->n; ++i) {
		struct stmt_sched *d = &dup->s[i];

		*d = s->s[i];
		d->loop = calloc(d->n_loop + 1, sizeof(*d->loop));
		if (!d->loop) {
			d->n_loop = 0;
			return (ein_schedule_free(dup), NULL);
		}
		for (j = 0; j < d->n_loop; ++j) {
			const struct loop *l = &s->s[i].loop[j];

			d->loop[j] = *l;
			d->loop[j].name = strdup(l->name);
			d->loop[j].value = isl_pw_aff_copy(l->value);
			d->loop[j].local = malloc((l->n_local + 1) *
				sizeof(*l->local));
			if (d->loop[j].local && l->n_local > 0)
				memcpy(d->loop[j].local, l->local,
					l->n_local * sizeof(*l->local));
			if (!d->loop[j].name || !d->loop[j].local) {
				d->n_loop = j + 1;
				return (ein_schedule_free(dup), NULL);
			}
		}
	}
	return dup;
}

struct ein_scop *ein_schedule_get_scop(const struct ein_schedule *s)
{
	return s->scop;
}

int ein_schedule_n_stmt(const struct ein_schedule *s)
{
	return s->n;
}

struct ein_scop_stmt *ein_schedule_get_stmt(const struct ein_schedule *s,
	int stmt)
{
	return stmt_at(s, stmt);
}

int ein_schedule_n_loop(const struct ein_schedule *s, int stmt)
{
	return s->s[stmt].n_loop;
}

const char *ein_schedule_loop_name(const struct ein_schedule *s, int stmt,
	int loop)
{
	return s->s[stmt].loop[loop].name;
}

int ein_schedule_find_loop(const struct ein_schedule *s, int stmt,
	const char *name)
{
	int k;

	for (k = 0; k < s->s[stmt].n_loop; ++k)
		if (!strcmp(s->s[stmt].loop[k].name, name))
			return k;
	return -1;
}

char *ein_schedule_loop_names(const struct ein_schedule *s, int stmt)
{
	const struct stmt_sched *ss = &s->s[stmt];
	size_t len = 1;
	char *buf;
	int k;

	for (k = 0; k < ss->n_loop; ++k)
		len += strlen(ss->loop[k].name) + 2;
	buf = malloc(len);
	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (k = 0; k < ss->n_loop; ++k) {
		if (k)
			strcat(buf, ", ");
		strcat(buf, ss->loop[k].name);
	}
	return buf;
}

struct ein_loop_attr *ein_schedule_loop_attr(struct ein_schedule *s,
	int stmt, int loop)
{
	return &s->s[stmt].loop[loop].attr;
}

int ein_schedule_get_parent(const struct ein_schedule *s, int stmt)
{
	return s->s[stmt].parent;
}

int ein_schedule_get_init(const struct ein_schedule *s, int stmt)
{
	const struct ein_scop_stmt *st = stmt_at(s, stmt);
	int i;

	for (i = 0; i < s->n; ++i) {
		const struct ein_scop_stmt *o = stmt_at(s, i);

		if (o->kind == EIN_STMT_COMPUTE && o->src == st->src &&
		    o->is_init && !st->is_init)
			return i;
	}
	return -1;
}

int ein_schedule_get_level(const struct ein_schedule *s, int stmt)
{
	return s->s[stmt].parent >= 0 ? s->s[stmt].level : 0;
}

void ein_schedule_set_recompute(struct ein_schedule *s, int stmt, int on)
{
	s->s[stmt].recompute = on;
}

int ein_schedule_is_recompute(const struct ein_schedule *s, int stmt)
{
	return s->s[stmt].recompute;
}

int ein_schedule_lower_recompute(struct ein_schedule *s, int stmt,
	__isl_keep isl_multi_aff *proj)
{
	struct stmt_sched *ss = &s->s[stmt];
	int k;

	for (k = 0; k < ss->n_loop; ++k) {
		ss->loop[k].value = isl_pw_aff_pullback_multi_aff(
			ss->loop[k].value, isl_multi_aff_copy(proj));
		if (!ss->loop[k].value)
			return -1;
	}
	ss->recompute = 2;
	return 0;
}

static char *suffixed(const char *name, const char *suffix)
{
	char *r = malloc(strlen(name) + strlen(suffix) + 1);

	if (r)
		sprintf(r, "%s%s", name, suffix);
	return r;
}

/* Split loop "loop" of "stmt" with value v into "NAME.o" = floor(v / f)
 * and "NAME.i" = v mod f, in that order where it was.  Its attributes go
 * to the inner loop.  A loop with local buffers is not split: neither
 * part's iterations are those the buffers were asked for. */
int ein_schedule_split(struct ein_schedule *s, int stmt, int loop,
	long factor)
{
	struct stmt_sched *ss = &s->s[stmt];
	struct loop *l, outer, inner;
	isl_ctx *ctx;

	if (loop < 0 || loop >= ss->n_loop || factor < 1 ||
	    ss->loop[loop].n_local > 0)
		return -1;
	l = realloc(ss->loop, (ss->n_loop + 2) * sizeof(*l));
	if (!l)
		return -1;
	ss->loop = l;
	ctx = isl_pw_aff_get_ctx(l[loop].value);
	outer.name = suffixed(l[loop].name, ".o");
	inner.name = suffixed(l[loop].name, ".i");
	outer.value = isl_pw_aff_floor(isl_pw_aff_scale_down_val(
		isl_pw_aff_copy(l[loop].value), isl_val_int_from_si(ctx,
			factor)));
	inner.value = isl_pw_aff_mod_val(isl_pw_aff_copy(l[loop].value),
		isl_val_int_from_si(ctx, factor));
	memset(&outer.attr, 0, sizeof(outer.attr));
	inner.attr = l[loop].attr;
	outer.n_local = inner.n_local = 0;
	outer.local = inner.local = NULL;
	if (!outer.name || !inner.name || !outer.value || !inner.value) {
		loop_clear(&outer);
		loop_clear(&inner);
		return -1;
	}
	loop_clear(&l[loop]);
	memmove(&l[loop + 2], &l[loop + 1],
		(ss->n_loop - loop - 1) * sizeof(*l));
	l[loop] = outer;
	l[loop + 1] = inner;
	ss->n_loop++;
	return 0;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *) a - *(const int *) b;
}

int ein_schedule_reorder(struct ein_schedule *s, int stmt, int n,
	const int *loop)
{
	struct stmt_sched *ss = &s->s[stmt];
	int slot[n + 1], i;
	struct loop moved[n + 1];

	for (i = 0; i < n; ++i) {
		if (loop[i] < 0 || loop[i] >= ss->n_loop)
			return -1;
		slot[i] = loop[i];
		moved[i] = ss->loop[loop[i]];
	}
	qsort(slot, n, sizeof(int), &int_cmp);
	for (i = 1; i < n; ++i)
		if (slot[i] == slot[i - 1])
			return -1;
	for (i = 0; i < n; ++i)
		ss->loop[slot[i]] = moved[i];
	return 0;
}

/* The vector of statement "i" (see struct vec); vecs[] memoises. */
static struct vec *get_vec(const struct ein_schedule *s, struct vec *vecs,
	int i);

static void vec_clear(struct vec *v)
{
	int k;

	for (k = 0; v->val && k < v->n_level; ++k)
		isl_pw_aff_free(v->val[k]);
	free(v->val);
	free(v->pos);
	free(v->attr);
	for (k = 0; v->iso && k < v->n_level; ++k)
		isl_set_free(v->iso[k]);
	free(v->iso);
	v->iso = NULL;
	v->val = NULL;
	v->pos = NULL;
	v->attr = NULL;
}

static int vec_alloc(struct vec *v, int n_level)
{
	v->n_level = n_level;
	v->pos = calloc(n_level + 1, sizeof(int));
	v->val = calloc(n_level + 1, sizeof(isl_pw_aff *));
	v->attr = calloc(n_level + 1, sizeof(*v->attr));
	return v->pos && v->val && v->attr ? 0 : -1;
}

/* The relation from the instances of "stmt" to the instances of "reader"
 * that read an element "stmt" writes. */
static __isl_give isl_union_map *readers(struct ein_scop_stmt *stmt,
	struct ein_scop_stmt *reader)
{
	isl_map *w = isl_map_from_multi_pw_aff(
		isl_multi_pw_aff_copy(stmt->access[0].index));
	isl_union_map *r = isl_union_map_empty(isl_map_get_space(w));
	int k;

	w = isl_map_intersect_domain(w, isl_set_copy(stmt->domain));
	for (k = 0; k < reader->n_access; ++k) {
		struct ein_scop_access *a = &reader->access[k];
		isl_map *m;

		if (a->is_write || a->tensor != stmt->access[0].tensor)
			continue;
		m = isl_map_from_multi_pw_aff(isl_multi_pw_aff_copy(a->index));
		m = isl_map_intersect_domain(m,
			isl_set_copy(reader->domain));
		r = isl_union_map_add_map(r, m);
	}
	return isl_union_map_apply_range(isl_union_map_from_map(w),
		isl_union_map_reverse(r));
}

/* Does "reader" read the tensor "stmt" writes? */
static int reads_output(const struct ein_scop_stmt *stmt,
	const struct ein_scop_stmt *reader)
{
	int k;

	for (k = 0; k < reader->n_access; ++k)
		if (!reader->access[k].is_write &&
		    reader->access[k].tensor == stmt->access[0].tensor)
			return 1;
	return 0;
}

/* The first "m" loop values of "pv" (the vector of "stmt") as a
 * function on stmt's domain. */
static __isl_give isl_multi_pw_aff *prefix_mpa(struct ein_scop_stmt *stmt,
	const struct vec *pv, int m)
{
	isl_space *space = isl_set_get_space(stmt->domain);
	isl_multi_pw_aff *mpa;
	int k;

	space = isl_space_map_from_domain_and_range(isl_space_copy(space),
		isl_space_add_dims(isl_space_params(space), isl_dim_set, m));
	mpa = isl_multi_pw_aff_zero(space);
	for (k = 0; k < m; ++k)
		mpa = isl_multi_pw_aff_set_pw_aff(mpa, k,
			isl_pw_aff_copy(pv->val[k]));
	return mpa;
}

/* The same as a map. */
static __isl_give isl_map *prefix_map(struct ein_scop_stmt *stmt,
	const struct vec *pv, int m)
{
	return isl_map_from_multi_pw_aff(prefix_mpa(stmt, pv, m));
}

/* Is "r" placed, directly or through others, in "anc"? */
static int placed_in(const struct ein_schedule *s, int r, int anc)
{
	int p;

	for (p = s->s[r].parent; p >= 0; p = s->s[p].parent)
		if (p == anc)
			return 1;
	return 0;
}

/* Does "r" run inside the first "m" loops of "target": is it the target,
 * or placed in it at level m or deeper (through statements that are)? */
static int runs_in(const struct ein_schedule *s, int r, int target, int m)
{
	while (r != target) {
		if (s->s[r].parent < 0 || s->s[r].level < m)
			return 0;
		r = s->s[r].parent;
	}
	return 1;
}

/* The values of target's first "m" loops at the first iteration in
 * which it, or a statement running in those loops, reads what each
 * instance of statement "i" writes: a function on all of i's domain, or
 * NULL if some instance's result is never read there.  Only the vectors
 * of the statements that read what i writes are needed: asking for
 * others' could come back to i's own, which is being built. */
static __isl_give isl_pw_multi_aff *first_use(const struct ein_schedule *s,
	struct vec *vecs, int i, int target, int m)
{
	struct ein_scop_stmt *stmt = stmt_at(s, i);
	isl_union_map *rel = NULL;
	isl_map *map;
	isl_pw_multi_aff *f;
	isl_set *dom;
	isl_bool all;
	int r;

	for (r = 0; r < s->n; ++r) {
		const struct vec *rv;
		isl_union_map *one;

		if (r == i || stmt_at(s, r)->kind != EIN_STMT_COMPUTE ||
		    !reads_output(stmt, stmt_at(s, r)) ||
		    placed_in(s, r, i) || !runs_in(s, r, target, m))
			continue;
		rv = get_vec(s, vecs, r);
		if (!rv)
			return (isl_union_map_free(rel), NULL);
		one = isl_union_map_apply_range(readers(stmt, stmt_at(s, r)),
			isl_union_map_from_map(prefix_map(stmt_at(s, r), rv,
				m)));
		rel = rel ? isl_union_map_union(rel, one) : one;
	}
	if (!rel)
		return NULL;
	map = isl_union_map_extract_map(rel, isl_space_map_from_domain_and_range(
		isl_set_get_space(stmt->domain), isl_space_add_dims(
			isl_space_params(isl_set_get_space(stmt->domain)),
			isl_dim_set, m)));
	isl_union_map_free(rel);
	f = isl_map_lexmin_pw_multi_aff(map);
	dom = f ? isl_pw_multi_aff_domain(isl_pw_multi_aff_copy(f)) : NULL;
	all = dom ? isl_set_is_subset(stmt->domain, dom) : isl_bool_error;
	isl_set_free(dom);
	if (all == isl_bool_false && s->s[i].recompute)
		return f;
	if (all != isl_bool_true)
		return isl_pw_multi_aff_free(f);
	return f;
}

/* The position of statement "i" at the levels where it runs on its own.
 * The positions of the statements of the source are spaced so that
 * copies (which have none of their own) fit around each. */
static int own_pos(const struct ein_schedule *s, int i)
{
	return i * (2 * s->n_copy + 1) + s->n_copy;
}

/* The position of copy "i" at level "m" of its parent, at which the
 * parent runs at position "p": just before p for a copy in or a
 * prefetch, just after for a copy out, in the order of the copies'
 * slots. */
static int copy_pos(const struct ein_schedule *s, int i, int p)
{
	const struct stmt_sched *ss = &s->s[i];

	if (ss->copy != EIN_STMT_COPY_OUT)
		return p - s->n_copy + ss->slot;
	return p + 1 + ss->slot;
}

/* Are the first levels of statement "i" shared with its parent's (a
 * compute_at or a copy) rather than its own first loops (fused)? */
static int has_shared_levels(const struct stmt_sched *ss)
{
	return ss->parent >= 0 && (ss->compute_at || ss->copy);
}

/* The positions of statement "i" in "v" (allocated): at its shared levels
 * those of its parent's vector "pv", then its own (or its copy's slot);
 * all its own without a parent ("pv" NULL).  They follow from the
 * placements alone (get_pos needs nothing else). */
static void set_pos(const struct ein_schedule *s, int i,
	const struct vec *pv, struct vec *v)
{
	const struct stmt_sched *ss = &s->s[i];
	int m = pv ? ss->level : 0, k, pos;

	for (k = 0; k < m; ++k)
		v->pos[k] = pv->pos[k];
	pos = pv && ss->copy ? copy_pos(s, i, pv->pos[m]) : own_pos(s, i);
	for (k = m; k <= v->n_level; ++k)
		v->pos[k] = pos;
}

/* The vector of a statement placed at "level" in "parent".  At the
 * shared levels, a statement computed at the parent takes the values of
 * the first iteration that uses it; a copy, its first dimensions. */
static int placed_vec(const struct ein_schedule *s, struct vec *vecs, int i,
	struct vec *v)
{
	const struct stmt_sched *ss = &s->s[i];
	const struct vec *pv = get_vec(s, vecs, ss->parent);
	int m = ss->level, k, base = has_shared_levels(ss) ? m : 0;
	isl_pw_multi_aff *f = NULL;

	if (!pv || vec_alloc(v, base + ss->n_loop) < 0)
		return -1;
	if (ss->compute_at && ss->recompute < 2) {
		f = first_use(s, vecs, i, ss->parent, m);
		if (!f)
			return -1;
	}
	for (k = 0; k < m; ++k) {
		if (f)
			v->val[k] = isl_pw_multi_aff_get_pw_aff(f, k);
		else if (ss->copy || ss->recompute)
			v->val[k] = index_value(stmt_at(s, i), k);
	}
	isl_pw_multi_aff_free(f);
	set_pos(s, i, pv, v);
	for (k = 0; k < ss->n_loop; ++k) {
		v->val[base + k] = isl_pw_aff_copy(ss->loop[k].value);
		v->attr[base + k] = &ss->loop[k].attr;
	}
	return 0;
}

static struct vec *get_vec(const struct ein_schedule *s, struct vec *vecs,
	int i)
{
	struct vec *v = &vecs[i];
	const struct stmt_sched *ss = &s->s[i];
	int k;

	if (v->val)
		return v;
	if (ss->parent >= 0) {
		if (placed_vec(s, vecs, i, v) < 0)
			return (vec_clear(v), NULL);
		return v;
	}
	if (vec_alloc(v, ss->n_loop) < 0)
		return (vec_clear(v), NULL);
	set_pos(s, i, NULL, v);
	for (k = 0; k < ss->n_loop; ++k) {
		v->val[k] = isl_pw_aff_copy(ss->loop[k].value);
		v->attr[k] = &ss->loop[k].attr;
	}
	return v;
}

static void vecs_free(struct vec *vecs, int n)
{
	int i;

	for (i = 0; vecs && i < n; ++i)
		vec_clear(&vecs[i]);
	free(vecs);
}

/* Every statement's vector, NULL on error. */
static struct vec *all_vecs(const struct ein_schedule *s)
{
	struct vec *vecs = calloc(s->n + 1, sizeof(*vecs));
	int i;

	for (i = 0; vecs && i < s->n; ++i)
		if (!get_vec(s, vecs, i))
			return (vecs_free(vecs, s->n), NULL);
	return vecs;
}

/* Can the vector of every statement that placing "stmt" may change be
 * built?  Those are "stmt", the statements placed in one of them, and
 * those computed at another whose output one of them reads (first_use
 * looks at the readers' vectors and where they are placed); every other
 * statement's vector is what it was at the last placement, when it
 * could be built.  Checking every statement instead, each with a
 * lexicographic minimum when computed at another, cost most of the
 * automatic scheduler's time on a product with a long epilogue. */
static int placed_vecs_ok(const struct ein_schedule *s, int stmt)
{
	int affected[s->n + 1], i, r, more = 1, ok = 1;
	struct vec *vecs;

	for (i = 0; i < s->n; ++i)
		affected[i] = i == stmt;
	while (more) {
		more = 0;
		for (i = 0; i < s->n; ++i) {
			const struct stmt_sched *ss = &s->s[i];

			if (affected[i] || ss->parent < 0)
				continue;
			if (affected[ss->parent])
				affected[i] = more = 1;
			for (r = 0; !affected[i] && ss->compute_at &&
			    r < s->n; ++r)
				if (affected[r] && r != i && reads_output(
				    stmt_at(s, i), stmt_at(s, r)))
					affected[i] = more = 1;
		}
	}
	vecs = calloc(s->n + 1, sizeof(*vecs));
	for (i = 0; ok && i < s->n; ++i)
		if (!vecs || (affected[i] && !get_vec(s, vecs, i)))
			ok = 0;
	vecs_free(vecs, s->n);
	return ok;
}

int ein_schedule_place(struct ein_schedule *s, int stmt, int target,
	int level, int compute_at, const char **why)
{
	struct stmt_sched *ss = &s->s[stmt];
	struct stmt_sched saved = *ss;
	int p;

	*why = NULL;
	for (p = target; p >= 0; p = s->s[p].parent)
		if (p == stmt) {
			*why = "the placement would be circular";
			return -1;
		}
	if (level > s->s[target].n_loop + (s->s[target].compute_at ?
			s->s[target].level : 0)) {
		*why = "the target has fewer loops";
		return -1;
	}
	if (!compute_at && level > ss->n_loop) {
		*why = "the statement has fewer loops";
		return -1;
	}
	ss->parent = target;
	ss->level = level;
	ss->compute_at = compute_at;
	if (!placed_vecs_ok(s, stmt)) {
		*ss = saved;
		if (!*why)
			*why = "it writes elements that the target statement "
				"never reads";
		return -1;
	}
	return 0;
}

int ein_schedule_loop_dim(const struct ein_schedule *s, int stmt, int loop)
{
	const struct stmt_sched *ss = &s->s[stmt];

	return 2 * (loop + (has_shared_levels(ss) ? ss->level : 0)) + 1;
}

/* The positions alone of statement "i" in its vector (see placed_vec and
 * get_vec), memoised in vecs[]: they follow from the placements, while
 * the values need a lexicographic minimum for each statement computed at
 * another, which made asking which statements share a loop (asked for
 * each loop of each statement while a schedule is applied) most of the
 * time of compiling a kernel with an epilogue of several statements. */
static struct vec *get_pos(const struct ein_schedule *s, struct vec *vecs,
	int i)
{
	struct vec *v = &vecs[i];
	const struct stmt_sched *ss = &s->s[i];
	const struct vec *pv;
	int base;

	if (v->pos)
		return v;
	pv = ss->parent < 0 ? NULL : get_pos(s, vecs, ss->parent);
	base = pv && has_shared_levels(ss) ? ss->level : 0;
	if ((ss->parent >= 0 && !pv) || vec_alloc(v, base + ss->n_loop) < 0)
		return (vec_clear(v), NULL);
	set_pos(s, i, pv, v);
	return v;
}

int ein_schedule_loop_members(const struct ein_schedule *s, int stmt,
	int loop, int *member)
{
	struct vec *vecs = calloc(s->n + 1, sizeof(*vecs));
	int lvl = (ein_schedule_loop_dim(s, stmt, loop) - 1) / 2, i, j, k;

	for (i = 0; vecs && i < s->n; ++i)
		if (!get_pos(s, vecs, i))
			return (vecs_free(vecs, s->n), -1);
	if (!vecs)
		return -1;
	for (j = 0; j < s->n; ++j) {
		member[j] = vecs[j].n_level > lvl;
		for (k = 0; member[j] && k <= lvl; ++k)
			if (vecs[j].pos[k] != vecs[stmt].pos[k])
				member[j] = 0;
	}
	vecs_free(vecs, s->n);
	return 0;
}

int ein_schedule_loop_trip_bound(const struct ein_schedule *s, int stmt,
	int loop, long *bound)
{
	const struct stmt_sched *ss = &s->s[stmt];
	isl_space *space = isl_set_get_space(stmt_at(s, stmt)->domain);
	isl_multi_pw_aff *mpa;
	isl_map *m;
	isl_pw_aff *diff;
	isl_val *v;
	int k, ok;

	space = isl_space_map_from_domain_and_range(isl_space_copy(space),
		isl_space_add_dims(isl_space_params(space), isl_dim_set,
			loop + 1));
	mpa = isl_multi_pw_aff_zero(space);
	for (k = 0; k <= loop; ++k)
		mpa = isl_multi_pw_aff_set_pw_aff(mpa, k,
			isl_pw_aff_copy(ss->loop[k].value));
	m = isl_map_from_multi_pw_aff(mpa);
	m = isl_map_from_range(isl_map_range(isl_map_intersect_domain(m,
		isl_set_copy(stmt_at(s, stmt)->domain))));
	m = isl_map_move_dims(m, isl_dim_in, 0, isl_dim_out, 0, loop);
	diff = isl_map_dim_max(isl_map_copy(m), 0);
	diff = isl_pw_aff_sub(diff, isl_map_dim_min(m, 0));
	v = isl_pw_aff_max_val(diff);
	ok = v && isl_val_is_int(v);
	if (ok)
		*bound = isl_val_get_num_si(v) + 1;
	isl_val_free(v);
	return ok ? 0 : -1;
}

/* The maximal number of levels of any statement. */
static int max_level(const struct vec *vecs, int n)
{
	int i, m = 0;

	for (i = 0; i < n; ++i)
		if (vecs[i].n_level > m)
			m = vecs[i].n_level;
	return m;
}

static __isl_give isl_pw_aff *const_on(__isl_keep isl_set *domain, int v)
{
	isl_space *space = isl_set_get_space(domain);
	isl_aff *aff = isl_aff_val_on_domain(isl_local_space_from_space(space),
		isl_val_int_from_si(isl_set_get_ctx(domain), v));

	return isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(aff),
		isl_set_copy(domain));
}

/* The flat vector of "stmt" padded to 2 * n + 1 dimensions. */
static __isl_give isl_map *flat_map(struct ein_scop_stmt *stmt,
	const struct vec *v, int n)
{
	isl_space *space = isl_set_get_space(stmt->domain);
	isl_multi_pw_aff *mpa;
	int k;

	space = isl_space_map_from_domain_and_range(isl_space_copy(space),
		isl_space_add_dims(isl_space_params(space), isl_dim_set,
			2 * n + 1));
	mpa = isl_multi_pw_aff_zero(space);
	for (k = 0; k <= 2 * n; ++k) {
		isl_pw_aff *pa;

		if (k % 2 == 0)
			pa = const_on(stmt->domain,
				k / 2 <= v->n_level ? v->pos[k / 2] : 0);
		else if (k / 2 < v->n_level)
			pa = isl_pw_aff_copy(v->val[k / 2]);
		else
			pa = const_on(stmt->domain, 0);
		mpa = isl_multi_pw_aff_set_pw_aff(mpa, k, pa);
	}
	return isl_map_from_multi_pw_aff(mpa);
}

__isl_give isl_union_map *ein_schedule_get_map(const struct ein_schedule *s)
{
	struct vec *vecs = all_vecs(s);
	isl_union_map *map;
	int i, n;

	if (!vecs)
		return NULL;
	n = max_level(vecs, s->n);
	map = isl_union_map_empty(isl_set_get_space(s->scop->context));
	for (i = 0; i < s->n; ++i)
		map = isl_union_map_add_map(map,
			flat_map(stmt_at(s, i), &vecs[i], n));
	vecs_free(vecs, s->n);
	return map;
}

/* The tree of the statements in group[0..n-1] from level "k" on (all
 * share positions and loops before it). */
static __isl_give isl_schedule *build_level(const struct ein_schedule *s,
	const struct vec *vecs, int n, const int *group, int k);

/* The attributes of level "k" of the statements in "group", merged. */
static struct ein_loop_attr *merge_attr(const struct vec *vecs, int n,
	const int *group, int k)
{
	struct ein_loop_attr *a = calloc(1, sizeof(*a));
	int i, any = 0, copy = n > 0;

	if (!a)
		return NULL;
	for (i = 0; i < n; ++i) {
		const struct ein_loop_attr *b = vecs[group[i]].attr[k];

		copy &= b && b->copy;
		if (!b)
			continue;
		a->parallel |= b->parallel;
		if (b->vector > a->vector)
			a->vector = b->vector;
		if (b->unroll && (a->unroll == 0 || b->unroll < 0 ||
				b->unroll > a->unroll))
			a->unroll = b->unroll < 0 ? -1 : b->unroll;
		a->scalar |= b->scalar;
		a->stream |= b->stream;
		/* A mapped loop runs only its own statement (gpu_map.c). */
		if (b->gpu_block || b->gpu_thread) {
			a->gpu_block = b->gpu_block;
			a->gpu_thread = b->gpu_thread;
			a->gpu_size = b->gpu_size;
		}
		if (b->gpu_copy)
			a->gpu_copy = b->gpu_copy;
		any |= b->parallel || b->vector || b->unroll || b->scalar ||
			b->gpu_block || b->gpu_thread || b->gpu_copy;
	}
	if (a->vector)
		a->scalar = 0;
	a->copy = copy;
	if (!any) {
		free(a);
		return NULL;
	}
	return a;
}

/* Add a mark with the attributes of the band at the root of "sched",
 * right below the band: in the AST it is then the body of the band's
 * loop, or, when isl generates no loop for the band (a single iteration,
 * or a complete unroll), a mark that belongs to no loop.  (Above the band,
 * it would end up above whatever loop comes next.) */
static __isl_give isl_schedule *add_mark(__isl_take isl_schedule *sched,
	struct ein_loop_attr *attr)
{
	isl_schedule_node *node;
	isl_id *id;
	char name[96];

	if (!attr)
		return sched;
	mark_name(name, sizeof(name), attr);
	id = isl_id_alloc(isl_schedule_get_ctx(sched), name, attr);
	id = isl_id_set_free_user(id, &attr_free);
	node = isl_schedule_node_child(isl_schedule_get_root(sched), 0);
	isl_schedule_free(sched);
	node = isl_schedule_node_insert_mark(isl_schedule_node_child(node, 0),
		id);
	sched = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	return sched;
}

/* Let isl's AST generator unroll the band at the root of "sched"
 * completely (apply.c has checked that its trip count is bounded by a
 * constant): unlike LLVM's unroller, it also unrolls loops whose bounds
 * are minima, such as the inner loop of a tile. */
static __isl_give isl_schedule *unroll_root(__isl_take isl_schedule *sched)
{
	isl_schedule_node *node;

	node = isl_schedule_node_child(isl_schedule_get_root(sched), 0);
	isl_schedule_free(sched);
	node = isl_schedule_node_band_member_set_ast_loop_type(node, 0,
		isl_ast_loop_unroll);
	sched = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	return sched;
}

/* Do the values of "pa" lie within "width" consecutive integers (for
 * every value of the sizes)? */
static int within(__isl_take isl_pw_aff *pa, int width)
{
	isl_set *v = isl_map_range(isl_map_from_pw_aff(pa));
	isl_set *d = isl_map_deltas(isl_map_from_domain_and_range(
		isl_set_copy(v), v));
	isl_bool empty;

	d = isl_set_lower_bound_si(d, isl_dim_set, 0, width);
	empty = isl_set_is_empty(d);
	isl_set_free(d);
	return empty == isl_bool_true;
}

/* Is the vectorised loop at level k of "group" a single vector step of
 * "width" (the inner loop of a split by the width)?  Such a loop is left
 * whole for LLVM's loop vectoriser: unrolled first, its lanes would be
 * scalars that the SLP vectoriser may group in another direction (along
 * the stores of a transposing copy-out, say). */
static int one_step(const struct vec *vecs, int n, const int *group, int k,
	int width)
{
	int i;

	for (i = 0; i < n; ++i)
		if (!within(isl_pw_aff_copy(vecs[group[i]].val[k]), width))
			return 0;
	return 1;
}

/* The band of level "k" over group[0..n-1] above "inner". */
static __isl_give isl_schedule *add_band(const struct ein_schedule *s,
	const struct vec *vecs, int n, const int *group, int k,
	__isl_take isl_schedule *inner)
{
	isl_union_pw_aff *upa = NULL;
	struct ein_loop_attr *attr;
	int i;

	for (i = 0; i < n; ++i) {
		isl_union_pw_aff *one = isl_union_pw_aff_from_pw_aff(
			isl_pw_aff_copy(vecs[group[i]].val[k]));

		upa = upa ? isl_union_pw_aff_union_add(upa, one) : one;
	}
	inner = isl_schedule_insert_partial_schedule(inner,
		isl_multi_union_pw_aff_from_union_pw_aff(upa));
	attr = merge_attr(vecs, n, group, k);
	if (attr)
		attr->level = k;
	if (attr && attr->vector)
		attr->one_step = one_step(vecs, n, group, k, attr->vector);
	if (attr && attr->unroll < 0)
		inner = unroll_root(inner);
	return add_mark(inner, attr);
}

/* The statements of "group" at position "pos" of level "k" (all of them
 * have a loop at level k unless there is a single one). */
static __isl_give isl_schedule *build_position(const struct ein_schedule *s,
	const struct vec *vecs, int n, const int *group, int k)
{
	isl_schedule *inner;

	if (n == 1 && vecs[group[0]].n_level == k)
		return isl_schedule_from_domain(isl_union_set_from_set(
			isl_set_copy(stmt_at(s, group[0])->domain)));
	inner = build_level(s, vecs, n, group, k + 1);
	return inner ? add_band(s, vecs, n, group, k, inner) : NULL;
}

/* The sequence of child[0..n-1] (taken), built as a balanced tree of
 * pairs: isl_schedule_sequence flattens nested sequences, but copies and
 * updates every child it already holds, so appending the children one by
 * one made a definition of n statements cost n^2 such updates (800
 * statements: 6 s in this function alone). */
static __isl_give isl_schedule *sequence(isl_schedule **child, int n)
{
	int i, m;

	for (; n > 1; n = m) {
		for (i = 0, m = 0; i + 1 < n; i += 2)
			child[m++] = isl_schedule_sequence(child[i],
				child[i + 1]);
		if (i < n)
			child[m++] = child[i];
	}
	return n ? child[0] : NULL;
}

static __isl_give isl_schedule *build_level(const struct ein_schedule *s,
	const struct vec *vecs, int n, const int *group, int k)
{
	isl_schedule *child[n + 1];
	int done[n + 1], sub[n + 1], i, j, n_child = 0, ok = 1;

	memset(done, 0, sizeof(done));
	for (;;) {
		int best = -1, m = 0;

		for (i = 0; i < n; ++i)
			if (!done[i] && (best < 0 || vecs[group[i]].pos[k] <
					vecs[group[best]].pos[k]))
				best = i;
		if (best < 0)
			break;
		for (j = 0; j < n; ++j)
			if (!done[j] && vecs[group[j]].pos[k] ==
					vecs[group[best]].pos[k]) {
				done[j] = 1;
				sub[m++] = group[j];
			}
		child[n_child] = build_position(s, vecs, m, sub, k);
		ok &= child[n_child++] != NULL;
	}
	if (!ok)
		for (i = 0; i < n_child; ++i)
			child[i] = isl_schedule_free(child[i]);
	return ok ? sequence(child, n_child) : NULL;
}

/* Where and in which iterations "stmt", of vector "v", runs the full
 * tiles of its vectorised and completely unrolled loops (isolate.h). */
static int find_full_tiles(struct ein_scop_stmt *stmt, struct vec *v)
{
	struct ein_isolate_stmt is;
	int sensitive[v->n_level + 1], parallel[v->n_level + 1], k;

	for (k = 0; k < v->n_level; ++k) {
		sensitive[k] = v->attr[k] &&
			(v->attr[k]->vector > 0 || v->attr[k]->unroll < 0);
		parallel[k] = v->attr[k] && v->attr[k]->parallel;
	}
	is.domain = stmt->domain;
	is.n_level = v->n_level;
	is.val = v->val;
	is.sensitive = sensitive;
	is.parallel = parallel;
	v->iso = calloc(v->n_level + 1, sizeof(*v->iso));
	return v->iso ? ein_isolate_find(&is, v->iso) : -1;
}

struct isolate_data {
	const struct ein_schedule *s;
	const struct vec *vecs;
};

/* The iterations of the band "node" in which the statements that isolate
 * at its level run full tiles (all of them, if several do), NULL if none
 * isolates there.  Each band has one member, so its level is its depth. */
static __isl_give isl_set *full_tiles(__isl_keep isl_schedule_node *node,
	const struct isolate_data *data)
{
	isl_union_set *dom = isl_schedule_node_get_domain(node);
	int k = isl_schedule_node_get_schedule_depth(node), i;
	isl_set *full = NULL;

	for (i = 0; dom && i < data->s->n; ++i) {
		const struct vec *v = &data->vecs[i];
		isl_set *mine;
		isl_bool here;

		if (!v->iso || k >= v->n_level || !v->iso[k])
			continue;
		mine = isl_union_set_extract_set(dom,
			isl_set_get_space(stmt_at(data->s, i)->domain));
		here = isl_set_is_empty(mine);
		isl_set_free(mine);
		if (here != isl_bool_false)
			continue;
		full = full ? isl_set_intersect(full, isl_set_copy(v->iso[k])) :
			isl_set_copy(v->iso[k]);
	}
	isl_union_set_free(dom);
	return full;
}

static __isl_give isl_schedule_node *isolate_band(
	__isl_take isl_schedule_node *node, void *user)
{
	if (isl_schedule_node_get_type(node) != isl_schedule_node_band)
		return node;
	return ein_isolate_band(node, full_tiles(node, user));
}

/* Mark the full tiles of every band for separate generation: isl does
 * not let a band be inserted above one that has isolate options, so
 * this comes after the tree is built. */
static __isl_give isl_schedule *isolate_full_tiles(
	const struct ein_schedule *s, const struct vec *vecs,
	__isl_take isl_schedule *sched)
{
	struct isolate_data data = { s, vecs };

	return isl_schedule_map_schedule_node_bottom_up(sched,
		&isolate_band, &data);
}

__isl_give isl_schedule *ein_schedule_get_tree(const struct ein_schedule *s)
{
	struct vec *vecs = all_vecs(s);
	int group[s->n + 1], i;
	isl_schedule *sched;

	if (!vecs)
		return NULL;
	for (i = 0; i < s->n; ++i) {
		group[i] = i;
		if (find_full_tiles(stmt_at(s, i), &vecs[i]) < 0)
			return (vecs_free(vecs, s->n), NULL);
	}
	sched = build_level(s, vecs, s->n, group, 0);
	sched = isolate_full_tiles(s, vecs, sched);
	vecs_free(vecs, s->n);
	return sched;
}

static __isl_give isl_printer *print_attr(__isl_take isl_printer *p,
	const struct ein_loop_attr *a)
{
	if (a->parallel)
		p = isl_printer_print_str(p, " parallel");
	if (a->vector) {
		p = isl_printer_print_str(p, " vectorize ");
		p = isl_printer_print_int(p, a->vector);
	}
	if (a->stream)
		p = isl_printer_print_str(p, " stream");
	if (a->gpu_block) {
		p = isl_printer_print_str(p, " gpu_block ");
		p = isl_printer_print_int(p, a->gpu_block - 1);
	}
	if (a->gpu_thread) {
		p = isl_printer_print_str(p, " gpu_thread ");
		p = isl_printer_print_int(p, a->gpu_thread - 1);
	}
	if (a->gpu_copy) {
		p = isl_printer_print_str(p, " gpu_copy ");
		p = isl_printer_print_int(p, a->gpu_copy - 1);
	}
	if (a->unroll < 0)
		p = isl_printer_print_str(p, " unroll full");
	else if (a->unroll) {
		p = isl_printer_print_str(p, " unroll ");
		p = isl_printer_print_int(p, a->unroll);
	}
	return p;
}

/* The value of a loop as a C expression of the statement's indices. */
static __isl_give isl_printer *print_value(__isl_take isl_printer *p,
	const struct ein_scop_stmt *stmt, __isl_keep isl_pw_aff *value)
{
	isl_pw_aff *pa = isl_pw_aff_gist(isl_pw_aff_copy(value),
		isl_set_copy(stmt->domain));
	int format = isl_printer_get_output_format(p);

	p = isl_printer_set_output_format(p, ISL_FORMAT_C);
	p = isl_printer_print_pw_aff(p, pa);
	isl_pw_aff_free(pa);
	return isl_printer_set_output_format(p, format);
}

/* " pack A accumulate": the local buffers asked for in loop "l". */
static __isl_give isl_printer *print_locals(__isl_take isl_printer *p,
	const struct ein_schedule *s, const struct loop *l)
{
	int k, d;

	for (k = 0; k < l->n_local; ++k) {
		const struct ein_local *loc = &l->local[k];

		if (loc->kind == EIN_LOCAL_ACCUMULATE) {
			p = isl_printer_print_str(p, " accumulate");
			continue;
		}
		if (loc->kind == EIN_LOCAL_PREFETCH) {
			p = isl_printer_print_str(p, " prefetch ");
			p = isl_printer_print_str(p,
				ein_scop_tensor_name(s->scop, loc->tensor));
			p = isl_printer_print_str(p, " from ");
			p = isl_printer_print_str(p, loc->from);
			p = isl_printer_print_str(p, " ");
			p = isl_printer_print_int(p, loc->ahead);
			continue;
		}
		p = isl_printer_print_str(p, " pack ");
		p = isl_printer_print_str(p,
			ein_scop_tensor_name(s->scop, loc->tensor));
		if (loc->n_layout)
			p = isl_printer_print_str(p, " layout");
		for (d = 0; d < loc->n_layout; ++d) {
			p = isl_printer_print_str(p, " d");
			p = isl_printer_print_int(p, loc->layout[d]);
			if (loc->block[d])
				p = isl_printer_print_str(p,
					loc->block[d] > 0 ? "/" : "%");
			if (loc->block[d])
				p = isl_printer_print_int(p,
					abs(loc->block[d]));
		}
	}
	return p;
}

/* The name of the loop of "stmt" at level "level" (counting the levels it
 * shares with the statements it is placed in). */
static const char *loop_at_level(const struct ein_schedule *s, int stmt,
	int level)
{
	const struct stmt_sched *ss = &s->s[stmt];
	int k = level - 1 - (has_shared_levels(ss) ? ss->level : 0);

	return k >= 0 && k < ss->n_loop ? ss->loop[k].name : "?";
}

/* "A_pack0_in (copy into A_pack0 of the tile of A that S0 reads, before
 * it, in each iteration of its loop k.o):" */
static __isl_give isl_printer *print_copy_head(__isl_take isl_printer *p,
	const struct ein_schedule *s, int i)
{
	const struct stmt_sched *ss = &s->s[i];
	const struct ein_scop_stmt *stmt = stmt_at(s, i);
	int in = ss->copy == EIN_STMT_COPY_IN;
	int pf = ss->copy == EIN_STMT_PREFETCH;
	const char *t = ein_scop_tensor_name(s->scop,
		stmt->access[in ? 1 : 0].tensor);

	if (pf) {
		p = isl_printer_print_str(p, " (prefetch of the cache lines");
	} else {
		p = isl_printer_print_str(p, in ? " (copy into " :
			" (copy back from ");
		p = isl_printer_print_str(p, ein_scop_tensor_name(s->scop,
			stmt->access[in ? 0 : 1].tensor));
	}
	p = isl_printer_print_str(p, " of the tile of ");
	p = isl_printer_print_str(p, t);
	p = isl_printer_print_str(p, " that ");
	p = isl_printer_print_str(p, stmt_at(s, ss->parent)->name);
	p = isl_printer_print_str(p, pf ? " accesses in a later iteration" :
		in ? " uses, before it" : " updates, after it");
	p = isl_printer_print_str(p, ", in each iteration of its loop ");
	p = isl_printer_print_str(p, loop_at_level(s, ss->parent, ss->level));
	return isl_printer_print_str(p, ")");
}

static __isl_give isl_printer *print_stmt(__isl_take isl_printer *p,
	const struct ein_schedule *s, int i)
{
	const struct stmt_sched *ss = &s->s[i];
	int k;

	p = isl_printer_print_str(p, stmt_at(s, i)->name);
	if (ss->copy) {
		p = print_copy_head(p, s, i);
	} else if (ss->parent >= 0) {
		p = isl_printer_print_str(p, ss->recompute ?
			" (recomputed at " : ss->compute_at ?
			" (computed at " : " (fused with ");
		p = isl_printer_print_str(p, stmt_at(s, ss->parent)->name);
		p = isl_printer_print_str(p, ", ");
		p = isl_printer_print_int(p, ss->level);
		p = isl_printer_print_str(p, " loops)");
	}
	p = isl_printer_print_str(p, ":");
	p = isl_printer_end_line(p);
	for (k = 0; k < ss->n_loop; ++k) {
		p = isl_printer_print_str(p, "  for ");
		p = isl_printer_print_str(p, ss->loop[k].name);
		if (!ss->copy) {
			p = isl_printer_print_str(p, " = ");
			p = print_value(p, stmt_at(s, i), ss->loop[k].value);
		}
		p = print_attr(p, &ss->loop[k].attr);
		p = print_locals(p, s, &ss->loop[k]);
		p = isl_printer_end_line(p);
	}
	return p;
}

__isl_give isl_printer *ein_schedule_print(__isl_take isl_printer *p,
	const struct ein_schedule *s)
{
	isl_schedule *tree = ein_schedule_get_tree(s);
	int i;

	for (i = 0; i < s->n; ++i)
		p = print_stmt(p, s, i);
	p = isl_printer_print_str(p, "tree:");
	p = isl_printer_end_line(p);
	p = isl_printer_set_yaml_style(p, ISL_YAML_STYLE_BLOCK);
	p = isl_printer_print_schedule(p, tree);
	isl_schedule_free(tree);
	return p;
}

/* ---- local buffers (pack, accumulate) ------------------------------------ */

int ein_schedule_add_local(struct ein_schedule *s, int stmt, int loop,
	const struct ein_local *local)
{
	struct loop *l = &s->s[stmt].loop[loop];
	struct ein_local *a = realloc(l->local,
		(l->n_local + 1) * sizeof(*a));

	if (!a)
		return -1;
	l->local = a;
	l->local[l->n_local++] = *local;
	return 0;
}

int ein_schedule_n_local(const struct ein_schedule *s, int stmt, int loop)
{
	return s->s[stmt].loop[loop].n_local;
}

const struct ein_local *ein_schedule_get_local(const struct ein_schedule *s,
	int stmt, int loop, int k)
{
	return &s->s[stmt].loop[loop].local[k];
}

int ein_schedule_loop_level(const struct ein_schedule *s, int stmt, int loop)
{
	return (ein_schedule_loop_dim(s, stmt, loop) - 1) / 2 + 1;
}

__isl_give isl_multi_pw_aff *ein_schedule_get_prefix(
	const struct ein_schedule *s, int stmt, int level)
{
	struct vec *vecs = calloc(s->n + 1, sizeof(*vecs));
	const struct vec *v = vecs ? get_vec(s, vecs, stmt) : NULL;
	isl_multi_pw_aff *mpa = NULL;

	if (v && level <= v->n_level)
		mpa = prefix_mpa(stmt_at(s, stmt), v, level);
	vecs_free(vecs, s->n);
	return mpa;
}

/* Give copy "i" one loop per dimension of its domain from "level" on,
 * named "NAME.d" after the tensor "name" it copies. */
static int init_copy_loops(struct ein_schedule *s, int i, int level,
	const char *name)
{
	struct stmt_sched *ss = &s->s[i];
	int k, n = isl_set_dim(stmt_at(s, i)->domain, isl_dim_set) - level;

	ss->loop = calloc(n + 1, sizeof(*ss->loop));
	if (!ss->loop)
		return -1;
	ss->n_loop = n;
	for (k = 0; k < n; ++k) {
		char buf[strlen(name) + 16];

		snprintf(buf, sizeof(buf), "%s.%d", name, k);
		ss->loop[k].name = strdup(buf);
		ss->loop[k].value = index_value(stmt_at(s, i), level + k);
		if (!ss->loop[k].name || !ss->loop[k].value)
			return -1;
	}
	return 0;
}

int ein_schedule_order_copy(struct ein_schedule *s, int stmt,
	const int *order)
{
	struct stmt_sched *ss = &s->s[stmt];
	struct loop *loop = malloc(ss->n_loop * sizeof(*loop));
	int k;

	if (!loop)
		return -1;
	for (k = 0; k < ss->n_loop; ++k)
		loop[k] = ss->loop[order[k]];
	memcpy(ss->loop, loop, ss->n_loop * sizeof(*loop));
	free(loop);
	return 0;
}

void ein_schedule_parallel_copy(struct ein_schedule *s, int stmt)
{
	struct stmt_sched *ss = &s->s[stmt], *ps;
	int k, inner = 0;

	if (ss->parent < 0 || ss->n_loop < 1)
		return;
	ps = &s->s[ss->parent];
	if (ps->parent >= 0 || ps->copy != EIN_STMT_COMPUTE)
		return;
	for (k = 0; k < ps->n_loop; ++k) {
		if (!ps->loop[k].attr.parallel)
			continue;
		if (k < ss->level)
			return;
		inner = 1;
	}
	if (!inner)
		return;
	ss->loop[0].attr.parallel = 1;
	ss->loop[0].attr.copy = 1;
}

int ein_schedule_add_copy(struct ein_schedule *s, int parent, int level,
	const char *name)
{
	struct stmt_sched *ss;

	if (s->scop->n_stmt != s->n + 1)
		return -1;
	ss = realloc(s->s, (s->n + 2) * sizeof(*ss));
	if (!ss)
		return -1;
	s->s = ss;
	ss = &s->s[s->n++];
	memset(ss, 0, sizeof(*ss));
	ss->parent = parent;
	ss->level = level;
	ss->copy = stmt_at(s, s->n - 1)->kind;
	ss->slot = s->n_copy++;
	return init_copy_loops(s, s->n - 1, level, name);
}
