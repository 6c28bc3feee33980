/*
 * scop.c: statements and accesses of a definition.
 *
 * Pre: an ein_func with domains and shapes (range.c).
 * Post: an ein_scop: one or two polyhedral statements per source
 *	statement, in source order, with their access relations and their
 *	guards.  Schedules are src/sched's concern; they may add buffers and
 *	copy statements through the functions at the end of this file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/id.h>
#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/aff.h>
#include <isl/map.h>
#include <isl/val.h>
#include <isl/union_set.h>
#include <isl/schedule.h>
#include "ctx.h"
#include "diag.h"
#include "frontend/guard.h"
#include "poly/affine.h"
#include "poly/scop.h"

static void access_clear(struct ein_scop_access *access)
{
	isl_multi_pw_aff_free(access->index);
	isl_set_free(access->guard);
	isl_multi_pw_aff_free(access->local_index);
}

static void buffer_clear(struct ein_scop_buffer *buf)
{
	int d;

	for (d = 0; buf->extent && d < buf->n_dim; ++d)
		isl_pw_aff_free(buf->extent[d]);
	free(buf->extent);
	free(buf->name);
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
	for (i = 0; i < scop->n_buffer; ++i)
		buffer_clear(&scop->buffer[i]);
	free(scop->buffer);
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

/* A new access of "stmt" (zeroed but for "local"), NULL if out of
 * memory. */
static struct ein_scop_access *new_access(struct ein_scop_stmt *stmt)
{
	struct ein_scop_access *a;

	a = realloc(stmt->access, (stmt->n_access + 1) * sizeof(*a));
	if (!a)
		return NULL;
	stmt->access = a;
	a = &stmt->access[stmt->n_access++];
	memset(a, 0, sizeof(*a));
	a->local = -1;
	return a;
}

/* Add the access "expr" made by source node "node", evaluated where
 * "guard" (taken, NULL: everywhere) holds. */
static int add_access(ein_ctx *ctx, const struct ein_func *func,
	struct ein_scop_stmt *stmt, const struct ein_ast_expr *expr,
	int is_write, const struct ein_ast_expr *node,
	__isl_take isl_set *guard)
{
	struct ein_scop_access *a = new_access(stmt);
	isl_space *space;

	if (!a) {
		isl_set_free(guard);
		return -1;
	}
	a->expr = node;
	a->tensor = expr->slot;
	a->is_write = is_write;
	a->guard = guard;
	space = isl_set_get_space(stmt->domain);
	a->index = access_index(ctx, space, expr, &func->tensor[expr->slot]);
	isl_space_free(space);
	return a->index ? 0 : -1;
}

/* The state of add_reads: what it adds accesses to. */
struct reads {
	ein_ctx *ctx;
	const struct ein_func *func;
	struct ein_scop_stmt *stmt;
};

static int add_read(const struct ein_ast_expr *expr, __isl_take isl_set *guard,
	void *user)
{
	struct reads *r = user;

	if (guard)
		guard = isl_set_set_tuple_name(guard, r->stmt->name);
	return add_access(r->ctx, r->func, r->stmt, expr, 0, expr, guard);
}

/* Add the reads in "expr", in pre-order, each with its guard. */
static int add_reads(ein_ctx *ctx, const struct ein_func *func,
	struct ein_scop_stmt *stmt, const struct ein_ast_expr *expr)
{
	struct reads r = { ctx, func, stmt };
	isl_space *space = isl_set_get_space(stmt->domain);
	int ok = ein_guard_foreach_access(ctx, space, expr, &add_read, &r);

	isl_space_free(space);
	return ok;
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
	return add_access(ctx, scop->func, stmt, fs->ast->lhs, 1, fs->ast->lhs,
		NULL);
}

/* Is "expr" a literal zero (0 or 0.0, not -0.0)? */
static int is_zero(const struct ein_ast_expr *expr)
{
	if (expr->kind == EIN_EXPR_INT)
		return expr->ival == 0;
	return expr->kind == EIN_EXPR_FLOAT && expr->fval == 0 &&
		!signbit(expr->fval);
}

