/*
 * emit_llvm.c: the LLVM backend of the AST walker.
 *
 * Loop iterators live in allocas of the entry block, which LLVM's SROA
 * turns into SSA values; index arithmetic is in i64; tensors are row-major
 * arrays behind noalias pointers, so that LLVM may vectorise the innermost
 * loop.  Statement bodies (the source expressions) are lowered here, each
 * node in the type the type checker gave it (frontend/type.c): floats as
 * IEEE operations, integers in int32 with wrap-around, bool as i1 in
 * registers and a byte in memory.
 *
 * The local buffers of pack and accumulate (tensors of the scop after the
 * definition's) belong to the function that runs their copies: the
 * kernel, or the outlined body of a parallel loop, whose threads then each
 * have their own (a parallel loop inside the buffer's loop shares its
 * caller's: see body_tensors).  A buffer is allocated in that function's
 * entry block, once per call: on the stack when its size is a small
 * constant, which lets SROA keep an accumulated tile in registers, else
 * on the heap, freed at the function's exit.
 *
 * In the body of a vectorised loop that walk.c runs as explicit vectors,
 * statements are lowered on vectors of its width: an access that moves
 * along the loop to the next element is one vector load or store at the
 * address of lane 0, an access that stays on one element is a scalar
 * load broadcast to every lane, and every operation applies lane-wise
 * (see vector_stmt for what qualifies).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <isl/set.h>
#include <isl/val.h>
#include <llvm-c/Core.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include "ctx.h"
#include "diag.h"
#include "codegen/walk.h"
#include "codegen/loop_md.h"
#include "codegen/emit_llvm.h"
#include "codegen/mathfn.h"
#include "frontend/type.h"

/* The largest buffer kept on the stack, in bytes. */
#define EIN_STACK_BUFFER_MAX 32768
/* The alignment of buffers, in bytes: a cache line, and a multiple of
 * every vector width. */
#define EIN_BUFFER_ALIGN 64

/* A loop or condition being emitted: the blocks its end jumps to, and for
 * a loop its iterator and attributes, and the number of explicit vector
 * loops emitted before it: a loop around several (a register tile the
 * schedule unrolled) is kept from LLVM's unroller (loop_md.h). */
struct block_frame {
	LLVMBasicBlockRef header;
	LLVMBasicBlockRef exit;
	LLVMBasicBlockRef other;
	isl_id *iter;
	const struct ein_loop_attr *attr;
	int n_explicit;
};

/* The state of one emission.
 * ctx, scop: what is compiled; c, m, b: LLVM context, module, builder;
 * fn, entry: the kernel and its entry block (home of the allocas);
 * i64, ptr: the index and pointer types;
 * n_tensor: the number of tensors of the scop (buffers included);
 * tensor: the base pointer of each tensor (NULL for a buffer not yet
 *	allocated in this function); extent: the i64 extents of each tensor;
 *	size: the size arguments;
 * own: for each tensor, 1 if this function allocated it on the heap (and
 *	frees it at its exit);
 * n_iter, iter_id, iter_slot: the loop iterators seen so far;
 * n_frame, frame, max_frame: the enclosing loops and conditions, and
 *	the room allocated for them (a loop unrolled by isl over a
 *	parametric bound nests one condition per iteration, up to 256);
 * em: the walker's emitter, which statement bodies use for indices;
 * name: the kernel's name; n_par: the number of parallel loops outlined
 *	so far (shared by the functions of one kernel);
 * poison: fill each buffer and temporary with 0xff bytes (a NaN in
 *	every float) as it is allocated, so that a read of an element
 *	before it is written shows in the results (EIN_POISON_BUFFERS=1,
 *	for tests; the code is otherwise the same);
 * lanes, vec_iter: in the body of a loop emitted as explicit vectors, its
 *	width (statement values are vectors of that many lanes) and its
 *	iterator; else 0 and NULL;
 * n_explicit: the number of loops emitted as explicit vectors so far;
 * stream: in the body of a loop emitted as explicit vectors, whether its
 *	stores to tensors are non-temporal (store_streamed);
 * streamed: the current function made a non-temporal store;
 * avx512: the target has AVX-512 (mathfn.h). */
struct llvm_emit {
	ein_ctx *ctx;
	const struct ein_emitter *em;
	struct ein_scop *scop;
	LLVMContextRef c;
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMBasicBlockRef entry;
	LLVMTypeRef i64, ptr;
	int n_tensor;
	LLVMValueRef *tensor;
	unsigned char *own;
	LLVMValueRef **extent;
	LLVMValueRef *size;
	int n_iter;
	isl_id **iter_id;
	LLVMValueRef *iter_slot;
	int n_frame;
	int max_frame;
	struct block_frame *frame;
	const char *name;
	int *n_par;
	int relaxed;
	int poison;
	int lanes;
	isl_id *vec_iter;
	int n_explicit;
	int stream;
	int streamed;
	int avx512;
};

static LLVMValueRef iter_slot(struct llvm_emit *e, isl_id *id, int create)
{
	LLVMBuilderRef ab;
	LLVMValueRef slot;
	int i;

	for (i = 0; i < e->n_iter; ++i)
		if (e->iter_id[i] == id)
			return e->iter_slot[i];
	if (!create)
		return NULL;
	e->iter_id = realloc(e->iter_id, (e->n_iter + 1) * sizeof(isl_id *));
	e->iter_slot = realloc(e->iter_slot,
		(e->n_iter + 1) * sizeof(LLVMValueRef));
	if (!e->iter_id || !e->iter_slot)
		return NULL;
	ab = LLVMCreateBuilderInContext(e->c);
	LLVMPositionBuilder(ab, e->entry, LLVMGetFirstInstruction(e->entry));
	slot = LLVMBuildAlloca(ab, e->i64, isl_id_get_name(id));
	LLVMDisposeBuilder(ab);
	e->iter_id[e->n_iter] = id;
	e->iter_slot[e->n_iter++] = slot;
	return slot;
}

static ein_value expr_int(void *user, long v)
{
	struct llvm_emit *e = user;

	return LLVMConstInt(e->i64, (unsigned long long) v, 1);
}

static ein_value expr_id(void *user, isl_id *id)
{
	struct llvm_emit *e = user;
	LLVMValueRef slot = iter_slot(e, id, 0);
	int pos;

	if (slot)
		return LLVMBuildLoad2(e->b, e->i64, slot, isl_id_get_name(id));
	pos = ein_func_find_size(e->scop->func, isl_id_get_name(id));
	if (pos >= 0)
		return e->size[pos];
	ein_internal(e->ctx, "unknown identifier '%s' in the AST",
		isl_id_get_name(id));
	return NULL;
}

/* floor(a / b) for b > 0, as isl's fdiv_q: the quotient rounded towards
 * minus infinity. */
static LLVMValueRef floor_div(struct llvm_emit *e, LLVMValueRef a,
	LLVMValueRef b)
{
	LLVMValueRef q = LLVMBuildSDiv(e->b, a, b, "q");
	LLVMValueRef r = LLVMBuildSRem(e->b, a, b, "r");
	LLVMValueRef zero = LLVMConstInt(e->i64, 0, 0);
	LLVMValueRef neg = LLVMBuildICmp(e->b, LLVMIntSLT, r, zero, "");

	return LLVMBuildSub(e->b, q, LLVMBuildZExt(e->b, neg, e->i64, ""),
		"fdiv");
}

static LLVMValueRef icmp_select(struct llvm_emit *e, LLVMIntPredicate pred,
	LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, pred, a, b, ""),
		a, b, "");
}

static ein_value expr_op(void *user, enum isl_ast_expr_op_type op, int n,
	ein_value *args)
{
	struct llvm_emit *e = user;
	LLVMValueRef *a = (LLVMValueRef *) args;
	LLVMBuilderRef b = e->b;

	switch (op) {
	case isl_ast_expr_op_and:
	case isl_ast_expr_op_and_then:
		return LLVMBuildAnd(b, a[0], a[1], "");
	case isl_ast_expr_op_or:
	case isl_ast_expr_op_or_else:
		return LLVMBuildOr(b, a[0], a[1], "");
	case isl_ast_expr_op_max:
	case isl_ast_expr_op_min: {
		LLVMValueRef v = a[0];
		int i;

		for (i = 1; i < n; ++i)
			v = icmp_select(e, op == isl_ast_expr_op_max ?
				LLVMIntSGT : LLVMIntSLT, v, a[i]);
		return v;
	}
	case isl_ast_expr_op_minus:
		return LLVMBuildNeg(b, a[0], "");
	case isl_ast_expr_op_add:
		return LLVMBuildNSWAdd(b, a[0], a[1], "");
	case isl_ast_expr_op_sub:
		return LLVMBuildNSWSub(b, a[0], a[1], "");
	case isl_ast_expr_op_mul:
		return LLVMBuildNSWMul(b, a[0], a[1], "");
	case isl_ast_expr_op_div:
		return LLVMBuildExactSDiv(b, a[0], a[1], "");
	case isl_ast_expr_op_fdiv_q:
		return floor_div(e, a[0], a[1]);
	case isl_ast_expr_op_pdiv_q:
		return LLVMBuildSDiv(b, a[0], a[1], "");
	case isl_ast_expr_op_pdiv_r:
	case isl_ast_expr_op_zdiv_r:
		return LLVMBuildSRem(b, a[0], a[1], "");
	case isl_ast_expr_op_cond:
	case isl_ast_expr_op_select:
		return LLVMBuildSelect(b, a[0], a[1], a[2], "");
	case isl_ast_expr_op_eq:
		return LLVMBuildICmp(b, LLVMIntEQ, a[0], a[1], "");
	case isl_ast_expr_op_le:
		return LLVMBuildICmp(b, LLVMIntSLE, a[0], a[1], "");
	case isl_ast_expr_op_lt:
		return LLVMBuildICmp(b, LLVMIntSLT, a[0], a[1], "");
	case isl_ast_expr_op_ge:
		return LLVMBuildICmp(b, LLVMIntSGE, a[0], a[1], "");
	case isl_ast_expr_op_gt:
		return LLVMBuildICmp(b, LLVMIntSGT, a[0], a[1], "");
	default:
		ein_internal(e->ctx, "unexpected operation %d in the AST", op);
		return NULL;
	}
}

