/*
 * ast_build.c: isl AST generation, with each statement instance annotated
 * with its access index expressions.
 *
 * As PPCG does, at each statement the AST build gives the schedule from
 * the AST's loop iterators back to the statement's indices; pulling each
 * access's index function back through it and asking the build for an
 * expression gives index expressions in the iterators, simplified under
 * the constraints the build knows at that point.  An access a schedule
 * redirected to a local buffer (pack, accumulate) gets the expressions of
 * its index in the buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/union_map.h>
#include "ctx.h"
#include "diag.h"
#include "codegen/ast_build.h"
#include "frontend/ast.h"

#define EIN_STMT_ID "ein_stmt"

/* Free a NULL-terminated array of expressions. */
static void exprs_free(isl_ast_expr **exprs)
{
	int i;

	for (i = 0; exprs && exprs[i]; ++i)
		isl_ast_expr_free(exprs[i]);
	free(exprs);
}

/* Free "user", an ein_user_stmt.  Its arrays are NULL-terminated, so that
 * freeing does not depend on the statement, which may be gone already. */
static void user_stmt_free(void *user)
{
	struct ein_user_stmt *us = user;
	int i;

	if (!us)
		return;
	for (i = 0; us->index && us->index[i]; ++i)
		exprs_free(us->index[i]);
	free(us->index);
	exprs_free(us->iter);
	free(us);
}

/* Expressions for each element of "mpa" (over the statement domain),
 * pulled back through "iter" (AST iterators -> statement domain), in a
 * NULL-terminated array. */
static isl_ast_expr **build_exprs(__isl_keep isl_ast_build *build,
	__isl_keep isl_multi_pw_aff *mpa, __isl_keep isl_pw_multi_aff *iter)
{
	int d, n = isl_multi_pw_aff_dim(mpa, isl_dim_out);
	isl_ast_expr **exprs = calloc(n + 1, sizeof(*exprs));
	isl_multi_pw_aff *pulled;

	if (!exprs)
		return NULL;
	pulled = isl_multi_pw_aff_pullback_pw_multi_aff(
		isl_multi_pw_aff_copy(mpa), isl_pw_multi_aff_copy(iter));
	for (d = 0; d < n; ++d)
		exprs[d] = isl_ast_build_expr_from_pw_aff(build,
			isl_multi_pw_aff_get_pw_aff(pulled, d));
	isl_multi_pw_aff_free(pulled);
	return exprs;
}

static struct ein_user_stmt *user_stmt_alloc(const struct ein_scop_stmt *stmt,
	__isl_keep isl_ast_build *build)
{
	struct ein_user_stmt *us = calloc(1, sizeof(*us));
	isl_map *sched;
	isl_pw_multi_aff *iter;
	isl_multi_pw_aff *ident;
	int i;

	if (!us)
		return NULL;
	us->stmt = stmt;
	sched = isl_map_from_union_map(isl_ast_build_get_schedule(build));
	iter = isl_pw_multi_aff_from_map(isl_map_reverse(sched));
	us->index = calloc(stmt->n_access + 1, sizeof(*us->index));
	for (i = 0; us->index && i < stmt->n_access; ++i)
		us->index[i] = build_exprs(build,
			ein_scop_access_get_target_index(&stmt->access[i]),
			iter);
	ident = isl_multi_pw_aff_from_pw_multi_aff(
		isl_pw_multi_aff_identity_on_domain_space(
			isl_set_get_space(stmt->domain)));
	us->iter = build_exprs(build, ident, iter);
	isl_multi_pw_aff_free(ident);
	isl_pw_multi_aff_free(iter);
	return us;
}

/* The at_each_domain callback: annotate user node "node" with its
 * statement's expressions. */
static __isl_give isl_ast_node *annotate(__isl_take isl_ast_node *node,
	__isl_keep isl_ast_build *build, void *user)
{
	struct ein_scop *scop = user;
	isl_ast_expr *call = isl_ast_node_user_get_expr(node);
	isl_ast_expr *arg = isl_ast_expr_get_op_arg(call, 0);
	isl_id *id = isl_ast_expr_get_id(arg);
	struct ein_scop_stmt *stmt = ein_scop_find_stmt(scop,
		isl_id_get_name(id));
	struct ein_user_stmt *us = stmt ? user_stmt_alloc(stmt, build) : NULL;

	isl_id_free(id);
	isl_ast_expr_free(arg);
	isl_ast_expr_free(call);
	if (!us)
		return isl_ast_node_free(node);
	id = isl_id_alloc(isl_ast_node_get_ctx(node), EIN_STMT_ID, us);
	id = isl_id_set_free_user(id, &user_stmt_free);
	return isl_ast_node_set_annotation(node, id);
}