/* Index-set splitting of a sum of guarded terms, "S += c ? e : 0" with c
 * affine (a convolution's zero padding): the instances where c fails add
 * zero, so the statement keeps only those where it holds and evaluates e
 * alone, without a comparison per element; its loops' bounds now say
 * where c holds.  (Only the sign of a zero sum can differ: -0 + 0 is +0;
 * the sum is 0 either way.)  Otherwise the statement evaluates its whole
 * right-hand side everywhere. */
static int split_guard(ein_ctx *ctx, const struct ein_func_stmt *fs,
	struct ein_scop_stmt *stmt)
{
	const struct ein_ast_expr *rhs = fs->ast->rhs;
	isl_space *space;
	isl_set *guard;

	stmt->rhs = rhs;
	if (fs->ast->op != EIN_ASSIGN_ADD || rhs->kind != EIN_EXPR_SELECT ||
	    !is_zero(rhs->args[2]))
		return 0;
	space = isl_set_get_space(stmt->domain);
	guard = ein_guard_from_cond(ctx, space, rhs->args[0]);
	isl_space_free(space);
	if (!guard)
		return 0;
	stmt->domain = isl_set_intersect(stmt->domain, guard);
	stmt->rhs = rhs->args[1];
	return stmt->domain ? 0 : -1;
}

/* The update (or plain assignment) of source statement "src".  An update
 * such as "+=" also reads the element it writes. */
static int add_update(ein_ctx *ctx, struct ein_scop *scop, int src)
{
	const struct ein_func_stmt *fs = &scop->func->stmt[src];
	struct ein_scop_stmt *stmt;

	stmt = add_stmt(scop, src, 0, isl_set_copy(fs->domain));
	if (!stmt || split_guard(ctx, fs, stmt) < 0)
		return -1;
	if (add_access(ctx, scop->func, stmt, fs->ast->lhs, 1,
			fs->ast->lhs, NULL) < 0)
		return -1;
	if (fs->ast->op != EIN_ASSIGN_SET &&
	    add_access(ctx, scop->func, stmt, fs->ast->lhs, 0, NULL, NULL) < 0)
		return -1;
	return add_reads(ctx, scop->func, stmt, stmt->rhs);
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
	scop->n_source = scop->n_stmt;
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
	if (a->guard) {
		p = isl_printer_print_str(p, " where ");
		p = isl_printer_print_set(p, a->guard);
	}
	if (a->local_index) {
		p = isl_printer_print_str(p, " via ");
		p = isl_printer_print_multi_pw_aff(p, a->local_index);
	}
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
	for (i = 0; i < scop->n_buffer; ++i) {
		const struct ein_scop_buffer *buf = &scop->buffer[i];

		p = isl_printer_print_str(p, "buffer: ");
		p = isl_printer_print_str(p, buf->name);
		p = isl_printer_print_str(p, " of ");
		p = isl_printer_print_str(p, scop->func->tensor[buf->of].name);
		for (j = 0; j < buf->n_dim; ++j) {
			p = isl_printer_print_str(p, j ? ", " : " extents ");
			p = isl_printer_print_pw_aff(p, buf->extent[j]);
		}
		p = isl_printer_end_line(p);
	}
	return p;
}

/* ---- extensions by a schedule ------------------------------------------ */

int ein_scop_n_tensor(const struct ein_scop *scop)
{
	return scop->func->n_tensor + scop->n_buffer;
}

const struct ein_scop_buffer *ein_scop_get_buffer(const struct ein_scop *scop,
	int tensor)
{
	if (tensor < scop->func->n_tensor)
		return NULL;
	return &scop->buffer[tensor - scop->func->n_tensor];
}

const char *ein_scop_tensor_name(const struct ein_scop *scop, int tensor)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(scop, tensor);

	return buf ? buf->name : scop->func->tensor[tensor].name;
}

enum ein_type ein_scop_tensor_type(const struct ein_scop *scop, int tensor)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(scop, tensor);

	return scop->func->tensor[buf ? buf->of : tensor].type;
}