static LLVMBasicBlockRef new_block(struct llvm_emit *e, const char *name)
{
	return LLVMAppendBasicBlockInContext(e->c, e->fn, name);
}

/* A new innermost frame.  The frames move when they grow: keep no
 * pointer to one across a push. */
static struct block_frame *push_frame(struct llvm_emit *e)
{
	if (e->n_frame >= e->max_frame) {
		int max = 2 * e->max_frame + 16;
		struct block_frame *grown = realloc(e->frame,
			max * sizeof(*grown));

		if (!grown) {
			ein_error(e->ctx, EIN_ERROR_NOMEM, "out of memory");
			return NULL;
		}
		e->frame = grown;
		e->max_frame = max;
	}
	return &e->frame[e->n_frame++];
}

static int for_open(void *user, isl_id *iter, ein_value init,
	const struct ein_loop_attr *attr)
{
	struct llvm_emit *e = user;
	LLVMValueRef slot = iter_slot(e, iter, 1);
	struct block_frame *f = push_frame(e);

	if (!slot || !f)
		return -1;
	f->iter = iter;
	f->attr = attr;
	f->n_explicit = e->n_explicit;
	e->lanes = attr ? attr->lanes : 0;
	e->stream = e->lanes && attr->stream;
	e->n_explicit += e->lanes > 0;
	e->vec_iter = e->lanes ? iter : NULL;
	LLVMBuildStore(e->b, init, slot);
	f->header = new_block(e, "loop");
	LLVMBuildBr(e->b, f->header);
	LLVMPositionBuilderAtEnd(e->b, f->header);
	return 0;
}

static int for_test(void *user, ein_value cond)
{
	struct llvm_emit *e = user;
	struct block_frame *f = &e->frame[e->n_frame - 1];
	LLVMBasicBlockRef body = new_block(e, "body");

	f->exit = new_block(e, "exit");
	LLVMBuildCondBr(e->b, cond, body, f->exit);
	LLVMPositionBuilderAtEnd(e->b, body);
	return 0;
}

static int for_close(void *user, isl_id *iter, ein_value inc)
{
	struct llvm_emit *e = user;
	struct block_frame *f = &e->frame[--e->n_frame];
	LLVMValueRef slot = iter_slot(e, iter, 0);
	LLVMValueRef v = LLVMBuildLoad2(e->b, e->i64, slot, "");

	LLVMBuildStore(e->b, LLVMBuildNSWAdd(e->b, v, inc, "next"), slot);
	ein_loop_md_attach(e->c, LLVMBuildBr(e->b, f->header), f->attr,
		e->n_explicit - f->n_explicit >= 2);
	e->lanes = 0;
	e->stream = 0;
	e->vec_iter = NULL;
	LLVMPositionBuilderAtEnd(e->b, f->exit);
	return 0;
}

static int if_open(void *user, ein_value cond)
{
	struct llvm_emit *e = user;
	struct block_frame *f = push_frame(e);
	LLVMBasicBlockRef then;

	if (!f)
		return -1;
	f->iter = NULL;
	then = new_block(e, "then");
	f->other = new_block(e, "else");
	f->exit = new_block(e, "endif");
	LLVMBuildCondBr(e->b, cond, then, f->other);
	LLVMPositionBuilderAtEnd(e->b, then);
	return 0;
}

static int if_else(void *user)
{
	struct llvm_emit *e = user;
	struct block_frame *f = &e->frame[e->n_frame - 1];

	LLVMBuildBr(e->b, f->exit);
	LLVMPositionBuilderAtEnd(e->b, f->other);
	f->other = NULL;
	return 0;
}

static int if_close(void *user)
{
	struct llvm_emit *e = user;
	struct block_frame *f = &e->frame[--e->n_frame];

	LLVMBuildBr(e->b, f->exit);
	if (f->other) {
		LLVMPositionBuilderAtEnd(e->b, f->other);
		LLVMBuildBr(e->b, f->exit);
	}
	LLVMPositionBuilderAtEnd(e->b, f->exit);
	return 0;
}

/* ---- parallel loops ------------------------------------------------------
 *
 * A parallel loop becomes a call to the runtime's ein_rt_parallel_for with
 * a trampoline and a closure.  The loop's body is outlined into a function
 * of its own taking every tensor as a noalias pointer (so that its inner
 * loops vectorise as the kernel's do), the sizes, the enclosing loops'
 * iterators, the loop's start and step, and the range [lo, hi) of
 * iteration numbers it runs.  The trampoline unpacks the closure (an array
 * of 8-byte slots in the kernel's frame) and calls it.
 */

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

static void emit_buffer_free(struct llvm_emit *e);
static void emit_stream_fence(struct llvm_emit *e);

/* Emit "for (k = lo; k < hi; ++k) { iter = init + k * inc; body }" in the
 * outlined function "c". */
static int emit_chunk_loop(struct llvm_emit *c, __isl_keep isl_ast_node *node,
	isl_id *iter, LLVMValueRef *p, const struct ein_loop_attr *attr)
{
	LLVMValueRef kslot = LLVMBuildAlloca(c->b, c->i64, "k");
	LLVMValueRef slot = iter_slot(c, iter, 1), k, v, step = p[1];
	isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
	isl_val *val = isl_ast_expr_get_type(inc) == isl_ast_expr_int ?
		isl_ast_expr_int_get_val(inc) : NULL;

	/* A constant step (isl's loops almost always step by 1) keeps the
	 * iterator a simple recurrence for LLVM's loop optimisations. */
	if (val && isl_val_is_int(val))
		step = LLVMConstInt(c->i64, isl_val_get_num_si(val), 1);
	isl_val_free(val);
	isl_ast_expr_free(inc);
	LLVMBasicBlockRef header = new_block(c, "chunk"), body, exit;
	isl_ast_node *inner;
	int ok;

	if (!slot)
		return -1;
	LLVMBuildStore(c->b, p[2], kslot);
	LLVMBuildBr(c->b, header);
	LLVMPositionBuilderAtEnd(c->b, header);
	body = new_block(c, "chunk.body");
	exit = new_block(c, "chunk.exit");
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
	emit_stream_fence(c);
	emit_buffer_free(c);
	LLVMBuildRetVoid(c->b);
	return 0;
}

static int emit_extents(struct llvm_emit *e);
static LLVMValueRef size_value(struct llvm_emit *e, int i,
	LLVMValueRef param);
static void add_attr(struct llvm_emit *e, LLVMValueRef fn, unsigned idx,
	const char *name);
static void llvm_emit_clear(struct llvm_emit *e);

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
		c->size[i] = size_value(c, i, LLVMGetParam(c->fn, k++));
	if (emit_extents(c) < 0)
		return -1;
	for (i = 0; i < n_cap; ++i) {
		LLVMValueRef slot = iter_slot(c, cap[i], 1);

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
		add_attr(&c, c.fn, i + 1, "noalias");
		add_attr(&c, c.fn, i + 1, "nocapture");
	}
	add_attr(&c, c.fn, LLVMAttributeFunctionIndex, "nounwind");
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
	llvm_emit_clear(&c);
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
			v = LLVMBuildLoad2(e->b, e->i64, iter_slot(e,
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

static LLVMValueRef tensor_base(struct llvm_emit *e, int t);

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
		else if (t >= n && !(pass[t] = tensor_base(e, t)))
			return -1;
	}
	return 0;
}

static int parallel_for(void *user, __isl_keep isl_ast_node *node,
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

/* The body of a statement instance: the walker's emitter, and the
 * statement's expressions; in an explicit vector loop, the stride of
 * each access and the step of each index variable along it
 * (ein_user_stmt_strides), else NULL. */
struct stmt_emit {
	struct llvm_emit *e;
	const struct ein_emitter *em;
	const struct ein_user_stmt *us;
	const int *stride;
	const long *step;
};

/* The LLVM type of one element of "type" in registers: bool is an i1. */
static LLVMTypeRef scalar_type(struct llvm_emit *e, enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return LLVMDoubleTypeInContext(e->c);
	case EIN_TYPE_I32: return LLVMInt32TypeInContext(e->c);
	case EIN_TYPE_I8:
	case EIN_TYPE_U8: return LLVMInt8TypeInContext(e->c);
	case EIN_TYPE_BOOL: return LLVMInt1TypeInContext(e->c);
	default: return LLVMFloatTypeInContext(e->c);
	}
}

