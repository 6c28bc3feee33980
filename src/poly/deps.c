/*
 * deps.c: memory-based dependences with isl, and the checks schedules must
 * pass (see deps.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/point.h>
#include <isl/val.h>
#include "poly/deps.h"

void ein_deps_free(struct ein_deps *deps)
{
	int i;

	if (!deps)
		return;
	for (i = 0; i < deps->n; ++i)
		isl_map_free(deps->dep[i].map);
	free(deps->dep);
	free(deps);
}

/* Access "a" as a relation from the statement's domain to the elements. */
static __isl_give isl_map *access_map(const struct ein_scop_stmt *stmt,
	const struct ein_scop_access *a)
{
	isl_map *m = isl_map_from_multi_pw_aff(
		isl_multi_pw_aff_copy(a->index));

	return isl_map_intersect_domain(m, isl_set_copy(stmt->domain));
}

/* The flat schedule space of "sched": the range of any of its maps (they
 * all have the same). */
static __isl_give isl_space *flat_space(__isl_keep isl_union_map *sched)
{
	isl_map_list *list = isl_union_map_get_map_list(sched);
	isl_map *m = isl_map_list_get_at(list, 0);
	isl_space *space = isl_space_range(isl_map_get_space(m));

	isl_map_free(m);
	isl_map_list_free(list);
	return space;
}

/* The map of statement "stmt" in flat schedule "sched". */
static __isl_give isl_map *stmt_sched(__isl_keep isl_union_map *sched,
	const struct ein_scop_stmt *stmt)
{
	isl_space *space = isl_space_map_from_domain_and_range(
		isl_set_get_space(stmt->domain), flat_space(sched));

	return isl_union_map_extract_map(sched, space);
}

/* Is the pair of accesses (a of stmt s, b of stmt t) between two updates
 * of a reduction through its left-hand side? */
static int is_reduction_pair(const struct ein_scop *scop, int s, int t,
	const struct ein_scop_access *a, const struct ein_scop_access *b)
{
	const struct ein_scop_stmt *stmt = &scop->stmt[s];
	enum ein_assign op = scop->func->stmt[stmt->src].ast->op;
	int lhs_a = a->is_write || a->expr == NULL;
	int lhs_b = b->is_write || b->expr == NULL;

	return s == t && !stmt->is_init && op != EIN_ASSIGN_SET &&
		lhs_a && lhs_b;
}

static enum ein_dep_kind dep_kind(const struct ein_scop_access *a,
	const struct ein_scop_access *b)
{
	if (a->is_write && b->is_write)
		return EIN_DEP_OUTPUT;
	return a->is_write ? EIN_DEP_FLOW : EIN_DEP_ANTI;
}

/* Add "map" to the dependence (s, t, tensor, kind, red), creating it. */
static int add_dep(struct ein_deps *deps, int s, int t, int tensor,
	enum ein_dep_kind kind, int red, __isl_take isl_map *map)
{
	struct ein_dep *d;
	int i;
	isl_bool empty = isl_map_is_empty(map);

	if (empty != isl_bool_false) {
		isl_map_free(map);
		return empty == isl_bool_true ? 0 : -1;
	}
	for (i = 0; i < deps->n; ++i) {
		d = &deps->dep[i];
		if (d->src == s && d->snk == t && d->tensor == tensor &&
		    d->kind == kind && d->reduction == red) {
			d->map = isl_map_coalesce(isl_map_union(d->map, map));
			return d->map ? 0 : -1;
		}
	}
	d = realloc(deps->dep, (deps->n + 1) * sizeof(*d));
	if (!d) {
		isl_map_free(map);
		return -1;
	}
	deps->dep = d;
	d = &deps->dep[deps->n++];
	d->src = s;
	d->snk = t;
	d->tensor = tensor;
	d->kind = kind;
	d->reduction = red;
	d->map = map;
	return 0;
}

/* The pairs (x of s, y of t) accessing the same element with x first in
 * "order". */
