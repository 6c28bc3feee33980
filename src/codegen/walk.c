/*
 * walk.c: traversal of isl ASTs and lowering of their expressions, shared
 * by the backends.  How a backend forms its loops (the CPU's explicit
 * vectors: vector_loop.c) is the emitter's for_loop, not the walker's.
 */
#include <stdlib.h>
#include <isl/ast.h>
#include <isl/val.h>
#include "codegen/walk.h"

static ein_value walk_op(const struct ein_emitter *e,
	__isl_keep isl_ast_expr *expr)
{
	int i, n = isl_ast_expr_op_get_n_arg(expr);
	ein_value args[n > 0 ? n : 1];

	for (i = 0; i < n; ++i) {
		isl_ast_expr *arg = isl_ast_expr_op_get_arg(expr, i);

		args[i] = ein_walk_expr(e, arg);
		isl_ast_expr_free(arg);
		if (!args[i])
			return NULL;
	}
	return e->expr_op(e->user, isl_ast_expr_op_get_type(expr), n, args);
}

ein_value ein_walk_expr(const struct ein_emitter *e,
	__isl_keep isl_ast_expr *expr)
{
	ein_value v = NULL;
	isl_val *val;
	isl_id *id;

	switch (isl_ast_expr_get_type(expr)) {
	case isl_ast_expr_int:
		val = isl_ast_expr_int_get_val(expr);
		if (val && isl_val_is_int(val))
			v = e->expr_int(e->user, isl_val_get_num_si(val));
		isl_val_free(val);
		return v;
	case isl_ast_expr_id:
		id = isl_ast_expr_id_get_id(expr);
		v = id ? e->expr_id(e->user, id) : NULL;
		isl_id_free(id);
		return v;
	case isl_ast_expr_op:
		return walk_op(e, expr);
	default:
		return NULL;
	}
}

/* Lower "expr" (taken), as walkers of isl objects usually take them. */
static ein_value walk_taken(const struct ein_emitter *e,
	__isl_take isl_ast_expr *expr)
{
	ein_value v = expr ? ein_walk_expr(e, expr) : NULL;

	isl_ast_expr_free(expr);
	return v;
}

static const struct ein_loop_attr *mark_attr(__isl_keep isl_ast_node *node);

/* The body "body" of a loop: a mark of ours there is the loop's own (its
 * attributes, which the loop has read). */
static int walk_body(const struct ein_emitter *e, __isl_keep isl_ast_node *body)
{
	if (mark_attr(body))
		return ein_walk_mark_child(e, body);
	return ein_walk_node(e, body);
}

/* The condition "c" of a loop over "iter", and iter < "below" unless
 * "below" is NULL. */
static ein_value below_cond(const struct ein_emitter *e,
	__isl_keep isl_id *iter, ein_value c, ein_value below)
{
	ein_value arg[2];

	if (!c || !below)
		return c;
	arg[0] = e->expr_id(e->user, iter);
	arg[1] = below;
	arg[1] = arg[0] ? e->expr_op(e->user, isl_ast_expr_op_lt, 2, arg) :
		NULL;
	arg[0] = c;
	return arg[1] ? e->expr_op(e->user, isl_ast_expr_op_and, 2, arg) :
		NULL;
}

/* Emit loop "node" over "iter" from "init" with attributes "attr", and
 * condition "cond" and increment "inc" (both taken) in place of its own,
 * and while iter < "below" unless it is NULL. */
static int walk_loop(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter, ein_value init,
	const struct ein_loop_attr *attr, __isl_take isl_ast_expr *cond,
	__isl_take isl_ast_expr *inc, ein_value below)
{
	ein_value c, step;
	isl_ast_node *body;
	int ok;

	if (!init || e->for_open(e->user, iter, init, attr) < 0) {
		isl_ast_expr_free(cond);
		isl_ast_expr_free(inc);
		return -1;
	}
	c = below_cond(e, iter, walk_taken(e, cond), below);
	step = walk_taken(e, inc);
	if (!c || !step || e->for_test(e->user, c) < 0)
		return -1;
	body = isl_ast_node_for_get_body(node);
	ok = walk_body(e, body);
	isl_ast_node_free(body);
	return ok == 0 ? e->for_close(e->user, iter, step) : -1;
}

int ein_walk_loop(const struct ein_emitter *e, __isl_keep isl_ast_node *node,
	__isl_keep isl_id *iter, ein_value init,
	const struct ein_loop_attr *attr, __isl_take isl_ast_expr *cond,
	__isl_take isl_ast_expr *inc)
{
	return walk_loop(e, node, iter, init, attr, cond, inc, NULL);
}