/* "ty", or a vector of it in the body of an explicit vector loop. */
static LLVMTypeRef lanes_of(struct llvm_emit *e, LLVMTypeRef ty)
{
	return e->lanes ? LLVMVectorType(ty, e->lanes) : ty;
}

/* The LLVM type of values of "type" in registers: a scalar, or a vector
 * in the body of an explicit vector loop. */
static LLVMTypeRef value_type(struct llvm_emit *e, enum ein_type type)
{
	return lanes_of(e, scalar_type(e, type));
}

/* The LLVM type of elements of "type" in memory: bool is a byte. */
static LLVMTypeRef memory_type(struct llvm_emit *e, enum ein_type type)
{
	if (type == EIN_TYPE_BOOL)
		return LLVMInt8TypeInContext(e->c);
	return scalar_type(e, type);
}

/* The scalar "v" in every lane, in the body of an explicit vector loop;
 * else "v". */
static LLVMValueRef splat(struct llvm_emit *e, LLVMValueRef v)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c);
	LLVMValueRef undef;

	if (!e->lanes || !v)
		return v;
	undef = LLVMGetPoison(LLVMVectorType(LLVMTypeOf(v), e->lanes));
	v = LLVMBuildInsertElement(e->b, undef, v, LLVMConstInt(i32, 0, 0),
		"");
	return LLVMBuildShuffleVector(e->b, v, undef,
		LLVMConstNull(LLVMVectorType(i32, e->lanes)), "splat");
}

static enum ein_type tensor_type(struct llvm_emit *e, int tensor)
{
	return ein_scop_tensor_type(e->scop, tensor);
}

/* The size in bytes of an element of "type" in memory. */
static long elem_bytes(enum ein_type type)
{
	switch (type) {
	case EIN_TYPE_F64: return 8;
	case EIN_TYPE_I32: return 4;
	case EIN_TYPE_I8:
	case EIN_TYPE_U8:
	case EIN_TYPE_BOOL: return 1;
	default: return 4;
	}
}

/* Call the C library's "name" with arguments "args" of types "ty". */
static LLVMValueRef call_libc(struct llvm_emit *e, LLVMBuilderRef b,
	const char *name, LLVMTypeRef ret, int n, LLVMTypeRef *ty,
	LLVMValueRef *args)
{
	LLVMValueRef fn = LLVMGetNamedFunction(e->m, name);
	LLVMTypeRef fty = LLVMFunctionType(ret, ty, n, 0);

	if (!fn)
		fn = LLVMAddFunction(e->m, name, fty);
	return LLVMBuildCall2(b, fty, fn, args, n, "");
}

/* Fill the "bytes" bytes at "ptr" with 0xff, at "b", if e->poison. */
static void poison(struct llvm_emit *e, LLVMBuilderRef b, LLVMValueRef ptr,
	LLVMValueRef bytes)
{
	if (e->poison)
		LLVMBuildMemSet(b, ptr, LLVMConstInt(
			LLVMInt8TypeInContext(e->c), 0xff, 0), bytes, 1);
}

/* The heap allocation of buffer "t", at "ab": its bytes rounded up to
 * the alignment, from aligned_alloc. */
static LLVMValueRef heap_buffer(struct llvm_emit *e, LLVMBuilderRef ab,
	int t)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(e->scop, t);
	LLVMValueRef args[2], v, mask = LLVMConstInt(e->i64,
		EIN_BUFFER_ALIGN - 1, 0);
	LLVMTypeRef ty[2] = { e->i64, e->i64 };
	int d;

	args[0] = LLVMConstInt(e->i64, EIN_BUFFER_ALIGN, 0);
	args[1] = LLVMConstInt(e->i64, elem_bytes(tensor_type(e, t)), 0);
	for (d = 0; d < buf->n_dim; ++d)
		args[1] = LLVMBuildMul(ab, args[1], e->extent[t][d], "");
	args[1] = LLVMBuildAnd(ab, LLVMBuildAdd(ab, args[1], mask, ""),
		LLVMBuildNot(ab, mask, ""), "");
	e->own[t] = 1;
	v = call_libc(e, ab, "aligned_alloc", e->ptr, 2, ty, args);
	poison(e, ab, v, args[1]);
	return v;
}

/* Allocate buffer "t" in the entry block of the current function (see
 * the head comment). */
static LLVMValueRef alloc_buffer(struct llvm_emit *e, int t)
{
	const struct ein_scop_buffer *buf = ein_scop_get_buffer(e->scop, t);
	enum ein_type type = tensor_type(e, t);
	LLVMBuilderRef ab = LLVMCreateBuilderInContext(e->c);
	LLVMValueRef term = LLVMGetBasicBlockTerminator(e->entry), v;

	if (term)
		LLVMPositionBuilderBefore(ab, term);
	else
		LLVMPositionBuilderAtEnd(ab, e->entry);
	if (buf->n_fixed > 0 &&
	    buf->n_fixed <= EIN_STACK_BUFFER_MAX / elem_bytes(type)) {
		v = LLVMBuildAlloca(ab, LLVMArrayType(memory_type(e, type),
			buf->n_fixed), buf->name);
		LLVMSetAlignment(v, EIN_BUFFER_ALIGN);
		poison(e, ab, v, LLVMConstInt(e->i64,
			buf->n_fixed * elem_bytes(type), 0));
	} else {
		v = heap_buffer(e, ab, t);
		LLVMSetValueName2(v, buf->name, strlen(buf->name));
	}
	LLVMDisposeBuilder(ab);
	return v;
}

/* The base pointer of tensor "t" in the current function. */
static LLVMValueRef tensor_base(struct llvm_emit *e, int t)
{
	if (!e->tensor[t])
		e->tensor[t] = alloc_buffer(e, t);
	return e->tensor[t];
}

/* Free the buffers the current function allocated on the heap. */
static void emit_buffer_free(struct llvm_emit *e)
{
	LLVMTypeRef ty = e->ptr;
	int t;

	for (t = 0; t < e->n_tensor; ++t)
		if (e->own[t])
			call_libc(e, e->b, "free",
				LLVMVoidTypeInContext(e->c), 1, &ty,
				&e->tensor[t]);
}

/* The address of access "pos" of the statement: the row-major offset of
 * its index expressions within the tensor (or buffer) it accesses. */
static LLVMValueRef access_addr(struct stmt_emit *s, int pos)
{
	struct llvm_emit *e = s->e;
	const struct ein_scop_access *a = &s->us->stmt->access[pos];
	int t = ein_scop_access_get_target(a);
	int d, n = ein_scop_tensor_n_dim(e->scop, t);
	LLVMValueRef off = LLVMConstInt(e->i64, 0, 0), base;

	for (d = 0; d < n; ++d) {
		LLVMValueRef idx = ein_walk_expr(s->em, s->us->index[pos][d]);

		if (!idx)
			return NULL;
		if (d > 0)
			off = LLVMBuildNSWMul(e->b, off, e->extent[t][d], "");
		off = d > 0 ? LLVMBuildNSWAdd(e->b, off, idx, "") : idx;
	}
	base = tensor_base(e, t);
	return LLVMBuildInBoundsGEP2(e->b, memory_type(e, tensor_type(e, t)),
		base, &off, 1, "addr");
}

/* Load the element of "type" at "addr" as it is in memory: in the body
 * of an explicit vector loop, the vector of the elements from "addr" on,
 * or that one element in every lane if "uniform". */
static LLVMValueRef load_memory(struct llvm_emit *e, LLVMValueRef addr,
	enum ein_type type, int uniform, const char *name)
{
	LLVMTypeRef ty = memory_type(e, type);
	LLVMValueRef v;

	if (!e->lanes || uniform)
		return splat(e, LLVMBuildLoad2(e->b, ty, addr, name));
	v = LLVMBuildLoad2(e->b, LLVMVectorType(ty, e->lanes), addr, name);
	LLVMSetAlignment(v, elem_bytes(type));
	return v;
}

/* Store "v", as it is in memory, at "addr" (a vector from "addr" on in
 * the body of an explicit vector loop). */
static void store_memory(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr)
{
	LLVMValueRef st = LLVMBuildStore(e->b, v, addr);

	if (e->lanes)
		LLVMSetAlignment(st, elem_bytes(type));
}

/* Store the vector "v" at "addr" with a non-temporal hint (a store that
 * bypasses the caches: movntps, stnp) where "addr" is aligned to the
 * vector's size, which that instruction needs (LLVM splits an unaligned
 * one into scalar stores), and as a plain store elsewhere: a branch per
 * vector, always taken the same way along a row of an aligned tensor.
 * Only vectors of 16, 32 or 64 bytes; others are stored plainly. */