static __isl_give isl_map *ordered_pairs(const struct ein_scop *scop,
	__isl_keep isl_union_map *order, int s, int t,
	const struct ein_scop_access *a, const struct ein_scop_access *b)
{
	const struct ein_scop_stmt *ss = &scop->stmt[s], *st = &scop->stmt[t];
	isl_map *pairs, *os, *ot, *lt;

	pairs = isl_map_apply_range(access_map(ss, a),
		isl_map_reverse(access_map(st, b)));
	os = stmt_sched(order, ss);
	ot = stmt_sched(order, st);
	lt = isl_map_lex_lt(isl_space_range(isl_map_get_space(os)));
	lt = isl_map_apply_range(isl_map_apply_range(os, lt),
		isl_map_reverse(ot));
	return isl_map_intersect(pairs, lt);
}

static int add_pair(struct ein_deps *deps, __isl_keep isl_union_map *order,
	int s, int t, const struct ein_scop_access *a,
	const struct ein_scop_access *b)
{
	if (a->tensor != b->tensor || (!a->is_write && !b->is_write))
		return 0;
	return add_dep(deps, s, t, a->tensor, dep_kind(a, b),
		is_reduction_pair(deps->scop, s, t, a, b),
		ordered_pairs(deps->scop, order, s, t, a, b));
}

struct ein_deps *ein_deps_compute(struct ein_scop *scop,
	__isl_take isl_union_map *order)
{
	struct ein_deps *deps = calloc(1, sizeof(*deps));
	int s, t, i, j, ok = order && deps ? 0 : -1;

	if (deps)
		deps->scop = scop;
	for (s = 0; ok == 0 && s < scop->n_stmt; ++s)
		for (t = s; ok == 0 && t < scop->n_stmt; ++t)
			for (i = 0; ok == 0 && i < scop->stmt[s].n_access; ++i)
				for (j = 0; ok == 0 &&
				     j < scop->stmt[t].n_access; ++j)
					ok = add_pair(deps, order, s, t,
						&scop->stmt[s].access[i],
						&scop->stmt[t].access[j]);
	isl_union_map_free(order);
	if (ok < 0)
		return (ein_deps_free(deps), NULL);
	return deps;
}

static const char *kind_name(enum ein_dep_kind kind)
{
	return kind == EIN_DEP_FLOW ? "flow" : kind == EIN_DEP_ANTI ? "anti" :
		"output";
}

/* Append "NAME[i=1, j=2]" for the instance of "stmt" at coordinates
 * "first" onwards of "pnt". */
static void print_instance(FILE *f, const struct ein_scop *scop,
	const struct ein_scop_stmt *stmt, __isl_keep isl_point *pnt,
	int first)
{
	const struct ein_func_stmt *fs = &scop->func->stmt[stmt->src];
	int k, n = isl_set_dim(stmt->domain, isl_dim_set);

	fprintf(f, "%s[", stmt->name);
	for (k = 0; k < n; ++k) {
		isl_val *v = isl_point_get_coordinate_val(pnt, isl_dim_set,
			first + k);

		fprintf(f, "%s%s=%ld", k ? ", " : "", fs->index[k],
			isl_val_get_num_si(v));
		isl_val_free(v);
	}
	fprintf(f, "]");
}

/* A witness of the violated dependence "dep": a sampled pair of instances
 * from "bad" (a subset of dep->map) and the sizes it needs. */
static char *describe(const struct ein_deps *deps, const struct ein_dep *dep,
	__isl_take isl_map *bad, const char *what)
{
	const struct ein_scop *scop = deps->scop;
	const struct ein_scop_stmt *s = &scop->stmt[dep->src];
	const struct ein_scop_stmt *t = &scop->stmt[dep->snk];
	isl_point *pnt = isl_set_sample_point(isl_map_wrap(bad));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int k, n_in = isl_set_dim(s->domain, isl_dim_set);

	if (!f) {
		isl_point_free(pnt);
		return NULL;
	}
	fprintf(f, "the %s dependence%s of %s on %s through tensor %s: ",
		kind_name(dep->kind), dep->reduction ? " (reduction)" : "",
		t->name, s->name, scop->func->tensor[dep->tensor].name);
	print_instance(f, scop, s, pnt, 0);
	fprintf(f, " must run %s ", what);
	print_instance(f, scop, t, pnt, n_in);
	for (k = 0; k < scop->func->n_size; ++k) {
		isl_val *v = isl_point_get_coordinate_val(pnt, isl_dim_param,
			k);

		fprintf(f, "%s%s=%ld", k ? ", " : " (at ",
			scop->func->size[k], isl_val_get_num_si(v));
		isl_val_free(v);
	}
	if (scop->func->n_size)
		fprintf(f, ")");
	fclose(f);
	isl_point_free(pnt);
	return buf;
}

