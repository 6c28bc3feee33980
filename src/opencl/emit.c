/*
 * emit.c: the OpenCL C layer over the shared C printer (emit.h).
 *
 * The AST's outermost sequence is the host's code: one kernel launch per
 * child, in order (a launch finishes before the next starts on an
 * in-order queue).  Inside a kernel, the printer prints loops and
 * statements as it does for C; this file adds the prelude (OpenCL's
 * names for C's integer types), the kernels' signatures and the map of
 * GPU-mapped loops to work-group and work-item indices.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/val.h>
#include "diag.h"
#include "codegen/ast_build.h"
#include "codegen/emit_c.h"
#include "opencl/emit.h"

/* One kernel being planned.
 * launch: its launch (in the plan);
 * serial: run it in one work-item (its shape is not gpu_map.h's);
 * n_map: the mapped loops found;
 * scop, used: the scop, and per tensor whether the kernel accesses it
 *	(for the buffers it declares). */
struct kernel_scan {
	struct ein_ocl_launch *launch;
	int serial;
	int n_map;
	struct ein_scop *scop;
	char *used;
};

/* Where a node of a kernel is: inside a block loop (blocks), a thread
 * loop (threads), a loop of a cooperative copy (copy); inside an
 * unmapped loop that no mapped loop may be in (loop: outside the blocks
 * or inside the threads), or one that only thread loops may be in (seq:
 * between the blocks and the threads); a for node's body (in_for). */
struct where {
	int blocks;
	int threads;
	int copy;
	int loop;
	int seq;
	int in_for;
};

/* The loop attributes the schedule gives the for node "node" (walk.c
 * reads them the same way), NULL if none. */
static const struct ein_loop_attr *for_attr(__isl_keep isl_ast_node *node)
{
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	const struct ein_loop_attr *attr = NULL;
	isl_id *id;

	if (body && isl_ast_node_get_type(body) == isl_ast_node_mark) {
		id = isl_ast_node_mark_get_id(body);
		attr = ein_loop_attr_from_id(id);
		isl_id_free(id);
	}
	isl_ast_node_free(body);
	return attr;
}

static int is_mapped(const struct ein_loop_attr *a)
{
	return a && (a->gpu_block || a->gpu_thread);
}

/* Record the mapped loop "node" with attributes "a" in the launch. */
static void record(struct kernel_scan *k, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *a)
{
	struct ein_ocl_launch *l = k->launch;
	int d = a->gpu_block ? a->gpu_block - 1 : a->gpu_thread - 1;

	k->n_map++;
	if (a->gpu_thread) {
		if (d + 1 > l->n_thread)
			l->n_thread = d + 1;
		l->local[d] = a->gpu_size;
		return;
	}
	if (d + 1 > l->n_block)
		l->n_block = d + 1;
	if (l->init[d])
		return;
	l->init[d] = isl_ast_node_for_get_init(node);
	l->cond[d] = isl_ast_node_for_get_cond(node);
	l->inc[d] = isl_ast_node_for_get_inc(node);
}

/* Is the shape of loop "a" at "w" gpu_map.h's?  A block loop is
 * outermost; a thread loop inside the blocks, in no unmapped loop but
 * those between; a cooperative copy's loop inside the blocks and
 * outside the threads. */
static int loop_in_place(const struct ein_loop_attr *a, const struct where *w)
{
	if (a && a->gpu_copy)
		return w->blocks && !w->threads && !w->loop;
	if (a && a->gpu_block)
		return !w->loop && !w->seq && !w->threads && !w->copy;
	if (a && a->gpu_thread)
		return !w->loop && !w->copy;
	return 1;
}

/* Where the body of for node "a" at "w" is. */
static struct where inside_for(const struct ein_loop_attr *a,
	struct where w)
{
	if (a && a->gpu_copy)
		w.copy = 1;
	else if (a && a->gpu_block)
		w.blocks = 1;
	else if (a && a->gpu_thread)
		w.threads = 1;
	else if (!w.copy && (!w.blocks || w.threads))
		w.loop = 1;
	else if (!w.copy)
		w.seq = 1;
	w.in_for = 1;
	return w;
}

/* Record the tensors statement "node" accesses; a statement outside the
 * mapped loops (but a copy's, in its cooperative loops) makes the kernel
 * serial. */