static void store_streamed(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr)
{
	long bytes = e->lanes * elem_bytes(type);
	LLVMValueRef low, one, st;
	LLVMBasicBlockRef nt, plain, join;
	LLVMMetadataRef md;

	if (bytes != 16 && bytes != 32 && bytes != 64) {
		store_memory(e, v, type, addr);
		return;
	}
	low = LLVMBuildAnd(e->b, LLVMBuildPtrToInt(e->b, addr, e->i64, ""),
		LLVMConstInt(e->i64, bytes - 1, 0), "");
	nt = new_block(e, "stream");
	plain = new_block(e, "unaligned");
	join = new_block(e, "stored");
	LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, low,
		LLVMConstInt(e->i64, 0, 0), ""), nt, plain);
	LLVMPositionBuilderAtEnd(e->b, nt);
	st = LLVMBuildStore(e->b, v, addr);
	LLVMSetAlignment(st, bytes);
	one = LLVMConstInt(LLVMInt32TypeInContext(e->c), 1, 0);
	md = LLVMValueAsMetadata(one);
	LLVMSetMetadata(st, LLVMGetMDKindIDInContext(e->c, "nontemporal", 11),
		LLVMMetadataAsValue(e->c, LLVMMDNodeInContext2(e->c, &md, 1)));
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, plain);
	store_memory(e, v, type, addr);
	LLVMBuildBr(e->b, join);
	LLVMPositionBuilderAtEnd(e->b, join);
	e->streamed = 1;
}

/* Non-temporal stores are weakly ordered: a fence at the exit of a
 * function that made some orders them before whatever reads the results
 * (the caller, or the threads after the pool's join). */
static void emit_stream_fence(struct llvm_emit *e)
{
	if (e->streamed)
		LLVMBuildFence(e->b, LLVMAtomicOrderingSequentiallyConsistent,
			0, "");
}

/* Load an element of "type" from "addr" into a register (see
 * load_memory). */
static LLVMValueRef load_value(struct llvm_emit *e, LLVMValueRef addr,
	enum ein_type type, int uniform, const char *name)
{
	LLVMValueRef v = load_memory(e, addr, type, uniform, name);

	if (type != EIN_TYPE_BOOL)
		return v;
	return LLVMBuildICmp(e->b, LLVMIntNE, v,
		ein_mathfn_int(LLVMTypeOf(v), 0), "");
}

/* Store "v" at "addr", in tensor or buffer "t". */
static void store_value(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type type, LLVMValueRef addr, int t)
{
	if (type == EIN_TYPE_BOOL)
		v = LLVMBuildZExt(e->b, v, lanes_of(e, memory_type(e, type)),
			"");
	if (e->stream && !ein_scop_get_buffer(e->scop, t))
		store_streamed(e, v, type, addr);
	else
		store_memory(e, v, type, addr);
}

/* Call intrinsic "name" overloaded on the types "ty". */
static LLVMValueRef call_intrinsic(struct llvm_emit *e, const char *name,
	int n_ty, LLVMTypeRef *ty, int n, LLVMValueRef *args)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, ty, n_ty);
	LLVMTypeRef fty = LLVMIntrinsicGetType(e->c, id, ty, n_ty);

	return LLVMBuildCall2(e->b, fty, fn, args, n, "");
}

/* Call intrinsic "name" overloaded on the type of its first argument. */
static LLVMValueRef call_float(struct llvm_emit *e, const char *name, int n,
	LLVMValueRef *args)
{
	LLVMTypeRef ty = LLVMTypeOf(args[0]);

	return call_intrinsic(e, name, 1, &ty, n, args);
}

/* Call the C library's "name" (float version "name"f) on the scalar
 * "arg" (explicit vectors never call it: fast_vector_calls). */
static LLVMValueRef call_libm(struct llvm_emit *e, const char *name,
	LLVMValueRef arg)
{
	char buf[32];
	LLVMTypeRef elem = LLVMTypeOf(arg);
	LLVMTypeRef ty = LLVMFunctionType(elem, &elem, 1, 0);
	LLVMValueRef fn;

	snprintf(buf, sizeof(buf), "%s%s", name,
		LLVMGetTypeKind(elem) == LLVMFloatTypeKind ? "f" : "");
	fn = LLVMGetNamedFunction(e->m, buf);
	if (!fn)
		fn = LLVMAddFunction(e->m, buf, ty);
	return LLVMBuildCall2(e->b, ty, fn, &arg, 1, "");
}

/* Constants of a scalar type or in every lane of a vector type. */
static LLVMValueRef fconst(LLVMTypeRef ty, double v)
{
	return ein_mathfn_real(ty, v);
}

static LLVMValueRef iconst(LLVMTypeRef ty, long long v)
{
	return ein_mathfn_int(ty, v);
}

/* Is "type" an integer type whose values extend with zeros? */
static int is_unsigned(enum ein_type type)
{
	return type == EIN_TYPE_U8 || type == EIN_TYPE_BOOL;
}

/* A float converted to integer type "to": truncated towards zero and
 * saturated to the type's range, NaN giving 0 (never poison). */
static LLVMValueRef float_to_int(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type to)
{
	LLVMTypeRef ty[2] = { value_type(e, to), LLVMTypeOf(v) };

	return call_intrinsic(e, to == EIN_TYPE_U8 ? "llvm.fptoui.sat" :
		"llvm.fptosi.sat", 2, ty, 1, &v);
}

/* Convert "v" of type "from" to type "to" (docs/language.md, "Types"). */
static LLVMValueRef convert(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type from, enum ein_type to)
{
	LLVMTypeRef ty = value_type(e, to);

	if (!v || from == to)
		return v;
	if (to == EIN_TYPE_BOOL && ein_type_is_float(from))
		return LLVMBuildFCmp(e->b, LLVMRealUNE, v,
			fconst(LLVMTypeOf(v), 0), "");
	if (to == EIN_TYPE_BOOL)
		return LLVMBuildICmp(e->b, LLVMIntNE, v,
			iconst(LLVMTypeOf(v), 0), "");
	if (ein_type_is_float(to) && ein_type_is_float(from))
		return LLVMBuildFPCast(e->b, v, ty, "");
	if (ein_type_is_float(to))
		return is_unsigned(from) ? LLVMBuildUIToFP(e->b, v, ty, "") :
			LLVMBuildSIToFP(e->b, v, ty, "");
	if (ein_type_is_float(from))
		return float_to_int(e, v, to);
	return LLVMBuildIntCast2(e->b, v, ty, !is_unsigned(from), "");
}

static LLVMValueRef lower(struct stmt_emit *s, const struct ein_ast_expr *x);

/* The value of "x" converted to "type". */
static LLVMValueRef lower_as(struct stmt_emit *s, const struct ein_ast_expr *x,
	enum ein_type type)
{
	return convert(s->e, lower(s, x), x->vtype, type);
}

/* "x" as an i1 truth value: non-zero (or NaN) is true, as in C. */
static LLVMValueRef lower_cond(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	return lower_as(s, x, EIN_TYPE_BOOL);
}

static LLVMValueRef lower_load(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	const struct ein_scop_access *a = ein_scop_stmt_find_access(
		s->us->stmt, x);
	LLVMValueRef addr;

	if (!a) {
		ein_internal(s->e->ctx, "access to '%s' not in the model",
			x->name);
		return NULL;
	}
	addr = access_addr(s, a - s->us->stmt->access);
	return addr ? load_value(s->e, addr, tensor_type(s->e, a->tensor),
		s->stride && !s->stride[a - s->us->stmt->access],
		x->name) : NULL;
}

/* The value "v" of index variable "slot" at lane 0 in every lane l of an
 * explicit vector loop, plus l times its step along the loop. */
static LLVMValueRef index_lanes(struct stmt_emit *s, int slot,
	LLVMValueRef v)
{
	struct llvm_emit *e = s->e;
	LLVMValueRef step[e->lanes];
	int l;

	for (l = 0; l < e->lanes; ++l)
		step[l] = LLVMConstInt(e->i64, l * s->step[slot], 1);
	return LLVMBuildNSWAdd(e->b, splat(e, v),
		LLVMConstVector(step, e->lanes), "");
}

/* An index or a size as an int32 value. */
static LLVMValueRef lower_ident(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	LLVMValueRef v;

	if (x->ident_kind == EIN_IDENT_INDEX) {
		v = ein_walk_expr(s->em, s->us->iter[x->slot]);
		if (v && s->e->lanes)
			v = index_lanes(s, x->slot, v);
	} else {
		v = splat(s->e, s->e->size[x->slot]);
	}
	return v ? LLVMBuildTrunc(s->e->b, v, value_type(s->e, x->vtype),
		x->name) : NULL;
}

static LLVMValueRef int_select(struct llvm_emit *e, LLVMIntPredicate pred,
	LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, pred, a, b, ""),
		a, b, "");
}

/* abs, min and max of int32 values; abs(INT32_MIN) wraps. */
static LLVMValueRef lower_int_call(struct llvm_emit *e, const char *name,
	LLVMValueRef *a)
{
	LLVMValueRef zero = iconst(LLVMTypeOf(a[0]), 0);

	if (!strcmp(name, "abs"))
		return int_select(e, LLVMIntSGT, a[0],
			LLVMBuildSub(e->b, zero, a[0], ""));
	return int_select(e, strcmp(name, "min") ? LLVMIntSGT : LLVMIntSLT,
		a[0], a[1]);
}