int ein_scop_tensor_n_dim(const struct ein_scop *scop, int tensor)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(scop, tensor);

	return buf ? buf->n_dim : scop->func->tensor[tensor].n_dim;
}

__isl_keep isl_pw_aff *ein_scop_tensor_extent(const struct ein_scop *scop,
	int tensor, int dim)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(scop, tensor);

	return buf ? buf->extent[dim] : scop->func->tensor[tensor].shape[dim];
}

/* Keep in *user (a long) the largest constant of the pieces of a
 * constant isl_pw_aff. */
static isl_stat max_piece(__isl_take isl_set *set, __isl_take isl_aff *aff,
	void *user)
{
	long *max = user;
	isl_val *v = isl_aff_get_constant_val(aff);

	if (v && isl_val_is_int(v) && isl_val_get_num_si(v) > *max)
		*max = isl_val_get_num_si(v);
	isl_val_free(v);
	isl_set_free(set);
	isl_aff_free(aff);
	return isl_stat_ok;
}

/* The number of elements of a buffer with extents "extent", if they are
 * all constants, else 0. */
static long fixed_size(int n_dim, isl_pw_aff **extent)
{
	long n = 1;
	int d;

	for (d = 0; d < n_dim; ++d) {
		long max = 0;

		if (isl_pw_aff_is_cst(extent[d]) != isl_bool_true ||
		    isl_pw_aff_foreach_piece(extent[d], &max_piece, &max) < 0)
			return 0;
		n *= max;
	}
	return n;
}

int ein_scop_tensor_is_accessed(const struct ein_scop *scop, int tensor)
{
	int i, k;

	for (i = 0; i < scop->n_stmt; ++i)
		for (k = 0; k < scop->stmt[i].n_access; ++k)
			if (ein_scop_access_get_target(
					&scop->stmt[i].access[k]) == tensor)
				return 1;
	return 0;
}

int ein_scop_add_buffer(struct ein_scop *scop, const char *name, int of,
	int n_dim, __isl_take isl_pw_aff **extent)
{
	struct ein_scop_buffer *buf;
	int d, ok = extent ? 0 : -1;

	for (d = 0; d < n_dim; ++d)
		if (!extent || !extent[d])
			ok = -1;
	buf = ok ? NULL : realloc(scop->buffer,
		(scop->n_buffer + 1) * sizeof(*buf));
	if (!buf) {
		for (d = 0; extent && d < n_dim; ++d)
			isl_pw_aff_free(extent[d]);
		free(extent);
		return -1;
	}
	scop->buffer = buf;
	buf = &scop->buffer[scop->n_buffer++];
	buf->name = strdup(name);
	buf->of = of;
	buf->n_dim = n_dim;
	buf->extent = extent;
	buf->n_fixed = fixed_size(n_dim, extent);
	buf->storage = 0;
	return buf->name ? scop->func->n_tensor + scop->n_buffer - 1 : -1;
}

/* Add the access of a copy to tensor "tensor" at "index" (taken). */
static int add_copy_access(struct ein_scop_stmt *stmt, int tensor,
	int is_write, __isl_take isl_multi_pw_aff *index)
{
	struct ein_scop_access *a = new_access(stmt);

	if (!a) {
		isl_multi_pw_aff_free(index);
		return -1;
	}
	a->tensor = tensor;
	a->is_write = is_write;
	a->index = index;
	return index ? 0 : -1;
}

__isl_give isl_set *ein_scop_tensor_box(const struct ein_scop *scop,
	int tensor, __isl_take isl_space *space)
{
	isl_set *box = isl_set_universe(isl_space_copy(space));
	int d, n = ein_scop_tensor_n_dim(scop, tensor);

	for (d = 0; box && d < n; ++d) {
		isl_pw_aff *ext = ein_scop_tensor_extent(scop, tensor, d);
		isl_pw_aff *x;

		if (!ext) {
			box = isl_set_free(box);
			break;
		}
		x = isl_pw_aff_var_on_domain(isl_local_space_from_space(
			isl_space_copy(space)), isl_dim_set, d);
		box = isl_set_intersect(box,
			isl_pw_aff_nonneg_set(isl_pw_aff_copy(x)));
		box = isl_set_intersect(box, isl_pw_aff_lt_set(x,
			isl_pw_aff_insert_domain(isl_pw_aff_copy(ext),
				isl_space_copy(space))));
	}
	isl_space_free(space);
	return box;
}