static void scan_stmt(struct kernel_scan *k, __isl_keep isl_ast_node *node,
	const struct where *w)
{
	const struct ein_user_stmt *us = ein_ast_node_get_user_stmt(node);
	int i;

	for (i = 0; us && i < us->stmt->n_access; ++i)
		k->used[ein_scop_access_get_target(&us->stmt->access[i])] = 1;
	if (k->launch->n_block && !w->blocks)
		k->serial = 1;
	if (k->launch->n_thread && !w->threads && !w->copy)
		k->serial = 1;
}

/* Scan "node" of a kernel at "w".  A node not where gpu_map.h's shape
 * puts it makes the kernel serial.  A mark of a loop that isl did not
 * generate (it runs once) stands for the loop (the printer guards it). */
static void scan(struct kernel_scan *k, __isl_keep isl_ast_node *node,
	struct where w)
{
	const struct ein_loop_attr *a;
	isl_ast_node_list *list;
	isl_ast_node *child;
	isl_id *id;
	int i;

	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		a = for_attr(node);
		if (!loop_in_place(a, &w))
			k->serial = 1;
		if (is_mapped(a))
			record(k, node, a);
		child = isl_ast_node_for_get_body(node);
		scan(k, child, inside_for(a, w));
		isl_ast_node_free(child);
		return;
	case isl_ast_node_mark:
		id = isl_ast_node_mark_get_id(node);
		a = ein_loop_attr_from_id(id);
		isl_id_free(id);
		if (!w.in_for && !loop_in_place(a, &w))
			k->serial = 1;
		if (!w.in_for && a)
			w = inside_for(a, w);
		child = isl_ast_node_mark_get_node(node);
		w.in_for = 0;
		scan(k, child, w);
		isl_ast_node_free(child);
		return;
	case isl_ast_node_if:
		w.in_for = 0;
		child = isl_ast_node_if_get_then_node(node);
		scan(k, child, w);
		isl_ast_node_free(child);
		if (isl_ast_node_if_has_else_node(node) == isl_bool_true) {
			child = isl_ast_node_if_get_else_node(node);
			scan(k, child, w);
			isl_ast_node_free(child);
		}
		return;
	case isl_ast_node_block:
		w.in_for = 0;
		list = isl_ast_node_block_get_children(node);
		for (i = 0; i < isl_ast_node_list_n_ast_node(list); ++i) {
			child = isl_ast_node_list_get_ast_node(list, i);
			scan(k, child, w);
			isl_ast_node_free(child);
		}
		isl_ast_node_list_free(list);
		return;
	case isl_ast_node_user:
		scan_stmt(k, node, &w);
		return;
	default:
		return;
	}
}

/* Clear what a launch holds but its name. */
static void launch_clear_map(struct ein_ocl_launch *l)
{
	int d;

	for (d = 0; d < EIN_GPU_MAX_DIM; ++d) {
		l->init[d] = isl_ast_expr_free(l->init[d]);
		l->cond[d] = isl_ast_expr_free(l->cond[d]);
		l->inc[d] = isl_ast_expr_free(l->inc[d]);
		l->local[d] = 0;
	}
	l->n_block = l->n_thread = 0;
}

/* Scan kernel "node" into launch "l": twice, as the statements' check
 * needs the dimensions of all mapped loops; a serial kernel maps
 * nothing.  A dimension whose loops isl never generated (each runs once)
 * has one work-group (no init, cond and inc), or one work-item. */
static int plan_kernel(struct ein_ocl_launch *l, struct ein_scop *scop,
	char *used, __isl_keep isl_ast_node *node)
{
	struct kernel_scan k = { l, 0, 0, scop, used };
	struct where w = { 0 };
	int d;

	scan(&k, node, w);
	scan(&k, node, w);
	for (d = 0; d < l->n_thread; ++d)
		if (l->local[d] < 1)
			l->local[d] = 1;
	if (k.serial)
		launch_clear_map(l);
	return 0;
}

/* The map of the printer: a kernel's mapped loops, unless it is serial
 * (its launch maps nothing). */