/* exp(v) or erf(v): inline (mathfn.h) unless strict floating point,
 * else LLVM's intrinsic or the C library's function, which become calls
 * to the C library or to libmvec. */
static LLVMValueRef lower_exp_erf(struct llvm_emit *e, const char *name,
	LLVMValueRef v)
{
	if (e->relaxed && ein_mathfn_has(name, LLVMTypeOf(v)))
		return ein_mathfn_build(e->b, e->m, name, v, e->avx512);
	if (!strcmp(name, "erf"))
		return call_libm(e, name, v);
	return call_float(e, "llvm.exp", 1, &v);
}

static LLVMValueRef lower_call(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	struct llvm_emit *e = s->e;
	LLVMValueRef a[3], t, one;
	int i;

	for (i = 0; i < x->n_arg && i < 3; ++i)
		if (!(a[i] = lower_as(s, x->args[i], x->vtype)))
			return NULL;
	if (!ein_type_is_float(x->vtype))
		return lower_int_call(e, x->name, a);
	one = fconst(LLVMTypeOf(a[0]), 1);
	if (!strcmp(x->name, "rsqrt"))
		return LLVMBuildFDiv(e->b, one,
			call_float(e, "llvm.sqrt", 1, a), "");
	if (!strcmp(x->name, "sigmoid")) {
		t = lower_exp_erf(e, "exp", LLVMBuildFNeg(e->b, a[0], ""));
		return LLVMBuildFDiv(e->b, one,
			LLVMBuildFAdd(e->b, one, t, ""), "");
	}
	if (!strcmp(x->name, "exp") || !strcmp(x->name, "erf"))
		return lower_exp_erf(e, x->name, a[0]);
	if (!strcmp(x->name, "tanh"))
		return call_libm(e, x->name, a[0]);
	if (!strcmp(x->name, "abs"))
		return call_float(e, "llvm.fabs", 1, a);
	if (!strcmp(x->name, "min"))
		return call_float(e, "llvm.minnum", 2, a);
	if (!strcmp(x->name, "max"))
		return call_float(e, "llvm.maxnum", 2, a);
	{
		char name[32];

		snprintf(name, sizeof(name), "llvm.%s", x->name);
		return call_float(e, name, x->n_arg, a);
	}
}

static LLVMValueRef lower_compare(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	static const LLVMRealPredicate fpred[] = {
		[EIN_OP_LT] = LLVMRealOLT, [EIN_OP_LE] = LLVMRealOLE,
		[EIN_OP_GT] = LLVMRealOGT, [EIN_OP_GE] = LLVMRealOGE,
		[EIN_OP_EQ] = LLVMRealOEQ, [EIN_OP_NE] = LLVMRealUNE,
	};
	static const LLVMIntPredicate ipred[] = {
		[EIN_OP_LT] = LLVMIntSLT, [EIN_OP_LE] = LLVMIntSLE,
		[EIN_OP_GT] = LLVMIntSGT, [EIN_OP_GE] = LLVMIntSGE,
		[EIN_OP_EQ] = LLVMIntEQ, [EIN_OP_NE] = LLVMIntNE,
	};
	enum ein_type t = ein_type_arith(x->args[0]->vtype,
		x->args[1]->vtype);
	LLVMValueRef l = lower_as(s, x->args[0], t);
	LLVMValueRef r = lower_as(s, x->args[1], t);

	if (!l || !r)
		return NULL;
	if (ein_type_is_float(t))
		return LLVMBuildFCmp(s->e->b, fpred[x->op], l, r, "");
	return LLVMBuildICmp(s->e->b, ipred[x->op], l, r, "");
}

/* Integer division or remainder, truncating towards zero as in C.  By
 * zero the result is 0, and INT32_MIN / -1 wraps to INT32_MIN: the
 * divisor is replaced by 1 in both cases, where LLVM's sdiv would be
 * undefined, and the quotient fixed up. */
static LLVMValueRef lower_int_div(struct llvm_emit *e, enum ein_op op,
	LLVMValueRef a, LLVMValueRef b)
{
	LLVMTypeRef ty = LLVMTypeOf(a);
	LLVMValueRef zero = iconst(ty, 0), one = iconst(ty, 1);
	LLVMValueRef is0 = LLVMBuildICmp(e->b, LLVMIntEQ, b, zero, "");
	LLVMValueRef ism1 = LLVMBuildICmp(e->b, LLVMIntEQ, b, iconst(ty, -1),
		"");
	LLVMValueRef safe = LLVMBuildSelect(e->b,
		LLVMBuildOr(e->b, is0, ism1, ""), one, b, "");
	LLVMValueRef q;

	if (op == EIN_OP_MOD)
		return LLVMBuildSRem(e->b, a, safe, "");
	q = LLVMBuildSDiv(e->b, a, safe, "");
	q = LLVMBuildSelect(e->b, ism1, LLVMBuildSub(e->b, zero, a, ""), q,
		"");
	return LLVMBuildSelect(e->b, is0, zero, q, "");
}

/* Arithmetic in x's type: floats as IEEE, integers as two's complement
 * (no nsw: overflow wraps). */
/* Is "x" a product that may be contracted with an addition of type
 * "type" into one fused multiply-add?  Only when the kernel is not
 * compiled with strict floating point, as C's FP_CONTRACT allows within
 * one expression: the product is then not rounded on its own. */
static int contractible(struct stmt_emit *s, const struct ein_ast_expr *x,
	enum ein_type type)
{
	return s->e->relaxed && ein_type_is_float(type) &&
		x->kind == EIN_EXPR_BINARY && x->op == EIN_OP_MUL &&
		x->vtype == type;
}

/* a * b + c in one rounding, with a * b the product "x" ((-a) * b + c,
 * exactly -(a * b) + c, if "negate"). */
static LLVMValueRef fused(struct stmt_emit *s, const struct ein_ast_expr *x,
	LLVMValueRef c, int negate)
{
	LLVMValueRef args[3];

	args[0] = lower_as(s, x->args[0], x->vtype);
	args[1] = lower_as(s, x->args[1], x->vtype);
	args[2] = c;
	if (!args[0] || !args[1] || !c)
		return NULL;
	if (negate)
		args[0] = LLVMBuildFNeg(s->e->b, args[0], "");
	return call_float(s->e, "llvm.fmuladd", 3, args);
}

/* l + r or l - r where one side is a contractible product: a * b + c,
 * a * b - c = a * b + (-c) and c - a * b = (-a) * b + c. */
static LLVMValueRef lower_contracted(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	int right = contractible(s, x->args[1], x->vtype);
	int sub = x->op == EIN_OP_SUB;
	const struct ein_ast_expr *prod = x->args[right];
	LLVMValueRef c = lower_as(s, x->args[!right], x->vtype);

	if (c && sub && !right)
		c = LLVMBuildFNeg(s->e->b, c, "");
	return fused(s, prod, c, sub && right);
}

/* Is the value of "x" the same in every lane of an explicit vector loop:
 * does it read only elements fixed along the loop, and index variables
 * that do not move with it? */
static int uniform(struct stmt_emit *s, const struct ein_ast_expr *x)
{
	const struct ein_scop_access *a;
	int i;

	if (x->kind == EIN_EXPR_ACCESS) {
		a = ein_scop_stmt_find_access(s->us->stmt, x);
		return a && !s->stride[a - s->us->stmt->access];
	}
	if (x->kind == EIN_EXPR_IDENT && x->ident_kind == EIN_IDENT_INDEX)
		return s->step[x->slot] == 0;
	for (i = 0; i < x->n_arg; ++i)
		if (!uniform(s, x->args[i]))
			return 0;
	return 1;
}

/* l / r as l * (1 / r): in an explicit vector loop, unless strict
 * floating point, when r is the same in every lane, so that LLVM
 * computes 1 / r once, out of the loop, and each vector costs a
 * multiplication instead of a division (docs/language.md: within an
 * ulp or so of the quotient).  Softmax's e / s(i): the division was a
 * quarter of its time on one thread. */
static int by_reciprocal(struct stmt_emit *s, const struct ein_ast_expr *x)
{
	return s->e->relaxed && s->e->lanes && x->op == EIN_OP_DIV &&
		ein_type_is_float(x->vtype) && uniform(s, x->args[1]);
}

static LLVMValueRef lower_arith(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	LLVMBuilderRef b = s->e->b;
	LLVMValueRef l, r;
	int fp = ein_type_is_float(x->vtype);

	if ((x->op == EIN_OP_ADD || x->op == EIN_OP_SUB) &&
	    (contractible(s, x->args[0], x->vtype) ||
	     contractible(s, x->args[1], x->vtype)))
		return lower_contracted(s, x);
	l = lower_as(s, x->args[0], x->vtype);
	r = lower_as(s, x->args[1], x->vtype);
	if (!l || !r)
		return NULL;
	switch (x->op) {
	case EIN_OP_ADD:
		return fp ? LLVMBuildFAdd(b, l, r, "") :
			LLVMBuildAdd(b, l, r, "");
	case EIN_OP_SUB:
		return fp ? LLVMBuildFSub(b, l, r, "") :
			LLVMBuildSub(b, l, r, "");
	case EIN_OP_MUL:
		return fp ? LLVMBuildFMul(b, l, r, "") :
			LLVMBuildMul(b, l, r, "");
	case EIN_OP_DIV:
		if (by_reciprocal(s, x))
			return LLVMBuildFMul(b, l, LLVMBuildFDiv(b,
				fconst(LLVMTypeOf(r), 1), r, "recip"), "");
		return fp ? LLVMBuildFDiv(b, l, r, "") :
			lower_int_div(s->e, x->op, l, r);
	default:
		return fp ? LLVMBuildFRem(b, l, r, "") :
			lower_int_div(s->e, x->op, l, r);
	}
}