__isl_give isl_ast_node *ein_ast_build(ein_ctx *ctx, struct ein_scop *scop,
	__isl_take isl_schedule *sched)
{
	isl_ast_build *build;
	isl_ast_node *tree;

	build = isl_ast_build_from_context(isl_set_copy(scop->context));
	build = isl_ast_build_set_at_each_domain(build, &annotate, scop);
	tree = isl_ast_build_node_from_schedule(build, sched);
	isl_ast_build_free(build);
	if (!tree)
		ein_internal(ctx, "isl could not build the AST: %s",
			isl_ctx_last_error_msg(ein_ctx_get_isl(ctx)) ?
			isl_ctx_last_error_msg(ein_ctx_get_isl(ctx)) : "?");
	return tree;
}

const struct ein_user_stmt *ein_ast_node_get_user_stmt(
	__isl_keep isl_ast_node *node)
{
	isl_id *id = isl_ast_node_get_annotation(node);
	const struct ein_user_stmt *us = NULL;

	if (id && !strcmp(isl_id_get_name(id), EIN_STMT_ID))
		us = isl_id_get_user(id);
	isl_id_free(id);
	return us;
}

__isl_give isl_ast_expr *ein_ast_build_extent(struct ein_scop *scop,
	__isl_keep isl_pw_aff *pa)
{
	isl_ast_build *build;
	isl_ast_expr *expr;

	build = isl_ast_build_from_context(isl_set_copy(scop->context));
	expr = isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_copy(pa));
	isl_ast_build_free(build);
	return expr;
}

/* "T[x0][x1]" for access "pos" of "us". */
static __isl_give isl_printer *print_access(__isl_take isl_printer *p,
	const struct ein_scop *scop, const struct ein_user_stmt *us, int pos)
{
	int t = ein_scop_access_get_target(&us->stmt->access[pos]), d;

	p = isl_printer_print_str(p, ein_scop_tensor_name(scop, t));
	for (d = 0; us->index[pos][d]; ++d) {
		p = isl_printer_print_str(p, "[");
		p = isl_printer_print_ast_expr(p, us->index[pos][d]);
		p = isl_printer_print_str(p, "]");
	}
	return p;
}

/* A statement of the AST: a copy as an assignment "B[..] = A[..];", any
 * other as isl prints it, "S0(c0, c1);". */
static __isl_give isl_printer *print_user(__isl_take isl_printer *p,
	__isl_take isl_ast_print_options *options,
	__isl_keep isl_ast_node *node, void *user)
{
	const struct ein_user_stmt *us = ein_ast_node_get_user_stmt(node);
	isl_ast_expr *call;

	isl_ast_print_options_free(options);
	p = isl_printer_start_line(p);
	if (us && us->stmt->kind != EIN_STMT_COMPUTE) {
		p = print_access(p, user, us, 0);
		p = isl_printer_print_str(p, " = ");
		p = print_access(p, user, us, 1);
	} else {
		call = isl_ast_node_user_get_expr(node);
		p = isl_printer_print_ast_expr(p, call);
		isl_ast_expr_free(call);
	}
	p = isl_printer_print_str(p, ";");
	return isl_printer_end_line(p);
}

/* "// A_pack0: float32[4][64], a local buffer of A" */
static __isl_give isl_printer *print_buffer(__isl_take isl_printer *p,
	const struct ein_scop *scop, const struct ein_scop_buffer *buf)
{
	int d;

	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "// ");
	p = isl_printer_print_str(p, buf->name);
	p = isl_printer_print_str(p, ": ");
	p = isl_printer_print_str(p,
		ein_type_name(scop->func->tensor[buf->of].type));
	for (d = 0; d < buf->n_dim; ++d) {
		isl_ast_expr *x = ein_ast_build_extent((struct ein_scop *) scop,
			buf->extent[d]);

		p = isl_printer_print_str(p, "[");
		p = isl_printer_print_ast_expr(p, x);
		p = isl_printer_print_str(p, "]");
		isl_ast_expr_free(x);
	}
	if (!buf->storage) {
		p = isl_printer_print_str(p, ", a local buffer of ");
		p = isl_printer_print_str(p, scop->func->tensor[buf->of].name);
		return isl_printer_end_line(p);
	}
	p = isl_printer_print_str(p, ", the storage of ");
	p = isl_printer_print_str(p, scop->func->tensor[buf->of].name);
	p = isl_printer_print_str(p, " for one iteration of c0");
	for (d = 1; d < buf->storage; ++d) {
		p = isl_printer_print_str(p, ", c");
		p = isl_printer_print_int(p, d);
	}
	return isl_printer_end_line(p);
}

__isl_give isl_printer *ein_ast_print(__isl_take isl_printer *p,
	const struct ein_scop *scop, __isl_keep isl_ast_node *tree)
{
	isl_ast_print_options *options;
	int i;

	p = isl_printer_set_output_format(p, ISL_FORMAT_C);
	for (i = 0; i < scop->n_buffer; ++i)
		p = print_buffer(p, scop, &scop->buffer[i]);
	options = isl_ast_print_options_alloc(isl_printer_get_ctx(p));
	options = isl_ast_print_options_set_print_user(options, &print_user,
		(void *) scop);
	return isl_ast_node_print(tree, p, options);
}