static int map_loop(void *user, const struct ein_loop_attr *attr,
	const char **offset, const char **stride)
{
	static const char *const group[] = { "(int64_t) get_group_id(0)",
		"(int64_t) get_group_id(1)", "(int64_t) get_group_id(2)" };
	static const char *const groups[] = {
		"(int64_t) get_num_groups(0)", "(int64_t) get_num_groups(1)",
		"(int64_t) get_num_groups(2)" };
	static const char *const item[] = { "(int64_t) get_local_id(0)",
		"(int64_t) get_local_id(1)", "(int64_t) get_local_id(2)" };
	static const char *const items[] = {
		"(int64_t) get_local_size(0)", "(int64_t) get_local_size(1)",
		"(int64_t) get_local_size(2)" };
	const struct ein_ocl_launch *l = user;

	if (attr->gpu_block && attr->gpu_block <= l->n_block) {
		*offset = group[attr->gpu_block - 1];
		*stride = groups[attr->gpu_block - 1];
		return 1;
	}
	if (attr->gpu_thread && attr->gpu_thread <= l->n_thread) {
		*offset = item[attr->gpu_thread - 1];
		*stride = items[attr->gpu_thread - 1];
		return 1;
	}
	if (attr->gpu_copy) {
		*offset = item[attr->gpu_copy - 1];
		*stride = items[attr->gpu_copy - 1];
		return 1;
	}
	return 0;
}

/* The printer's guard: the work-item (work-group) of index 0 runs the
 * one iteration of a mapped loop that isl did not generate.  A grid
 * dimension with no block loop has one work-group: no guard (PoCL 3.1
 * corrupts memory with barriers under a condition on the group). */
static const char *guard(void *user, const struct ein_loop_attr *attr)
{
	static const char *const group[] = { "get_group_id(0) == 0",
		"get_group_id(1) == 0", "get_group_id(2) == 0" };
	static const char *const item[] = { "get_local_id(0) == 0",
		"get_local_id(1) == 0", "get_local_id(2) == 0" };
	const struct ein_ocl_launch *l = user;

	if (attr->gpu_block && !l->init[attr->gpu_block - 1])
		return NULL;
	if (attr->gpu_block)
		return group[attr->gpu_block - 1];
	if (attr->gpu_thread)
		return item[attr->gpu_thread - 1];
	if (attr->gpu_copy)
		return item[attr->gpu_copy - 1];
	return NULL;
}

/* Does "node" hold a loop mapped to work-items? */
static isl_bool has_thread_loop(__isl_keep isl_ast_node *node, void *user)
{
	const struct ein_loop_attr *a;
	int *found = user;

	if (*found || isl_ast_node_get_type(node) != isl_ast_node_for)
		return *found ? isl_bool_false : isl_bool_true;
	a = for_attr(node);
	*found = a && a->gpu_thread;
	return *found ? isl_bool_false : isl_bool_true;
}

/* The printer's fenced: does each iteration of the loop "node" end with a
 * barrier?  Those of an unmapped loop around the threads' loops do (all
 * the work-items of the group run it, gpu_map.h), so that the next
 * iteration's work-items see what this one's wrote, wherever a
 * dependence the loop carries leads. */
static int fenced(void *user, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr)
{
	const struct ein_ocl_launch *l = user;
	int found = 0;

	if (!l->n_thread || is_mapped(attr) || (attr && attr->gpu_copy))
		return 0;
	if (isl_ast_node_foreach_descendant_top_down(node, &has_thread_loop,
			&found) < 0)
		return 0;
	return found;
}

/* The prelude of the program: C's integer types and limits by OpenCL's
 * names, double precision where the device has it, then the printer's
 * helpers. */
static void print_prelude(FILE *out)
{
	fprintf(out, "/* Generated by ein %s (OpenCL C). */\n"
		"#ifdef cl_khr_fp64\n"
		"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
		"#endif\n"
		"typedef long int64_t;\ntypedef ulong uint64_t;\n"
		"typedef int int32_t;\ntypedef uint uint32_t;\n"
		"typedef char int8_t;\ntypedef uchar uint8_t;\n"
		"#define INT32_MIN INT_MIN\n#define INT32_MAX INT_MAX\n"
		"#define INT8_MIN CHAR_MIN\n#define INT8_MAX CHAR_MAX\n"
		"#define UINT8_MAX UCHAR_MAX\n\n", ein_version());
	ein_emit_c_helpers(out);
}

/* Print the signature of kernel "l": the plan's tensors, then the
 * sizes.  The buffers are not declared restrict, although they never
 * overlap: with restrict, PoCL 3.1 gave wrong results for a convolution
 * whose accumulator tile is loaded from, and stored to, its output in a
 * work-group of one work-item (issue 20, EIN_SCHED_SEED=16 trial 18;
 * correct without restrict, with -cl-opt-disable or with more
 * work-items), and dropping it did not change the speed of the
 * hand-written matmul on PoCL (512^3: 21.7-23.7 ms with, 20.5-23.5
 * without). */
static void print_signature(FILE *out, const struct ein_ocl_plan *plan,
	struct ein_scop *scop, const struct ein_ocl_launch *l)
{
	const struct ein_func *func = scop->func;
	int i;