static LLVMValueRef lower_binary(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	LLVMValueRef l, r;

	if (x->op == EIN_OP_AND || x->op == EIN_OP_OR) {
		l = lower_cond(s, x->args[0]);
		r = lower_cond(s, x->args[1]);
		if (!l || !r)
			return NULL;
		return x->op == EIN_OP_AND ? LLVMBuildAnd(s->e->b, l, r, "") :
			LLVMBuildOr(s->e->b, l, r, "");
	}
	if (x->op >= EIN_OP_LT)
		return lower_compare(s, x);
	return lower_arith(s, x);
}

/* c ? a : b, evaluating only the branch taken: a guarded access may be
 * out of bounds when its guard is false.  In explicit vectors, which
 * have no guarded access (vector_stmt), both sides and a select. */
static LLVMValueRef lower_select(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	struct llvm_emit *e = s->e;
	LLVMValueRef c = lower_cond(s, x->args[0]), v[2], phi;
	LLVMBasicBlockRef bb[2], join;
	int i;

	if (!c)
		return NULL;
	if (e->lanes) {
		v[0] = lower_as(s, x->args[1], x->vtype);
		v[1] = lower_as(s, x->args[2], x->vtype);
		return v[0] && v[1] ?
			LLVMBuildSelect(e->b, c, v[0], v[1], "") : NULL;
	}
	bb[0] = new_block(e, "sel.t");
	bb[1] = new_block(e, "sel.f");
	join = new_block(e, "sel.join");
	LLVMBuildCondBr(e->b, c, bb[0], bb[1]);
	for (i = 0; i < 2; ++i) {
		LLVMPositionBuilderAtEnd(e->b, bb[i]);
		if (!(v[i] = lower_as(s, x->args[1 + i], x->vtype)))
			return NULL;
		bb[i] = LLVMGetInsertBlock(e->b);
		LLVMBuildBr(e->b, join);
	}
	LLVMPositionBuilderAtEnd(e->b, join);
	phi = LLVMBuildPhi(e->b, value_type(e, x->vtype), "sel");
	LLVMAddIncoming(phi, v, bb, 2);
	return phi;
}

static LLVMValueRef lower_unary(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	LLVMValueRef v;

	if (x->op == EIN_OP_NOT) {
		v = lower_cond(s, x->args[0]);
		return v ? LLVMBuildNot(s->e->b, v, "") : NULL;
	}
	v = lower_as(s, x->args[0], x->vtype);
	if (!v)
		return NULL;
	if (ein_type_is_float(x->vtype))
		return LLVMBuildFNeg(s->e->b, v, "");
	return LLVMBuildSub(s->e->b, iconst(LLVMTypeOf(v), 0), v, "");
}

static LLVMValueRef lower_literal(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	LLVMTypeRef ty = value_type(s->e, x->vtype);

	if (!ein_type_is_float(x->vtype))
		return iconst(ty, x->ival);
	return fconst(ty, x->kind == EIN_EXPR_INT ? (double) x->ival :
		x->fval);
}

/* The value of "x", of type x->vtype. */
static LLVMValueRef lower(struct stmt_emit *s, const struct ein_ast_expr *x)
{
	switch (x->kind) {
	case EIN_EXPR_INT:
	case EIN_EXPR_FLOAT:
		return lower_literal(s, x);
	case EIN_EXPR_IDENT:
		return lower_ident(s, x);
	case EIN_EXPR_ACCESS:
		return lower_load(s, x);
	case EIN_EXPR_UNARY:
		return lower_unary(s, x);
	case EIN_EXPR_BINARY:
		return lower_binary(s, x);
	case EIN_EXPR_SELECT:
		return lower_select(s, x);
	case EIN_EXPR_CALL:
		return lower_call(s, x);
	case EIN_EXPR_CAST:
		return lower_as(s, x->args[0], x->type);
	}
	return NULL;
}

/* The identity of reduction "op" in "type": the value a "!" statement
 * starts from. */
static LLVMValueRef identity(struct llvm_emit *e, enum ein_assign op,
	enum ein_type type)
{
	LLVMTypeRef ty = value_type(e, type);
	int fp = ein_type_is_float(type);

	switch (op) {
	case EIN_ASSIGN_MUL:
		return fp ? fconst(ty, 1) : iconst(ty, 1);
	case EIN_ASSIGN_MAX:
		return fp ? fconst(ty, -__builtin_inf()) :
			iconst(ty, ein_type_min(type));
	case EIN_ASSIGN_MIN:
		return fp ? fconst(ty, __builtin_inf()) :
			iconst(ty, ein_type_max(type));
	default:
		return fp ? fconst(ty, 0) : iconst(ty, 0);
	}
}

/* The function "ein.<op>.<ty>" of module "m" that returns
 * llvm.<op>.<ty>(a, b) with the fast-math flags nnan and nsz, always
 * inlined, NULL on error.  LLVM 16's loop vectoriser turns a max or min
 * recurrence into a vector reduction only with these flags, which its C
 * API cannot set on an instruction: the function is read from IR text
 * and linked in. */
static LLVMValueRef nnan_minmax(LLVMModuleRef m, const char *op,
	LLVMTypeRef type)
{
	const char *ty = LLVMGetTypeKind(type) == LLVMFloatTypeKind ?
		"f32" : "f64";
	const char *cty = ty[1] == '3' ? "float" : "double";
	LLVMContextRef c = LLVMGetModuleContext(m);
	char name[32], text[512];
	LLVMMemoryBufferRef buf;
	LLVMModuleRef helper;
	LLVMValueRef fn;
	char *msg = NULL;

	snprintf(name, sizeof(name), "ein.%s.%s", op, ty);
	fn = LLVMGetNamedFunction(m, name);
	if (fn)
		return fn;
	snprintf(text, sizeof(text),
		"define linkonce_odr %s @%s(%s %%a, %s %%b) #0 {\n"
		"  %%r = call nnan nsz %s @llvm.%s.%s(%s %%a, %s %%b)\n"
		"  ret %s %%r\n}\n"
		"declare %s @llvm.%s.%s(%s, %s)\n"
		"attributes #0 = { alwaysinline nounwind }\n",
		cty, name, cty, cty, cty, op, ty, cty, cty, cty, cty, op, ty,
		cty, cty);
	buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text),
		name);
	if (LLVMParseIRInContext(c, buf, &helper, &msg)) {
		LLVMDisposeMessage(msg);
		return NULL;
	}
	LLVMSetTarget(helper, LLVMGetTarget(m));
	LLVMSetDataLayout(helper, LLVMGetDataLayoutStr(m));
	/* The linker brings in a linkonce definition only where the module
	 * refers to it. */
	LLVMAddFunction(m, name, LLVMFunctionType(type,
		(LLVMTypeRef[]) { type, type }, 2, 0));
	if (LLVMLinkModules2(m, helper))
		return NULL;
	fn = LLVMGetNamedFunction(m, name);
	if (fn)
		LLVMSetLinkage(fn, LLVMInternalLinkage);
	return fn && !LLVMIsDeclaration(fn) ? fn : NULL;
}

/* old max v or old min v: the intrinsic, with nnan and nsz unless the
 * kernel keeps strict floating point (docs/language.md: a max= or min=
 * reduction then assumes its values are not NaN, and may be reordered
 * into vectors like a sum).  Explicit vectors (lane-wise, never a
 * reduction across lanes) need no flags. */
static LLVMValueRef combine_minmax(struct llvm_emit *e, const char *op,
	LLVMValueRef old, LLVMValueRef v)
{
	LLVMValueRef args[2] = { old, v }, fn;
	LLVMTypeRef ty = LLVMTypeOf(old), fty;
	char name[32];

	fn = e->relaxed && !e->lanes ? nnan_minmax(e->m, op, ty) : NULL;
	if (!fn) {
		snprintf(name, sizeof(name), "llvm.%s", op);
		return call_float(e, name, 2, args);
	}
	fty = LLVMGlobalGetValueType(fn);
	return LLVMBuildCall2(e->b, fty, fn, args, 2, "");
}

/* old op v in a float type. */
static LLVMValueRef combine_float(struct llvm_emit *e, enum ein_assign op,
	LLVMValueRef old, LLVMValueRef v)
{
	switch (op) {
	case EIN_ASSIGN_ADD:
		return LLVMBuildFAdd(e->b, old, v, "");
	case EIN_ASSIGN_MUL:
		return LLVMBuildFMul(e->b, old, v, "");
	case EIN_ASSIGN_MAX:
		return combine_minmax(e, "maxnum", old, v);
	default:
		return combine_minmax(e, "minnum", old, v);
	}
}

