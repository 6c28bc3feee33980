/*
 * llvm_par.c: parallel loops in LLVM IR.
 *
 * A parallel loop becomes a call to the runtime's ein_rt_parallel_for with
 * a trampoline and a closure.  The loop's body is outlined into a function
 * of its own taking every tensor as a noalias pointer (so that its inner
 * loops vectorise as the kernel's do), the sizes, the enclosing loops'
 * iterators, the loop's start and step, and the range [lo, hi) of
 * iteration numbers it runs.  The trampoline unpacks the closure (an array
 * of 8-byte slots in the kernel's frame) and calls it.
 */
#include <stdlib.h>
#include <string.h>
#include <isl/val.h>
#include <llvm-c/Core.h>
#include "diag.h"
#include "codegen/emit_llvm.h"
#include "codegen/llvm_private.h"
#include "codegen/loop_md.h"

/* The loop "node" as start, step and trip count: isl's for loops run
 * "for (it = init; it <= ub (or < ub); it += inc)". */
static int loop_range(struct llvm_emit *e, __isl_keep isl_ast_node *node,
	LLVMValueRef *init, LLVMValueRef *inc, LLVMValueRef *trip)
{
	isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
	isl_ast_expr *ub = isl_ast_expr_op_get_arg(cond, 1), *x;
	enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(cond);
	LLVMValueRef u, n, zero = LLVMConstInt(e->i64, 0, 0);

	x = isl_ast_node_for_get_init(node);
	*init = ein_walk_expr(e->em, x);
	isl_ast_expr_free(x);
	x = isl_ast_node_for_get_inc(node);
	*inc = ein_walk_expr(e->em, x);
	isl_ast_expr_free(x);
	u = ub ? ein_walk_expr(e->em, ub) : NULL;
	isl_ast_expr_free(ub);
	isl_ast_expr_free(cond);
	if (!*init || !*inc || !u || (op != isl_ast_expr_op_le &&
			op != isl_ast_expr_op_lt)) {
		ein_internal(e->ctx, "unexpected form of a parallel loop");
		return -1;
	}
	if (op == isl_ast_expr_op_lt)
		u = LLVMBuildSub(e->b, u, LLVMConstInt(e->i64, 1, 0), "");
	n = LLVMBuildSub(e->b, u, *init, "");
	n = LLVMBuildAdd(e->b, LLVMBuildSDiv(e->b, n, *inc, ""),
		LLVMConstInt(e->i64, 1, 0), "");
	*trip = LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, u, *init,
		""), zero, n, "trip");
	return 0;
}

/* The iterators the body of a parallel loop may use: every iterator with
 * a slot, which includes those of the enclosing loops (the others are
 * dead, and passing their values is harmless). */
static int enclosing_iters(struct llvm_emit *e, isl_id **iters)
{
	int i;

	for (i = 0; i < e->n_iter; ++i)
		iters[i] = e->iter_id[i];
	return e->n_iter;
}

/* The parameters of an outlined body: tensors, sizes, "n_cap" iterators,
 * start, step, lo, hi. */
static int n_body_param(struct llvm_emit *e, int n_cap)
{
	return e->n_tensor + e->scop->func->n_size + n_cap + 4;
}

static LLVMTypeRef body_type(struct llvm_emit *e, int n_cap)
{
	int i, n = n_body_param(e, n_cap), n_t = e->n_tensor;
	LLVMTypeRef params[n];

	for (i = 0; i < n; ++i)
		params[i] = i < n_t ? e->ptr : e->i64;
	return LLVMFunctionType(LLVMVoidTypeInContext(e->c), params, n, 0);
}

/* Emit "for (k = lo; k < hi; ++k) { iter = init + k * inc; body }" in the
 * outlined function "c". */