	fprintf(out, "__kernel void %s(", l->name);
	for (i = 0; i < plan->n_arg; ++i) {
		int t = plan->arg[i];
		int input = t < func->n_tensor &&
			func->tensor[t].role == EIN_ROLE_INPUT;

		fprintf(out, "%s__global %s%s *%s", i ? ", " : "",
			input ? "const " : "",
			ein_c_memory_type(ein_scop_tensor_type(scop, t)),
			ein_scop_tensor_name(scop, t));
	}
	for (i = 0; i < func->n_size; ++i)
		fprintf(out, "%slong %s", plan->n_arg + i ? ", " : "",
			func->size[i]);
	fprintf(out, "%s)\n{\n", plan->n_arg + func->n_size ? "" : "void");
}

/* The barrier between the work-items of a group, for the printer. */
#define FENCE "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"

/* Is buffer "t" in the work-group's __local memory: written only by
 * copies in (OpenCL's "local")?  An accumulator, which the statement
 * writes, is the work-item's (private). */
static int is_shared(struct ein_scop *scop, int t)
{
	int i, k;

	for (i = 0; i < scop->n_stmt; ++i)
		for (k = 0; k < scop->stmt[i].n_access; ++k)
			if (scop->stmt[i].access[k].is_write &&
			    ein_scop_access_get_target(
					&scop->stmt[i].access[k]) == t &&
			    scop->stmt[i].kind != EIN_STMT_COPY_IN)
				return 0;
	return 1;
}

/* Declare the buffers (sched/pack.h) that the kernel uses ("used"), of
 * their constant sizes (sched/apply.c checks they have one): a copy of
 * a tile in __local memory, or an accumulator in private memory. */
static int print_buffers(ein_ctx *ctx, FILE *out, struct ein_scop *scop,
	const char *used)
{
	int t;

	for (t = scop->func->n_tensor; t < ein_scop_n_tensor(scop); ++t) {
		const struct ein_scop_buffer *b = ein_scop_get_buffer(scop, t);

		if (!b || !used[t])
			continue;
		if (b->n_fixed <= 0) {
			ein_internal(ctx, "buffer %s has no constant size",
				b->name);
			return -1;
		}
		fprintf(out, "\t%s%s %s[%ld];\n", is_shared(scop, t) ?
			"__local " : "", ein_c_memory_type(
			ein_scop_tensor_type(scop, t)), b->name, b->n_fixed);
	}
	return 0;
}

/* Print kernel "l" over "node", which accesses the tensors "used". */
static int print_kernel(ein_ctx *ctx, FILE *out, struct ein_ocl_plan *plan,
	struct ein_scop *scop, struct ein_ocl_launch *l, const char *used,
	__isl_keep isl_ast_node *node)
{
	struct ein_c_loop_map map = { l, &map_loop, FENCE, &fenced, &guard,
		NULL };
	struct ein_c_printer *p;
	char zero[128];
	int ok;

	if (scop->func->n_size > 0 && snprintf(zero, sizeof(zero),
			"(int64_t) (%s < 0)", scop->func->size[0]) <
			(int) sizeof(zero))
		map.opaque_zero = zero;

	print_signature(out, plan, scop, l);
	p = ein_c_printer_alloc(ctx, out, scop, EIN_C_LANG_OPENCL, &map);
	if (!p)
		return -1;
	ein_c_printer_set_depth(p, 1);
	ok = ein_c_printer_extents(p);
	if (ok == 0)
		ok = print_buffers(ctx, out, scop, used);
	if (ok == 0)
		ok = ein_c_printer_node(p, node);
	ein_c_printer_free(p);
	fprintf(out, "}\n\n");
	return ok;
}

/* The children of the outermost sequence of "tree" (or the tree). */
static __isl_give isl_ast_node_list *top_level(__isl_keep isl_ast_node *tree)
{
	if (isl_ast_node_get_type(tree) == isl_ast_node_block)
		return isl_ast_node_block_get_children(tree);
	return isl_ast_node_list_from_ast_node(isl_ast_node_copy(tree));
}