/* old op v in int32, wrapping. */
static LLVMValueRef combine_int(struct llvm_emit *e, enum ein_assign op,
	LLVMValueRef old, LLVMValueRef v)
{
	switch (op) {
	case EIN_ASSIGN_ADD:
		return LLVMBuildAdd(e->b, old, v, "");
	case EIN_ASSIGN_MUL:
		return LLVMBuildMul(e->b, old, v, "");
	case EIN_ASSIGN_MAX:
		return int_select(e, LLVMIntSGT, old, v);
	default:
		return int_select(e, LLVMIntSLT, old, v);
	}
}

/* The new value of the element at "addr" of a tensor of type "type" after
 * "op" with the value of "rhs": floats combine in the tensor's type,
 * integers in int32, and the result is converted (wrapped) to the type. */
static LLVMValueRef update(struct stmt_emit *s, enum ein_assign op,
	enum ein_type type, LLVMValueRef addr, const struct ein_ast_expr *rhs)
{
	struct llvm_emit *e = s->e;
	enum ein_type ct = ein_type_is_float(type) ? type : EIN_TYPE_I32;
	LLVMValueRef v, old;

	if (op == EIN_ASSIGN_SET)
		return lower_as(s, rhs, type);
	if (op == EIN_ASSIGN_ADD && contractible(s, rhs, ct))
		return fused(s, rhs, load_value(e, addr, type, 0, ""), 0);
	v = lower_as(s, rhs, ct);
	if (!v)
		return NULL;
	old = convert(e, load_value(e, addr, type, 0, ""), type, ct);
	v = ein_type_is_float(ct) ? combine_float(e, op, old, v) :
		combine_int(e, op, old, v);
	return convert(e, v, ct, type);
}

/* A copy between a tensor and a buffer: the element as it is in memory. */
static int copy_stmt(struct stmt_emit *s)
{
	struct llvm_emit *e = s->e;
	enum ein_type type = tensor_type(e, s->us->stmt->access[0].tensor);
	LLVMValueRef from = access_addr(s, 1), to = access_addr(s, 0);

	if (!from || !to)
		return -1;
	store_memory(e, load_memory(e, from, type,
		s->stride && !s->stride[1], ""), type, to);
	return 0;
}

/* A prefetch of its element: for reading (0), to be kept in every cache
 * level (locality 3), of data (1).  The address lies in the tensor
 * (sched/prefetch.c). */
static int prefetch_stmt(struct stmt_emit *s)
{
	struct llvm_emit *e = s->e;
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c), ty = e->ptr;
	LLVMValueRef args[4] = { access_addr(s, 0), LLVMConstInt(i32, 0, 0),
		LLVMConstInt(i32, 3, 0), LLVMConstInt(i32, 1, 0) };

	if (!args[0])
		return -1;
	call_intrinsic(e, "llvm.prefetch", 1, &ty, 4, args);
	return 0;
}

/* The number of index variables of "us". */
static int n_iter(const struct ein_user_stmt *us)
{
	int n = 0;

	while (us->iter[n])
		++n;
	return n;
}

/* Does every index variable in "x" have a known step (not LONG_MIN) in
 * "step"? */
static int steps_known(const struct ein_ast_expr *x, const long *step)
{
	int i;

	if (x->kind == EIN_EXPR_IDENT && x->ident_kind == EIN_IDENT_INDEX &&
	    step[x->slot] == LONG_MIN)
		return 0;
	for (i = 0; i < x->n_arg; ++i)
		if (!steps_known(x->args[i], step))
			return 0;
	return 1;
}

/* Are the calls in "x" fast on explicit vectors?  The inline exp and
 * erf (float32, unless strict floating point) and the functions the
 * targets have vector instructions for; not the C library's (tanh, log,
 * ...), which would be called lane by lane, where LLVM's loop
 * vectoriser calls libmvec's vector versions (codegen/target.c). */
static int fast_vector_calls(struct llvm_emit *e, const struct ein_ast_expr *x)
{
	static const char *const native[] = { "sqrt", "rsqrt", "abs", "min",
		"max", "floor", "ceil" };
	int i, ok = x->kind != EIN_EXPR_CALL || !ein_type_is_float(x->vtype);

	for (i = 0; !ok && i < (int) (sizeof(native) / sizeof(native[0]));
	     ++i)
		ok = !strcmp(x->name, native[i]);
	if (!ok && (!strcmp(x->name, "exp") || !strcmp(x->name, "erf") ||
		    !strcmp(x->name, "sigmoid")))
		ok = e->relaxed && x->vtype == EIN_TYPE_F32;
	for (i = 0; ok && i < x->n_arg; ++i)
		ok = fast_vector_calls(e, x->args[i]);
	return ok;
}

/* May statement "us" be computed as explicit vectors along "iter"
 * (walk.h)?  A computation or a copy whose accesses are unguarded (a
 * select then evaluates both sides) and each either contiguous or on one
 * element along the loop, whose writes are contiguous (a write to one
 * element would be a reduction across the lanes, left to LLVM's
 * vectoriser), whose index variables, where its expression uses them,
 * step by a constant, and whose calls are fast on vectors (so never a
 * call of the C library).  The schedule's legality check has shown that
 * the loop carries no dependence other than such reductions. */
static int vector_stmt(void *user, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter)
{
	struct llvm_emit *e = user;
	const struct ein_scop_stmt *stmt = us->stmt;
	int i, stride[stmt->n_access + 1];
	long step[n_iter(us) + 1];

	if (stmt->kind == EIN_STMT_PREFETCH ||
	    ein_user_stmt_strides(e->scop, us, iter, stride, step) < 0)
		return 0;
	for (i = 0; i < stmt->n_access; ++i)
		if (stmt->access[i].guard || stride[i] < 0 ||
		    (stmt->access[i].is_write && stride[i] != 1))
			return 0;
	return stmt->kind != EIN_STMT_COMPUTE || stmt->is_init ||
		(steps_known(stmt->rhs, step) &&
		 fast_vector_calls(e, stmt->rhs));
}

static int user_stmt(void *user, const struct ein_user_stmt *us)
{
	struct llvm_emit *e = user;
	const struct ein_scop_stmt *stmt = us->stmt;
	const struct ein_ast_stmt *src = e->scop->func->stmt[stmt->src].ast;
	enum ein_type type = tensor_type(e, stmt->access[0].tensor);
	struct stmt_emit s = { e, e->em, us, NULL, NULL };
	int stride[stmt->n_access + 1];
	long step[n_iter(us) + 1];
	LLVMValueRef v, addr;

	if (e->lanes) {
		if (ein_user_stmt_strides(e->scop, us, e->vec_iter, stride,
				step) < 0)
			return -1;
		s.stride = stride;
		s.step = step;
	}
	if (stmt->kind == EIN_STMT_PREFETCH)
		return prefetch_stmt(&s);
	if (stmt->kind != EIN_STMT_COMPUTE)
		return copy_stmt(&s);
	addr = access_addr(&s, 0);
	if (!addr)
		return -1;
	if (stmt->is_init)
		v = identity(e, src->op, type);
	else
		v = update(&s, src->op, type, addr, stmt->rhs);
	if (!v)
		return -1;
	store_value(e, v, type, addr,
		ein_scop_access_get_target(&stmt->access[0]));
	return 0;
}

static void add_attr(struct llvm_emit *e, LLVMValueRef fn, unsigned idx,
	const char *name)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));

	LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(e->c, kind,
		0));
}

/* The number of tensors passed as arguments: inputs and outputs. */
static int n_arg_tensor(const struct ein_func *func)
{
	int i, n = 0;

	for (i = 0; i < func->n_tensor; ++i)
		if (func->tensor[i].role != EIN_ROLE_TEMP)
			n++;
	return n;
}

/* Declare the kernel: one noalias pointer per argument tensor, then one
 * i64 per size. */
static LLVMValueRef declare_kernel(struct llvm_emit *e, const char *name)
{
	const struct ein_func *func = e->scop->func;
	int i, n_t = n_arg_tensor(func), n = n_t + func->n_size;
	LLVMTypeRef params[n + 1];
	LLVMValueRef fn;

	for (i = 0; i < n; ++i)
		params[i] = i < n_t ? e->ptr : e->i64;
	fn = LLVMAddFunction(e->m, name,
		LLVMFunctionType(LLVMVoidTypeInContext(e->c), params, n, 0));
	for (i = 0; i < n_t; ++i) {
		add_attr(e, fn, i + 1, "noalias");
		add_attr(e, fn, i + 1, "nocapture");
	}
	add_attr(e, fn, LLVMAttributeFunctionIndex, "nounwind");
	return fn;
}

/* Compute the extents of every tensor (buffers included) at the start of
 * the function. */
static int emit_extents(struct llvm_emit *e)
{
	int i, d;

	e->extent = calloc(e->n_tensor + 1, sizeof(*e->extent));
	for (i = 0; e->extent && i < e->n_tensor; ++i) {
		int n = ein_scop_tensor_n_dim(e->scop, i);

		e->extent[i] = calloc(n + 1, sizeof(LLVMValueRef));
		if (!e->extent[i])
			return -1;
		for (d = 0; d < n; ++d) {
			isl_ast_expr *x = ein_ast_build_extent(e->scop,
				ein_scop_tensor_extent(e->scop, i, d));

			e->extent[i][d] = x ? ein_walk_expr(e->em, x) : NULL;
			isl_ast_expr_free(x);
			if (!e->extent[i][d])
				return -1;
		}
	}
	return e->extent ? 0 : -1;
}

