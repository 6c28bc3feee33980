/*
 * scop.c: statements and accesses of a definition.
 *
 * Pre: an ein_func with domains and shapes (range.c).
 * Post: an ein_scop: one or two polyhedral statements per source
 *	statement, in source order, with their access relations.  Schedules
 *	are src/sched's concern.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/id.h>
#include <isl/space.h>
#include <isl/aff.h>
#include <isl/union_set.h>
#include <isl/schedule.h>
#include "ctx.h"
#include "diag.h"
#include "poly/affine.h"
#include "poly/scop.h"

static void access_clear(struct ein_scop_access *access)
{
	isl_multi_pw_aff_free(access->index);
}

static void scop_stmt_clear(struct ein_scop_stmt *stmt)
{
	int i;

	for (i = 0; i < stmt->n_access; ++i)
		access_clear(&stmt->access[i]);
	free(stmt->access);
	free(stmt->name);
	isl_set_free(stmt->domain);
}

void ein_scop_free(struct ein_scop *scop)
{
	int i;

	if (!scop)
		return;
	for (i = 0; i < scop->n_stmt; ++i)
		scop_stmt_clear(&scop->stmt[i]);
	free(scop->stmt);
	isl_set_free(scop->context);
	free(scop);
}

struct ein_scop_stmt *ein_scop_find_stmt(struct ein_scop *scop,
	const char *name)
{
	int i;

	for (i = 0; i < scop->n_stmt; ++i)
		if (!strcmp(scop->stmt[i].name, name))
			return &scop->stmt[i];
	return NULL;
}

const struct ein_scop_access *ein_scop_stmt_find_access(
	const struct ein_scop_stmt *stmt, const struct ein_ast_expr *expr)
{
	int i;

	for (i = 0; i < stmt->n_access; ++i)
		if (stmt->access[i].expr == expr)
			return &stmt->access[i];
	return NULL;
}

/* The index function of access "expr" to tensor "t" from the statement
 * domain space "space". */
static isl_multi_pw_aff *access_index(ein_ctx *ctx, isl_space *space,
	const struct ein_ast_expr *expr, const struct ein_tensor *t)
{
	isl_space *range = isl_space_copy(space);
	isl_pw_aff_list *list;
	int d;

	range = isl_space_drop_dims(range, isl_dim_set, 0,
		isl_space_dim(range, isl_dim_set));
	range = isl_space_add_dims(range, isl_dim_set, t->n_dim);
	range = isl_space_set_tuple_name(range, isl_dim_set, t->name);
	list = isl_pw_aff_list_alloc(isl_space_get_ctx(space), t->n_dim);
	for (d = 0; d < t->n_dim; ++d)
		list = isl_pw_aff_list_add(list,
			ein_affine_from_expr(ctx, space, expr->args[d]));
	space = isl_space_map_from_domain_and_range(isl_space_copy(space),
		range);
	return isl_multi_pw_aff_from_pw_aff_list(space, list);
}

static int add_access(ein_ctx *ctx, const struct ein_func *func,
	struct ein_scop_stmt *stmt, const struct ein_ast_expr *expr,
	int is_write, const struct ein_ast_expr *node)
{
	struct ein_scop_access *a;
	isl_space *space;

	a = realloc(stmt->access, (stmt->n_access + 1) * sizeof(*a));
	if (!a)
		return -1;
	stmt->access = a;
	a = &stmt->access[stmt->n_access++];
	a->expr = node;
	a->tensor = expr->slot;
	a->is_write = is_write;
	space = isl_set_get_space(stmt->domain);
	a->index = access_index(ctx, space, expr, &func->tensor[expr->slot]);
	isl_space_free(space);
	return a->index ? 0 : -1;
}

/* Add the reads in "expr", in pre-order. */
static int add_reads(ein_ctx *ctx, const struct ein_func *func,
	struct ein_scop_stmt *stmt, const struct ein_ast_expr *expr)
{
	int i;

	if (expr->kind == EIN_EXPR_ACCESS &&
	    add_access(ctx, func, stmt, expr, 0, expr) < 0)
		return -1;
	for (i = 0; i < expr->n_arg; ++i)
		if (add_reads(ctx, func, stmt, expr->args[i]) < 0)
			return -1;
	return 0;
}