/* Plan and print every kernel of "list". */
static int print_kernels(ein_ctx *ctx, FILE *out, struct ein_ocl_plan *plan,
	struct ein_scop *scop, __isl_keep isl_ast_node_list *list,
	const char *name)
{
	int i, n = isl_ast_node_list_n_ast_node(list), ok = 0;
	int n_tensor = ein_scop_n_tensor(scop);
	char *used = malloc(n_tensor + 1);

	plan->kernel = calloc(n + 1, sizeof(*plan->kernel));
	if (!plan->kernel || !used) {
		free(used);
		return -1;
	}
	for (i = 0; ok == 0 && i < n; ++i) {
		isl_ast_node *node = isl_ast_node_list_get_ast_node(list, i);
		struct ein_ocl_launch *l = &plan->kernel[plan->n_kernel++];

		memset(used, 0, n_tensor + 1);
		ok = asprintf(&l->name, "%s__k%d", name, i) < 0 ? -1 : 0;
		if (ok < 0)
			l->name = NULL;
		if (ok == 0)
			ok = plan_kernel(l, scop, used, node);
		if (ok == 0)
			ok = print_kernel(ctx, out, plan, scop, l, used, node);
		isl_ast_node_free(node);
	}
	free(used);
	return ok;
}

/* Is scop tensor "t" an argument of the kernels: an input, an output or
 * an accessed temporary?  The buffers of "local" and "accumulate" are the
 * kernels' own (print_buffers). */
static int is_arg(struct ein_scop *scop, int t)
{
	const struct ein_func *func = scop->func;

	if (t < func->n_tensor && func->tensor[t].role != EIN_ROLE_TEMP)
		return 1;
	if (ein_scop_get_buffer(scop, t))
		return 0;
	return ein_scop_tensor_is_accessed(scop, t);
}

/* The kernels' tensors, and the extents of the temporaries among them. */
static int plan_args(struct ein_ocl_plan *plan, struct ein_scop *scop)
{
	int t, d, n = ein_scop_n_tensor(scop);

	plan->arg = calloc(n + 1, sizeof(*plan->arg));
	plan->n_dim = calloc(n + 1, sizeof(*plan->n_dim));
	plan->extent = calloc(n + 1, sizeof(*plan->extent));
	if (!plan->arg || !plan->n_dim || !plan->extent)
		return -1;
	for (t = 0; t < n; ++t) {
		if (!is_arg(scop, t))
			continue;
		plan->arg[plan->n_arg++] = t;
		if (t < scop->func->n_tensor &&
		    scop->func->tensor[t].role != EIN_ROLE_TEMP)
			continue;
		plan->n_dim[t] = ein_scop_tensor_n_dim(scop, t);
		plan->extent[t] = calloc(plan->n_dim[t] + 1,
			sizeof(isl_ast_expr *));
		if (!plan->extent[t])
			return -1;
		for (d = 0; d < plan->n_dim[t]; ++d)
			if (!(plan->extent[t][d] = ein_ast_build_extent(scop,
					ein_scop_tensor_extent(scop, t, d))))
				return -1;
	}
	return 0;
}

struct ein_ocl_plan *ein_ocl_plan_emit(ein_ctx *ctx, struct ein_scop *scop,
	__isl_keep isl_ast_node *tree, const char *name)
{
	struct ein_ocl_plan *plan = calloc(1, sizeof(*plan));
	isl_ast_node_list *list = NULL;
	size_t len = 0;
	FILE *out = NULL;
	int ok = -1;

	if (plan && ein_c_check_names(ctx, scop) == 0 &&
	    plan_args(plan, scop) == 0)
		out = open_memstream(&plan->source, &len);
	if (out) {
		print_prelude(out);
		list = top_level(tree);
		ok = list ? print_kernels(ctx, out, plan, scop, list, name) :
			-1;
		if (ferror(out) | fclose(out))
			ok = -1;
	}
	isl_ast_node_list_free(list);
	if (ok < 0) {
		if (ein_diag_n_error(ctx) == 0)
			ein_internal(ctx, "OpenCL code generation failed");
		ein_ocl_plan_free(plan);
		return NULL;
	}
	return plan;
}

void ein_ocl_plan_free(struct ein_ocl_plan *plan)
{
	int i, d;

	if (!plan)
		return;
	for (i = 0; i < plan->n_kernel; ++i) {
		launch_clear_map(&plan->kernel[i]);
		free(plan->kernel[i].name);
	}
	for (i = 0; plan->extent && i <= plan->n_arg; ++i) {
		int t = i < plan->n_arg ? plan->arg[i] : -1;

		for (d = 0; t >= 0 && plan->extent[t] && d < plan->n_dim[t];
		     ++d)
			isl_ast_expr_free(plan->extent[t][d]);
		if (t >= 0)
			free(plan->extent[t]);
	}
	free(plan->extent);
	free(plan->n_dim);
	free(plan->arg);
	free(plan->kernel);
	free(plan->source);
	free(plan);
}