static int emit_chunk_loop(struct llvm_emit *c, __isl_keep isl_ast_node *node,
	isl_id *iter, LLVMValueRef *p, const struct ein_loop_attr *attr)
{
	LLVMValueRef kslot = LLVMBuildAlloca(c->b, c->i64, "k");
	LLVMValueRef slot = ein_llvm_iter_slot(c, iter, 1), k, v, step = p[1];
	isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
	isl_val *val = isl_ast_expr_get_type(inc) == isl_ast_expr_int ?
		isl_ast_expr_int_get_val(inc) : NULL;

	/* A constant step (isl's loops almost always step by 1) keeps the
	 * iterator a simple recurrence for LLVM's loop optimisations. */
	if (val && isl_val_is_int(val))
		step = LLVMConstInt(c->i64, isl_val_get_num_si(val), 1);
	isl_val_free(val);
	isl_ast_expr_free(inc);
	LLVMBasicBlockRef header = ein_llvm_new_block(c, "chunk"), body, exit;
	isl_ast_node *inner;
	int ok;

	if (!slot)
		return -1;
	LLVMBuildStore(c->b, p[2], kslot);
	LLVMBuildBr(c->b, header);
	LLVMPositionBuilderAtEnd(c->b, header);
	body = ein_llvm_new_block(c, "chunk.body");
	exit = ein_llvm_new_block(c, "chunk.exit");
	k = LLVMBuildLoad2(c->b, c->i64, kslot, "");
	LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, k, p[3], ""),
		body, exit);
	LLVMPositionBuilderAtEnd(c->b, body);
	v = LLVMBuildAdd(c->b, p[0], LLVMBuildMul(c->b, k, step, ""), "");
	LLVMBuildStore(c->b, v, slot);
	inner = isl_ast_node_for_get_body(node);
	ok = ein_walk_node(c->em, inner);
	isl_ast_node_free(inner);
	if (ok < 0)
		return -1;
	k = LLVMBuildLoad2(c->b, c->i64, kslot, "");
	LLVMBuildStore(c->b, LLVMBuildAdd(c->b, k, LLVMConstInt(c->i64, 1, 0),
		""), kslot);
	ein_loop_md_attach(c->c, LLVMBuildBr(c->b, header), attr, 0);
	LLVMPositionBuilderAtEnd(c->b, exit);
	ein_llvm_emit_stream_fence(c);
	ein_llvm_emit_buffer_free(c);
	LLVMBuildRetVoid(c->b);
	return 0;
}

/* Bind the parameters of outlined body "c->fn" and emit it.  The
 * buffers the caller has not allocated ("outer" has no pointer for them)
 * are the body's own. */
static int emit_body(struct llvm_emit *c, __isl_keep isl_ast_node *node,
	const LLVMValueRef *outer, int n_cap, isl_id **cap,
	const struct ein_loop_attr *attr)
{
	const struct ein_func *func = c->scop->func;
	int i, k = 0;

	for (i = 0; i < c->n_tensor; ++i, ++k)
		c->tensor[i] = outer[i] ? LLVMGetParam(c->fn, k) : NULL;
	for (i = 0; i < func->n_size; ++i)
		c->size[i] = ein_llvm_size_value(c, i,
			LLVMGetParam(c->fn, k++));
	if (ein_llvm_emit_extents(c) < 0)
		return -1;
	for (i = 0; i < n_cap; ++i) {
		LLVMValueRef slot = ein_llvm_iter_slot(c, cap[i], 1);

		if (!slot)
			return -1;
		LLVMBuildStore(c->b, LLVMGetParam(c->fn, k++), slot);
	}
	{
		LLVMValueRef p[4];
		isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
		isl_id *iter = isl_ast_expr_get_id(it);
		int ok;

		for (i = 0; i < 4; ++i)
			p[i] = LLVMGetParam(c->fn, k++);
		isl_ast_expr_free(it);
		ok = emit_chunk_loop(c, node, iter, p, attr);
		isl_id_free(iter);
		return ok;
	}
}

/* Outline the body of parallel loop "node" into a new function, which
 * gets the tensors "pass" (see body_tensors). */