int ein_walk_loop_below(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node, __isl_keep isl_id *iter, ein_value init,
	const struct ein_loop_attr *attr, __isl_take isl_ast_expr *cond,
	__isl_take isl_ast_expr *inc, ein_value below)
{
	return walk_loop(e, node, iter, init, attr, cond, inc, below);
}

/* A loop as isl wrote it: parallel_for for a parallel loop, if the
 * emitter has it, else a sequential loop. */
int ein_walk_for(const struct ein_emitter *e, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr)
{
	isl_ast_expr *it;
	isl_id *iter;
	int ok;

	if (attr && attr->parallel && e->parallel_for)
		return e->parallel_for(e->user, node, attr);
	it = isl_ast_node_for_get_iterator(node);
	iter = isl_ast_expr_get_id(it);
	isl_ast_expr_free(it);
	ok = iter ? ein_walk_loop(e, node, iter,
		walk_taken(e, isl_ast_node_for_get_init(node)), attr,
		isl_ast_node_for_get_cond(node),
		isl_ast_node_for_get_inc(node)) : -1;
	isl_id_free(iter);
	return ok;
}

/* A loop in the emitter's own form, if it has one (the CPU's vector
 * loops, vector_loop.h), else as isl wrote it. */
static int walk_for(const struct ein_emitter *e, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr)
{
	if (e->for_loop)
		return e->for_loop(e, node, attr);
	return ein_walk_for(e, node, attr);
}

static int walk_if(const struct ein_emitter *e, __isl_keep isl_ast_node *node)
{
	ein_value cond = walk_taken(e, isl_ast_node_if_get_cond(node));
	isl_ast_node *branch;
	int ok;

	if (!cond || e->if_open(e->user, cond) < 0)
		return -1;
	branch = isl_ast_node_if_get_then_node(node);
	ok = ein_walk_node(e, branch);
	isl_ast_node_free(branch);
	if (ok == 0 && isl_ast_node_if_has_else_node(node) == isl_bool_true) {
		branch = isl_ast_node_if_get_else_node(node);
		ok = e->if_else(e->user);
		if (ok == 0)
			ok = ein_walk_node(e, branch);
		isl_ast_node_free(branch);
	}
	return ok == 0 ? e->if_close(e->user) : -1;
}

static int walk_block(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node)
{
	isl_ast_node_list *list = isl_ast_node_block_get_children(node);
	int i, n = isl_ast_node_list_n_ast_node(list), ok = list ? 0 : -1;

	for (i = 0; ok == 0 && i < n; ++i) {
		isl_ast_node *child = isl_ast_node_list_get_ast_node(list, i);

		ok = ein_walk_node(e, child);
		isl_ast_node_free(child);
	}
	isl_ast_node_list_free(list);
	return ok;
}

/* The loop attributes of "node" if it is a mark of ours (see
 * schedule.h), NULL if not. */
static const struct ein_loop_attr *mark_attr(__isl_keep isl_ast_node *node)
{
	const struct ein_loop_attr *attr = NULL;

	if (node && isl_ast_node_get_type(node) == isl_ast_node_mark) {
		isl_id *id = isl_ast_node_mark_get_id(node);

		attr = ein_loop_attr_from_id(id);
		isl_id_free(id);
	}
	return attr;
}

/* The loop attributes the schedule gives the for node "node": a mark of
 * ours as its body, NULL if none. */
static const struct ein_loop_attr *loop_attr(__isl_keep isl_ast_node *node)
{
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	const struct ein_loop_attr *attr = mark_attr(body);

	isl_ast_node_free(body);
	return attr;
}

int ein_walk_mark_child(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node)
{
	isl_ast_node *child = isl_ast_node_mark_get_node(node);
	int ok = child ? ein_walk_node(e, child) : -1;

	isl_ast_node_free(child);
	return ok;
}

/* A mark that is no loop's body: one of ours belongs to a loop isl did
 * not generate (lone_mark), any other is walked through. */
static int walk_mark(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node)
{
	const struct ein_loop_attr *attr = mark_attr(node);

	if (attr && e->lone_mark)
		return e->lone_mark(e, node, attr);
	return ein_walk_mark_child(e, node);
}

static int walk_user(const struct ein_emitter *e,
	__isl_keep isl_ast_node *node)
{
	const struct ein_user_stmt *us = ein_ast_node_get_user_stmt(node);

	return us ? e->user_stmt(e->user, us) : -1;
}

int ein_walk_node(const struct ein_emitter *e, __isl_keep isl_ast_node *node)
{
	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		return walk_for(e, node, loop_attr(node));
	case isl_ast_node_if:
		return walk_if(e, node);
	case isl_ast_node_block:
		return walk_block(e, node);
	case isl_ast_node_mark:
		return walk_mark(e, node);
	case isl_ast_node_user:
		return walk_user(e, node);
	default:
		return -1;
	}
}