/* The pairs of "dep" whose images (x, y) under "sched" lie in "rel" (a
 * relation on the flat schedule space). */
static __isl_give isl_map *pairs_in(const struct ein_deps *deps,
	const struct ein_dep *dep, __isl_keep isl_union_map *sched,
	__isl_take isl_map *rel)
{
	isl_map *ss = stmt_sched(sched, &deps->scop->stmt[dep->src]);
	isl_map *st = stmt_sched(sched, &deps->scop->stmt[dep->snk]);

	rel = isl_map_apply_range(isl_map_apply_range(ss, rel),
		isl_map_reverse(st));
	return isl_map_intersect(isl_map_copy(dep->map), rel);
}

/* Check each relevant dependence against "rel" (the forbidden relation
 * between the schedule vectors of source and sink, taken). */
static int check(const struct ein_deps *deps, __isl_keep isl_union_map *sched,
	const int *member, int skip_reduction, __isl_take isl_map *rel,
	const char *what, char **why)
{
	int i, ok = 1;

	*why = NULL;
	for (i = 0; ok == 1 && i < deps->n; ++i) {
		const struct ein_dep *dep = &deps->dep[i];
		isl_map *bad;
		isl_bool empty;

		if (skip_reduction && dep->reduction)
			continue;
		if (member && (!member[dep->src] || !member[dep->snk]))
			continue;
		bad = pairs_in(deps, dep, sched, isl_map_copy(rel));
		empty = isl_map_is_empty(bad);
		if (empty == isl_bool_false) {
			*why = describe(deps, dep, bad, what);
			ok = *why ? 0 : -1;
		} else {
			isl_map_free(bad);
			ok = empty == isl_bool_true ? 1 : -1;
		}
	}
	isl_map_free(rel);
	return ok;
}

int ein_deps_check_order(const struct ein_deps *deps,
	__isl_keep isl_union_map *sched, int strict, char **why)
{
	isl_map *ge = isl_map_lex_ge(flat_space(sched));

	return check(deps, sched, NULL, !strict, ge, "before", why);
}

int ein_deps_check_carried(const struct ein_deps *deps,
	__isl_keep isl_union_map *sched, int dim, const int *member,
	int allow_reduction, char **why)
{
	isl_space *space = flat_space(sched);
	isl_map *eq = isl_map_universe(isl_space_map_from_set(space));
	isl_map *lt, *gt;
	int k;

	for (k = 0; k < dim; ++k)
		eq = isl_map_equate(eq, isl_dim_in, k, isl_dim_out, k);
	lt = isl_map_order_lt(isl_map_copy(eq), isl_dim_in, dim,
		isl_dim_out, dim);
	gt = isl_map_order_gt(eq, isl_dim_in, dim, isl_dim_out, dim);
	return check(deps, sched, member, allow_reduction,
		isl_map_union(lt, gt),
		"in the same iteration of the loop as", why);
}

__isl_give isl_printer *ein_deps_print(__isl_take isl_printer *p,
	const struct ein_deps *deps)
{
	int i;

	for (i = 0; i < deps->n; ++i) {
		const struct ein_dep *d = &deps->dep[i];

		p = isl_printer_print_str(p, kind_name(d->kind));
		p = isl_printer_print_str(p, d->reduction ? " (reduction) " :
			" ");
		p = isl_printer_print_str(p, deps->scop->stmt[d->src].name);
		p = isl_printer_print_str(p, " -> ");
		p = isl_printer_print_str(p, deps->scop->stmt[d->snk].name);
		p = isl_printer_print_str(p, " through ");
		p = isl_printer_print_str(p,
			deps->scop->func->tensor[d->tensor].name);
		p = isl_printer_print_str(p, ": ");
		p = isl_printer_print_map(p, d->map);
		p = isl_printer_end_line(p);
	}
	if (deps->n == 0) {
		p = isl_printer_print_str(p, "no dependences");
		p = isl_printer_end_line(p);
	}
	return p;
}