static LLVMValueRef outline(struct llvm_emit *e, __isl_keep isl_ast_node *node,
	const LLVMValueRef *pass, int n_cap, isl_id **cap,
	const struct ein_loop_attr *attr)
{
	struct llvm_emit c = *e;
	struct ein_emitter cem = *e->em;
	char name[strlen(e->name) + 32];
	int i, ok;

	snprintf(name, sizeof(name), "%s__par%d", e->name, (*e->n_par)++);
	cem.user = &c;
	c.em = &cem;
	c.fn = LLVMAddFunction(e->m, name, body_type(e, n_cap));
	LLVMSetLinkage(c.fn, LLVMInternalLinkage);
	for (i = 0; i < e->n_tensor; ++i) {
		ein_llvm_add_attr(&c, c.fn, i + 1, "noalias");
		ein_llvm_add_attr(&c, c.fn, i + 1, "nocapture");
	}
	ein_llvm_add_attr(&c, c.fn, LLVMAttributeFunctionIndex, "nounwind");
	c.entry = LLVMAppendBasicBlockInContext(e->c, c.fn, "entry");
	c.b = LLVMCreateBuilderInContext(e->c);
	LLVMPositionBuilderAtEnd(c.b, c.entry);
	c.tensor = calloc(e->n_tensor + 1, sizeof(LLVMValueRef));
	c.own = calloc(e->n_tensor + 1, 1);
	c.size = calloc(e->scop->func->n_size + 1, sizeof(LLVMValueRef));
	c.extent = NULL;
	c.n_iter = 0;
	c.iter_id = NULL;
	c.iter_slot = NULL;
	c.n_frame = 0;
	c.max_frame = 0;
	c.frame = NULL;
	ok = c.tensor && c.own && c.size ?
		emit_body(&c, node, pass, n_cap, cap, attr) : -1;
	ein_llvm_emit_clear(&c);
	return ok < 0 ? NULL : c.fn;
}

/* The trampoline "void NAME_tramp(void *closure, i64 lo, i64 hi)" that
 * calls "body" with the closure's slots. */