static LLVMValueRef libc_function(struct llvm_emit *e, const char *name,
	LLVMTypeRef ret, LLVMTypeRef arg)
{
	LLVMValueRef fn = LLVMGetNamedFunction(e->m, name);

	if (!fn)
		fn = LLVMAddFunction(e->m, name, LLVMFunctionType(ret, &arg, 1,
			0));
	return fn;
}

/* Is tensor "i" a temporary that the kernel stores in full?  A
 * temporary whose accesses all went to a buffer (its storage contracted,
 * sched/contract.c) needs none. */
static int full_temp(struct llvm_emit *e, int i)
{
	return e->scop->func->tensor[i].role == EIN_ROLE_TEMP &&
		ein_scop_tensor_is_accessed(e->scop, i);
}

/* Allocate the temporaries on the heap: they may be far larger than a
 * stack. */
static void emit_temp_alloc(struct llvm_emit *e)
{
	const struct ein_func *func = e->scop->func;
	LLVMValueRef fn = libc_function(e, "malloc", e->ptr, e->i64);
	LLVMTypeRef ty = LLVMGlobalGetValueType(fn);
	int i, d;

	for (i = 0; i < func->n_tensor; ++i) {
		LLVMValueRef bytes = LLVMSizeOf(memory_type(e,
			func->tensor[i].type));

		if (!full_temp(e, i))
			continue;
		for (d = 0; d < func->tensor[i].n_dim; ++d)
			bytes = LLVMBuildMul(e->b, bytes, e->extent[i][d], "");
		e->tensor[i] = LLVMBuildCall2(e->b, ty, fn, &bytes, 1,
			func->tensor[i].name);
		poison(e, e->b, e->tensor[i], bytes);
	}
}

static void emit_temp_free(struct llvm_emit *e)
{
	const struct ein_func *func = e->scop->func;
	LLVMValueRef fn = libc_function(e, "free",
		LLVMVoidTypeInContext(e->c), e->ptr);
	LLVMTypeRef ty = LLVMGlobalGetValueType(fn);
	int i;

	for (i = 0; i < func->n_tensor; ++i)
		if (full_temp(e, i))
			LLVMBuildCall2(e->b, ty, fn, &e->tensor[i], 1, "");
	emit_stream_fence(e);
	emit_buffer_free(e);
}

/* Size "i", passed as "param": the constant when the context fixes it
 * (a kernel specialised to its sizes), so that LLVM sees it also in the
 * outlined parallel bodies, which the runtime calls through a pointer. */
static LLVMValueRef size_value(struct llvm_emit *e, int i,
	LLVMValueRef param)
{
	isl_set *context = e->scop->context;
	int pos = isl_set_find_dim_by_name(context, isl_dim_param,
		e->scop->func->size[i]);
	isl_val *v = pos < 0 ? NULL :
		isl_set_plain_get_val_if_fixed(context, isl_dim_param, pos);

	if (v && isl_val_is_int(v))
		param = LLVMConstInt(e->i64, isl_val_get_num_si(v), 1);
	isl_val_free(v);
	return param;
}

/* Bind the kernel's parameters to tensors and sizes. */
static void bind_params(struct llvm_emit *e)
{
	const struct ein_func *func = e->scop->func;
	int i, k = 0;

	for (i = 0; i < func->n_tensor; ++i)
		if (func->tensor[i].role != EIN_ROLE_TEMP) {
			e->tensor[i] = LLVMGetParam(e->fn, k++);
			LLVMSetValueName2(e->tensor[i], func->tensor[i].name,
				strlen(func->tensor[i].name));
		}
	for (i = 0; i < func->n_size; ++i) {
		LLVMValueRef p = LLVMGetParam(e->fn, k++);

		LLVMSetValueName2(p, func->size[i], strlen(func->size[i]));
		e->size[i] = size_value(e, i, p);
	}
}

/* The entry point NAME__entry(void **tensors, const int64_t *sizes), which
 * lets the JIT call every kernel through one C type. */
static void emit_entry(struct llvm_emit *e, const char *name)
{
	const struct ein_func *func = e->scop->func;
	int i, n_t = n_arg_tensor(func), n = n_t + func->n_size;
	LLVMTypeRef params[2] = { e->ptr, e->ptr };
	LLVMTypeRef ty = LLVMFunctionType(LLVMVoidTypeInContext(e->c), params,
		2, 0);
	char buf[strlen(name) + sizeof(EIN_ENTRY_SUFFIX)];
	LLVMValueRef fn, args[n + 1];

	snprintf(buf, sizeof(buf), "%s%s", name, EIN_ENTRY_SUFFIX);
	fn = LLVMAddFunction(e->m, buf, ty);
	LLVMPositionBuilderAtEnd(e->b, LLVMAppendBasicBlockInContext(e->c, fn,
		"entry"));
	for (i = 0; i < n; ++i) {
		LLVMValueRef base = LLVMGetParam(fn, i < n_t ? 0 : 1);
		LLVMValueRef idx = LLVMConstInt(e->i64, i < n_t ? i : i - n_t,
			0);
		LLVMTypeRef t = i < n_t ? e->ptr : e->i64;
		LLVMValueRef addr = LLVMBuildInBoundsGEP2(e->b, t, base, &idx,
			1, "");

		args[i] = LLVMBuildLoad2(e->b, t, addr, "");
	}
	LLVMBuildCall2(e->b, LLVMGlobalGetValueType(e->fn), e->fn, args, n,
		"");
	LLVMBuildRetVoid(e->b);
}

static int emit_kernel(struct llvm_emit *e, __isl_keep isl_ast_node *tree,
	const char *name)
{
	LLVMBasicBlockRef body;

	e->fn = declare_kernel(e, name);
	e->entry = LLVMAppendBasicBlockInContext(e->c, e->fn, "entry");
	body = LLVMAppendBasicBlockInContext(e->c, e->fn, "body");
	LLVMPositionBuilderAtEnd(e->b, e->entry);
	bind_params(e);
	if (emit_extents(e) < 0)
		return -1;
	emit_temp_alloc(e);
	LLVMBuildBr(e->b, body);
	LLVMPositionBuilderAtEnd(e->b, body);
	if (ein_walk_node(e->em, tree) < 0)
		return -1;
	emit_temp_free(e);
	LLVMBuildRetVoid(e->b);
	emit_entry(e, name);
	return 0;
}

static void llvm_emit_clear(struct llvm_emit *e)
{
	int i;

	for (i = 0; e->extent && i < e->n_tensor; ++i)
		free(e->extent[i]);
	free(e->extent);
	free(e->tensor);
	free(e->own);
	free(e->size);
	free(e->iter_id);
	free(e->iter_slot);
	free(e->frame);
	if (e->b)
		LLVMDisposeBuilder(e->b);
}

static int verify(ein_ctx *ctx, LLVMModuleRef m)
{
	char *msg = NULL;
	int bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);

	if (bad)
		ein_internal(ctx, "invalid LLVM IR: %s", msg ? msg : "?");
	LLVMDisposeMessage(msg);
	return bad ? -1 : 0;
}

LLVMModuleRef ein_emit_llvm(ein_ctx *ctx, struct ein_scop *scop,
	__isl_keep isl_ast_node *tree, LLVMContextRef llctx, const char *name,
	int relaxed, const struct ein_target *target)
{
	const char *env = getenv("EIN_POISON_BUFFERS");
	struct llvm_emit e = { .ctx = ctx, .scop = scop, .c = llctx,
		.relaxed = relaxed, .poison = env && strcmp(env, "") &&
		strcmp(env, "0"),
		.avx512 = target && ein_target_has_avx512(target) };
	struct ein_emitter em = { &e, &expr_int, &expr_id, &expr_op,
		&for_open, &parallel_for, &for_test, &for_close, &if_open,
		&if_else, &if_close, &user_stmt, &vector_stmt, scop };
	int n_par = 0;
	const struct ein_func *func = scop->func;
	int ok;

	e.em = &em;
	e.name = name;
	e.n_par = &n_par;
	e.m = LLVMModuleCreateWithNameInContext(name, llctx);
	e.b = LLVMCreateBuilderInContext(llctx);
	e.i64 = LLVMInt64TypeInContext(llctx);
	e.ptr = LLVMPointerTypeInContext(llctx, 0);
	e.n_tensor = ein_scop_n_tensor(scop);
	e.tensor = calloc(e.n_tensor + 1, sizeof(*e.tensor));
	e.own = calloc(e.n_tensor + 1, 1);
	e.size = calloc(func->n_size + 1, sizeof(*e.size));
	ok = e.tensor && e.own && e.size ? emit_kernel(&e, tree, name) : -1;
	llvm_emit_clear(&e);
	if (ok == 0)
		ok = verify(ctx, e.m);
	if (ok < 0) {
		if (ein_diag_n_error(ctx) == 0)
			ein_internal(ctx, "LLVM code generation failed");
		LLVMDisposeModule(e.m);
		return NULL;
	}
	return e.m;
}
