/*
 * emit_llvm.c: the LLVM backend of the AST walker: the kernel's function,
 * its entry point, and the loops and conditions of the AST.
 *
 * Loop iterators live in allocas of the entry block, which LLVM's SROA
 * turns into SSA values; index arithmetic is in i64 (llvm_expr.c);
 * tensors are row-major arrays behind noalias pointers, so that LLVM may
 * vectorise the innermost loop.  Statement bodies are lowered by
 * llvm_stmt.c, buffers allocated by llvm_mem.c, parallel loops outlined
 * by llvm_par.c; the walker (walk.c) drives them all, and the CPU's
 * vector loops are its policy in vector_loop.c.
 */
#include <stdlib.h>
#include <string.h>
#include <isl/set.h>
#include <isl/val.h>
#include <llvm-c/Core.h>
#include <llvm-c/Analysis.h>
#include "diag.h"
#include "codegen/emit_llvm.h"
#include "codegen/llvm_private.h"
#include "codegen/loop_md.h"
#include "codegen/vector_loop.h"

LLVMBasicBlockRef ein_llvm_new_block(struct llvm_emit *e, const char *name)
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
	LLVMValueRef slot = ein_llvm_iter_slot(e, iter, 1);
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
	f->header = ein_llvm_new_block(e, "loop");
	LLVMBuildBr(e->b, f->header);
	LLVMPositionBuilderAtEnd(e->b, f->header);
	return 0;
}

static int for_test(void *user, ein_value cond)
{
	struct llvm_emit *e = user;
	struct block_frame *f = &e->frame[e->n_frame - 1];
	LLVMBasicBlockRef body = ein_llvm_new_block(e, "body");

	f->exit = ein_llvm_new_block(e, "exit");
	LLVMBuildCondBr(e->b, cond, body, f->exit);
	LLVMPositionBuilderAtEnd(e->b, body);
	return 0;
}

static int for_close(void *user, isl_id *iter, ein_value inc)
{
	struct llvm_emit *e = user;
	struct block_frame *f = &e->frame[--e->n_frame];
	LLVMValueRef slot = ein_llvm_iter_slot(e, iter, 0);
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
	then = ein_llvm_new_block(e, "then");
	f->other = ein_llvm_new_block(e, "else");
	f->exit = ein_llvm_new_block(e, "endif");
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

void ein_llvm_add_attr(struct llvm_emit *e, LLVMValueRef fn, unsigned idx,
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
		ein_llvm_add_attr(e, fn, i + 1, "noalias");
		ein_llvm_add_attr(e, fn, i + 1, "nocapture");
	}
	ein_llvm_add_attr(e, fn, LLVMAttributeFunctionIndex, "nounwind");
	return fn;
}

/* Compute the extents of every tensor (buffers included) at the start of
 * the function. */
int ein_llvm_emit_extents(struct llvm_emit *e)
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
	int i, d;

	for (i = 0; i < func->n_tensor; ++i) {
		LLVMValueRef bytes = LLVMSizeOf(ein_llvm_memory_type(e,
			func->tensor[i].type));

		if (!full_temp(e, i))
			continue;
		for (d = 0; d < func->tensor[i].n_dim; ++d)
			bytes = LLVMBuildMul(e->b, bytes, e->extent[i][d], "");
		e->tensor[i] = ein_llvm_call_alloc(e, e->b, "malloc", 1,
			&e->i64, &bytes);
		LLVMSetValueName2(e->tensor[i], func->tensor[i].name,
			strlen(func->tensor[i].name));
		ein_llvm_poison(e, e->b, e->tensor[i], bytes);
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
	ein_llvm_emit_stream_fence(e);
	ein_llvm_emit_buffer_free(e);
}

/* Size "i", passed as "param": the constant when the context fixes it
 * (a kernel specialised to its sizes), so that LLVM sees it also in the
 * outlined parallel bodies, which the runtime calls through a pointer. */
LLVMValueRef ein_llvm_size_value(struct llvm_emit *e, int i,
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
		e->size[i] = ein_llvm_size_value(e, i, p);
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

/* The body "tree" twice, chosen by "test": first the version with the
 * short AVX2 dot products (e->dot4_short; llvm_dot4.c), for inputs whose
 * bytes are below 128 (the 7-bit activations of int8 networks on CPUs
 * without VNNI, as oneDNN's documentation asks for there), then
 * the exact one for any bytes. */
static int walk_dot4_versions(struct llvm_emit *e,
	__isl_keep isl_ast_node *tree, LLVMValueRef test)
{
	LLVMBasicBlockRef bb[2], join;
	int v;

	bb[0] = LLVMAppendBasicBlockInContext(e->c, e->fn, "u7.short");
	bb[1] = LLVMAppendBasicBlockInContext(e->c, e->fn, "u7.long");
	LLVMBuildCondBr(e->b, test, bb[0], bb[1]);
	join = LLVMAppendBasicBlockInContext(e->c, e->fn, "u7.join");
	for (v = 0; v < 2; ++v) {
		LLVMPositionBuilderAtEnd(e->b, bb[v]);
		e->dot4_short = v == 0;
		if (ein_walk_node(e->em, tree) < 0)
			return -1;
		LLVMBuildBr(e->b, join);
	}
	e->dot4_short = 0;
	LLVMPositionBuilderAtEnd(e->b, join);
	return 0;
}

static int emit_kernel(struct llvm_emit *e, __isl_keep isl_ast_node *tree,
	const char *name)
{
	LLVMValueRef test;
	LLVMBasicBlockRef body;

	e->fn = declare_kernel(e, name);
	e->entry = LLVMAppendBasicBlockInContext(e->c, e->fn, "entry");
	body = LLVMAppendBasicBlockInContext(e->c, e->fn, "body");
	LLVMPositionBuilderAtEnd(e->b, e->entry);
	bind_params(e);
	if (ein_llvm_emit_extents(e) < 0)
		return -1;
	emit_temp_alloc(e);
	LLVMBuildBr(e->b, body);
	LLVMPositionBuilderAtEnd(e->b, body);
	test = ein_llvm_dot4_u7_test(e);
	if ((test ? walk_dot4_versions(e, tree, test) :
	     ein_walk_node(e->em, tree)) < 0)
		return -1;
	emit_temp_free(e);
	LLVMBuildRetVoid(e->b);
	emit_entry(e, name);
	return 0;
}

void ein_llvm_emit_clear(struct llvm_emit *e)
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
		.avx512 = target && ein_target_has_avx512(target),
		.vnni = target && ein_target_has_avx512_vnni(target),
		.pmaddwd = target && ein_target_has_avx2(target) };
	struct ein_emitter em = { .user = &e,
		.expr_int = &ein_llvm_expr_int, .expr_id = &ein_llvm_expr_id,
		.expr_op = &ein_llvm_expr_op, .for_open = &for_open,
		.parallel_for = &ein_llvm_parallel_for, .for_test = &for_test,
		.for_close = &for_close, .if_open = &if_open,
		.if_else = &if_else, .if_close = &if_close,
		.user_stmt = &ein_llvm_user_stmt,
		.vector_stmt = &ein_llvm_vector_stmt,
		.stream_start = &ein_llvm_stream_start, .scop = scop,
		.for_loop = &ein_vector_loop };
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
	ein_llvm_emit_clear(&e);
	free(e.u7);
	if (ok == 0 && !relaxed)
		ein_target_mark_strict_fp(e.m);
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