/* Add statement "S<src>" (or "S<src>_init") with domain "domain". */
static struct ein_scop_stmt *add_stmt(struct ein_scop *scop, int src,
	int is_init, __isl_take isl_set *domain)
{
	struct ein_scop_stmt *stmt = &scop->stmt[scop->n_stmt++];
	char name[32];

	snprintf(name, sizeof(name), "S%d%s", src, is_init ? "_init" : "");
	stmt->src = src;
	stmt->is_init = is_init;
	stmt->name = strdup(name);
	stmt->domain = isl_set_set_tuple_name(domain, name);
	return stmt->name && stmt->domain ? stmt : NULL;
}

/* The initialisation of source statement "src": the domain of its update
 * projected onto the left-hand side's indices, writing the left-hand
 * side. */
static int add_init(ein_ctx *ctx, struct ein_scop *scop, int src)
{
	const struct ein_func_stmt *fs = &scop->func->stmt[src];
	isl_set *dom = isl_set_copy(fs->domain);
	struct ein_scop_stmt *stmt;

	dom = isl_set_project_out(dom, isl_dim_set, fs->n_lhs,
		fs->n_index - fs->n_lhs);
	stmt = add_stmt(scop, src, 1, dom);
	if (!stmt)
		return -1;
	return add_access(ctx, scop->func, stmt, fs->ast->lhs, 1, fs->ast->lhs);
}

/* The update (or plain assignment) of source statement "src".  An update
 * such as "+=" also reads the element it writes. */
static int add_update(ein_ctx *ctx, struct ein_scop *scop, int src)
{
	const struct ein_func_stmt *fs = &scop->func->stmt[src];
	struct ein_scop_stmt *stmt;

	stmt = add_stmt(scop, src, 0, isl_set_copy(fs->domain));
	if (!stmt)
		return -1;
	if (add_access(ctx, scop->func, stmt, fs->ast->lhs, 1,
			fs->ast->lhs) < 0)
		return -1;
	if (fs->ast->op != EIN_ASSIGN_SET &&
	    add_access(ctx, scop->func, stmt, fs->ast->lhs, 0, NULL) < 0)
		return -1;
	return add_reads(ctx, scop->func, stmt, fs->ast->rhs);
}

struct ein_scop *ein_scop_from_func(ein_ctx *ctx, const struct ein_func *func)
{
	struct ein_scop *scop = calloc(1, sizeof(*scop));
	int i, ok = 0;

	if (!scop)
		return NULL;
	scop->func = func;
	scop->context = isl_set_copy(func->context);
	scop->stmt = calloc(2 * func->n_stmt + 1, sizeof(*scop->stmt));
	if (!scop->stmt)
		return (ein_scop_free(scop), NULL);
	for (i = 0; ok == 0 && i < func->n_stmt; ++i) {
		if (func->stmt[i].ast->init)
			ok = add_init(ctx, scop, i);
		if (ok == 0)
			ok = add_update(ctx, scop, i);
	}
	if (ok < 0) {
		if (ein_diag_n_error(ctx) == 0)
			ein_internal(ctx, "cannot build the polyhedral "
				"model: %s", isl_ctx_last_error_msg(
					ein_ctx_get_isl(ctx)));
		return (ein_scop_free(scop), NULL);
	}
	return scop;
}

static isl_printer *print_access(isl_printer *p,
	const struct ein_scop_access *a)
{
	p = isl_printer_print_str(p, a->is_write ? "    write " : "    read  ");
	p = isl_printer_print_multi_pw_aff(p, a->index);
	return isl_printer_end_line(p);
}

__isl_give isl_printer *ein_scop_print(__isl_take isl_printer *p,
	const struct ein_scop *scop)
{
	int i, j;

	p = isl_printer_print_str(p, "context: ");
	p = isl_printer_print_set(p, scop->context);
	p = isl_printer_end_line(p);
	for (i = 0; i < scop->n_stmt; ++i) {
		const struct ein_scop_stmt *stmt = &scop->stmt[i];

		p = isl_printer_print_str(p, "domain: ");
		p = isl_printer_print_set(p, stmt->domain);
		p = isl_printer_end_line(p);
		for (j = 0; j < stmt->n_access; ++j)
			p = print_access(p, &stmt->access[j]);
	}
	return p;
}