/* A new statement of kind "kind" for source statement "src" with domain
 * "domain" (taken), named after it, without accesses. */
static struct ein_scop_stmt *add_schedule_stmt(struct ein_scop *scop,
	enum ein_stmt_kind kind, int src, __isl_take isl_set *domain)
{
	struct ein_scop_stmt *stmt = realloc(scop->stmt,
		(scop->n_stmt + 1) * sizeof(*stmt));
	const char *name = domain ? isl_set_get_tuple_name(domain) : NULL;

	if (stmt)
		scop->stmt = stmt;
	if (!stmt || !name) {
		isl_set_free(domain);
		return NULL;
	}
	stmt = &scop->stmt[scop->n_stmt++];
	memset(stmt, 0, sizeof(*stmt));
	stmt->name = strdup(name);
	stmt->src = src;
	stmt->kind = kind;
	stmt->domain = domain;
	return stmt->name ? stmt : NULL;
}

struct ein_scop_stmt *ein_scop_add_copy(struct ein_scop *scop,
	enum ein_stmt_kind kind, int src, __isl_take isl_set *domain,
	int wt, __isl_take isl_multi_pw_aff *write, int rt,
	__isl_take isl_multi_pw_aff *read)
{
	struct ein_scop_stmt *stmt = add_schedule_stmt(scop, kind, src, domain);

	if (!stmt || add_copy_access(stmt, wt, 1, write) < 0) {
		if (!stmt)
			isl_multi_pw_aff_free(write);
		isl_multi_pw_aff_free(read);
		return NULL;
	}
	if (add_copy_access(stmt, rt, 0, read) < 0)
		return NULL;
	return stmt;
}

struct ein_scop_stmt *ein_scop_add_prefetch(struct ein_scop *scop, int src,
	__isl_take isl_set *domain, int t, __isl_take isl_multi_pw_aff *index)
{
	struct ein_scop_stmt *stmt = add_schedule_stmt(scop, EIN_STMT_PREFETCH, src,
		domain);

	if (!stmt) {
		isl_multi_pw_aff_free(index);
		return NULL;
	}
	return add_copy_access(stmt, t, 0, index) < 0 ? NULL : stmt;
}

int ein_scop_access_redirect(struct ein_scop_access *a, int local,
	__isl_take isl_multi_pw_aff *index)
{
	isl_multi_pw_aff_free(a->local_index);
	a->local = local;
	a->local_index = index;
	return index ? 0 : -1;
}

int ein_scop_access_get_target(const struct ein_scop_access *a)
{
	return a->local_index ? a->local : a->tensor;
}

__isl_keep isl_multi_pw_aff *ein_scop_access_get_target_index(
	const struct ein_scop_access *a)
{
	return a->local_index ? a->local_index : a->index;
}

__isl_give isl_map *ein_scop_access_get_map(const struct ein_scop_stmt *stmt,
	const struct ein_scop_access *a)
{
	isl_map *m = isl_map_from_multi_pw_aff(
		isl_multi_pw_aff_copy(a->index));

	m = isl_map_intersect_domain(m, isl_set_copy(stmt->domain));
	if (a->guard)
		m = isl_map_intersect_domain(m, isl_set_copy(a->guard));
	return m;
}

__isl_give isl_map *ein_scop_stmt_tensor_accesses(
	const struct ein_scop_stmt *stmt, int tensor, int reads_only)
{
	isl_map *all = NULL;
	int k;

	for (k = 0; k < stmt->n_access; ++k) {
		const struct ein_scop_access *a = &stmt->access[k];
		isl_map *m;

		if (a->tensor != tensor || (reads_only && a->is_write))
			continue;
		m = ein_scop_access_get_map(stmt, a);
		all = all ? isl_map_union(all, m) : m;
	}
	return all;
}