static LLVMValueRef trampoline(struct llvm_emit *e, LLVMValueRef body,
	int n_cap)
{
	int i, n = n_body_param(e, n_cap), n_t = e->n_tensor;
	LLVMTypeRef params[3] = { e->ptr, e->i64, e->i64 };
	LLVMValueRef fn, args[n];
	LLVMBuilderRef b = LLVMCreateBuilderInContext(e->c);
	size_t len;
	const char *body_name = LLVMGetValueName2(body, &len);
	char name[len + 8];

	snprintf(name, sizeof(name), "%s_tramp", body_name);
	fn = LLVMAddFunction(e->m, name, LLVMFunctionType(
		LLVMVoidTypeInContext(e->c), params, 3, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(e->c, fn,
		"entry"));
	for (i = 0; i < n - 2; ++i) {
		LLVMValueRef idx = LLVMConstInt(e->i64, i, 0);
		LLVMValueRef addr = LLVMBuildInBoundsGEP2(b, e->i64,
			LLVMGetParam(fn, 0), &idx, 1, "");

		args[i] = LLVMBuildLoad2(b, i < n_t ? e->ptr : e->i64, addr,
			"");
	}
	args[n - 2] = LLVMGetParam(fn, 1);
	args[n - 1] = LLVMGetParam(fn, 2);
	LLVMBuildCall2(b, LLVMGlobalGetValueType(body), body, args, n, "");
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return fn;
}

/* Store the closure of a parallel loop: tensors "pass" (a null pointer
 * for a buffer the body allocates), sizes, the captured iterators, start
 * and step. */
static LLVMValueRef build_closure(struct llvm_emit *e,
	const LLVMValueRef *pass, int n_cap, isl_id **cap, LLVMValueRef init,
	LLVMValueRef inc)
{
	const struct ein_func *func = e->scop->func;
	int i, k = 0, n = n_body_param(e, n_cap) - 2, n_t = e->n_tensor;
	LLVMBuilderRef ab = LLVMCreateBuilderInContext(e->c);
	LLVMValueRef closure, v;

	LLVMPositionBuilder(ab, e->entry, LLVMGetFirstInstruction(e->entry));
	closure = LLVMBuildArrayAlloca(ab, e->i64, LLVMConstInt(e->i64, n, 0),
		"closure");
	LLVMDisposeBuilder(ab);
	for (i = 0; i < n; ++i) {
		LLVMValueRef idx = LLVMConstInt(e->i64, i, 0);

		if (i < n_t)
			v = pass[i] ? pass[i] : LLVMConstNull(e->ptr);
		else if (i < n_t + func->n_size)
			v = e->size[i - n_t];
		else if (i < n_t + func->n_size + n_cap)
			v = LLVMBuildLoad2(e->b, e->i64, ein_llvm_iter_slot(e,
				cap[k++], 0), "");
		else
			v = i == n - 2 ? init : inc;
		LLVMBuildStore(e->b, v, LLVMBuildInBoundsGEP2(e->b, e->i64,
			closure, &idx, 1, ""));
	}
	return closure;
}

/* The buffers the statements under a node access (used), and those its
 * copies access (copied). */
struct buffer_use {
	unsigned char *used;
	unsigned char *copied;
};

static isl_bool note_use(__isl_keep isl_ast_node *node, void *user)
{
	struct buffer_use *u = user;
	const struct ein_user_stmt *us;
	int k;

	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	us = ein_ast_node_get_user_stmt(node);
	for (k = 0; us && k < us->stmt->n_access; ++k) {
		int t = ein_scop_access_get_target(&us->stmt->access[k]);

		u->used[t] = 1;
		if (us->stmt->kind != EIN_STMT_COMPUTE)
			u->copied[t] = 1;
	}
	return isl_bool_true;
}

/* Does each call of the body of parallel loop "attr" have its own of
 * buffer "t", the storage of a contracted temporary (scop.h)?  (A copy
 * may read or write it, as it does the temporary, but never fills it.) */
static int own_storage(struct llvm_emit *e, int t,
	const struct ein_loop_attr *attr)
{
	return attr->level < ein_scop_get_buffer(e->scop, t)->storage;
}

/* The tensors to pass to the outlined body of parallel loop "node" (in
 * pass[]): the definition's, and the buffers the body uses whose copies
 * are outside it: they belong to an enclosing loop's iterations, and the
 * threads share them (each uses its own part), so they are allocated
 * here if they are not yet.  A buffer whose copies are in the body
 * belongs to an iteration of the parallel loop or of a loop inside: each
 * call of the body allocates its own (a null pointer is passed), as it
 * does for the storage of a contracted temporary held per iteration of
 * this loop or of one outside it (scop.h); unless the loop is the copy's
 * own, whose threads share the buffer of the enclosing iteration. */
static int body_tensors(struct llvm_emit *e, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr, LLVMValueRef *pass)
{
	unsigned char used[e->n_tensor + 1], copied[e->n_tensor + 1];
	struct buffer_use u = { used, copied };
	int t, n = e->scop->func->n_tensor;

	memset(used, 0, sizeof(used));
	memset(copied, 0, sizeof(copied));
	if (isl_ast_node_foreach_descendant_top_down(node, &note_use, &u) < 0)
		return -1;
	for (t = 0; t < e->n_tensor; ++t) {
		int storage = t >= n && ein_scop_get_buffer(e->scop,
			t)->storage > 0;

		pass[t] = e->tensor[t];
		if (t >= n && (!used[t] || (storage ?
				own_storage(e, t, attr) :
				copied[t] && !attr->copy)))
			pass[t] = NULL;
		else if (t >= n && !(pass[t] = ein_llvm_tensor_base(e, t)))
			return -1;
	}
	return 0;
}

int ein_llvm_parallel_for(void *user, __isl_keep isl_ast_node *node,
	const struct ein_loop_attr *attr)
{
	struct llvm_emit *e = user;
	isl_id *cap[e->n_iter + 1];
	int n_cap = enclosing_iters(e, cap);
	LLVMValueRef init, inc, trip, body, args[4], rt, pass[e->n_tensor + 1];
	LLVMTypeRef params[4] = { e->ptr, e->ptr, e->i64, e->i64 };
	LLVMTypeRef rt_type = LLVMFunctionType(LLVMVoidTypeInContext(e->c),
		params, 4, 0);

	if (body_tensors(e, node, attr, pass) < 0 ||
	    loop_range(e, node, &init, &inc, &trip) < 0)
		return -1;
	body = outline(e, node, pass, n_cap, cap, attr);
	if (!body)
		return -1;
	rt = LLVMGetNamedFunction(e->m, EIN_RT_PARALLEL_FOR);
	if (!rt)
		rt = LLVMAddFunction(e->m, EIN_RT_PARALLEL_FOR, rt_type);
	args[0] = trampoline(e, body, n_cap);
	args[1] = build_closure(e, pass, n_cap, cap, init, inc);
	args[2] = LLVMConstInt(e->i64, 0, 0);
	args[3] = trip;
	LLVMBuildCall2(e->b, rt_type, rt, args, 4, "");
	return 0;
}
