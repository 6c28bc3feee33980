/*
 * wrap.c: the checked C wrapper of a kernel compiled ahead of time.
 *
 * The check of the sizes is an isl set (ein_wrap_valid_sizes) turned into
 * an isl AST expression and lowered to LLVM IR through the shared walker,
 * with a tiny expression-only emitter: the sizes a kernel accepts are
 * exactly those for which every tensor has a shape, which is what the JIT
 * path checks with ein_func_eval_shape before each call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/ast_build.h>
#include <llvm-c/Analysis.h>
#include "ctx.h"
#include "diag.h"
#include "codegen/emit_llvm.h"
#include "codegen/walk.h"
#include "codegen/wrap.h"
#include "driver/options.h"
#include "poly/specialize.h"

/* The suffix of the kernel's name once the wrapper has taken it. */
#define KERNEL_SUFFIX "__kernel"

/* The sizes where tensor "t" has a shape of extents at least 1. */
static __isl_give isl_set *tensor_valid(const struct ein_tensor *t,
	__isl_take isl_set *valid)
{
	int d;

	for (d = 0; t->shape && d < t->n_dim; ++d) {
		isl_pw_aff *pa = isl_pw_aff_copy(t->shape[d]);
		isl_set *pos = isl_pw_aff_pos_set(pa);

		valid = isl_set_intersect(valid, pos);
	}
	return valid;
}

__isl_give isl_set *ein_wrap_valid_sizes(ein_ctx *ctx,
	const struct ein_func *func)
{
	isl_set *valid = isl_set_copy(func->context);
	int i;

	for (i = 0; i < func->n_tensor; ++i)
		valid = tensor_valid(&func->tensor[i], valid);
	valid = isl_set_coalesce(valid);
	if (!valid)
		ein_internal(ctx, "cannot compute the valid sizes of '%s'",
			func->def->name);
	return valid;
}

__isl_give isl_set *ein_wrap_fix_sizes(ein_ctx *ctx,
	const struct ein_func *func, __isl_keep isl_set *valid,
	const int64_t *value)
{
	isl_set *set = isl_set_universe(isl_set_get_space(valid));
	isl_set *left;
	isl_bool empty;
	int i;

	for (i = 0; i < func->n_size; ++i)
		if (value[i] > 0)
			set = ein_specialize_fix(set, isl_dim_param, i,
				value[i]);
	left = isl_set_intersect(isl_set_copy(valid), isl_set_copy(set));
	empty = isl_set_is_empty(left);
	isl_set_free(left);
	if (empty == isl_bool_true)
		ein_error(ctx, EIN_ERROR_SHAPE, "the fixed sizes give a tensor "
			"of '%s' no shape (an extent below 1)",
			func->def->name);
	if (empty != isl_bool_false)
		return isl_set_free(set);
	return set;
}

/* The state of the wrapper's emission.
 * ctx: for errors; b: the builder; i64: the size type;
 * func: the definition; size: the value of each size (an argument of the
 *	wrapper or a constant). */
struct wrap_emit {
	ein_ctx *ctx;
	LLVMBuilderRef b;
	LLVMTypeRef i64;
	const struct ein_func *func;
	LLVMValueRef *size;
};

static ein_value expr_int(void *user, long v)
{
	struct wrap_emit *w = user;

	return LLVMConstInt(w->i64, (unsigned long long) v, 1);
}

static ein_value expr_id(void *user, __isl_keep isl_id *id)
{
	struct wrap_emit *w = user;
	int pos = ein_func_find_size(w->func, isl_id_get_name(id));

	if (pos >= 0)
		return w->size[pos];
	ein_internal(w->ctx, "unknown size '%s' in a size check",
		isl_id_get_name(id));
	return NULL;
}

/* "v" as an i1: isl writes "true" as the integer 1. */
static LLVMValueRef to_bool(struct wrap_emit *w, LLVMValueRef v)
{
	if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 1)
		return v;
	return LLVMBuildICmp(w->b, LLVMIntNE, v, LLVMConstInt(w->i64, 0, 0),
		"");
}

/* floor(a / b) for b > 0. */
static LLVMValueRef floor_div(struct wrap_emit *w, LLVMValueRef a,
	LLVMValueRef b)
{
	LLVMValueRef q = LLVMBuildSDiv(w->b, a, b, "");
	LLVMValueRef r = LLVMBuildSRem(w->b, a, b, "");
	LLVMValueRef neg = LLVMBuildICmp(w->b, LLVMIntSLT, r,
		LLVMConstInt(w->i64, 0, 0), "");

	return LLVMBuildSub(w->b, q, LLVMBuildZExt(w->b, neg, w->i64, ""), "");
}

static LLVMValueRef cmp(struct wrap_emit *w, LLVMIntPredicate pred,
	LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildICmp(w->b, pred, a, b, "");
}

static LLVMValueRef min_max(struct wrap_emit *w, LLVMIntPredicate pred,
	int n, LLVMValueRef *a)
{
	LLVMValueRef v = a[0];
	int i;

	for (i = 1; i < n; ++i)
		v = LLVMBuildSelect(w->b, cmp(w, pred, v, a[i]), v, a[i], "");
	return v;
}

/* The operations of isl's expressions over sizes, in wrapping i64
 * arithmetic (the wrapper must not let an absurd size be undefined
 * behaviour). */
static ein_value expr_op(void *user, enum isl_ast_expr_op_type op, int n,
	ein_value *args)
{
	struct wrap_emit *w = user;
	LLVMValueRef *a = (LLVMValueRef *) args;

	switch (op) {
	case isl_ast_expr_op_and:
	case isl_ast_expr_op_and_then:
		return LLVMBuildAnd(w->b, to_bool(w, a[0]), to_bool(w, a[1]), "");
	case isl_ast_expr_op_or:
	case isl_ast_expr_op_or_else:
		return LLVMBuildOr(w->b, to_bool(w, a[0]), to_bool(w, a[1]), "");
	case isl_ast_expr_op_max: return min_max(w, LLVMIntSGT, n, a);
	case isl_ast_expr_op_min: return min_max(w, LLVMIntSLT, n, a);
	case isl_ast_expr_op_minus: return LLVMBuildNeg(w->b, a[0], "");
	case isl_ast_expr_op_add: return LLVMBuildAdd(w->b, a[0], a[1], "");
	case isl_ast_expr_op_sub: return LLVMBuildSub(w->b, a[0], a[1], "");
	case isl_ast_expr_op_mul: return LLVMBuildMul(w->b, a[0], a[1], "");
	case isl_ast_expr_op_div:
	case isl_ast_expr_op_pdiv_q:
		return LLVMBuildSDiv(w->b, a[0], a[1], "");
	case isl_ast_expr_op_fdiv_q: return floor_div(w, a[0], a[1]);
	case isl_ast_expr_op_pdiv_r:
	case isl_ast_expr_op_zdiv_r:
		return LLVMBuildSRem(w->b, a[0], a[1], "");
	case isl_ast_expr_op_cond:
	case isl_ast_expr_op_select:
		return LLVMBuildSelect(w->b, to_bool(w, a[0]), a[1], a[2], "");
	case isl_ast_expr_op_eq: return cmp(w, LLVMIntEQ, a[0], a[1]);
	case isl_ast_expr_op_le: return cmp(w, LLVMIntSLE, a[0], a[1]);
	case isl_ast_expr_op_lt: return cmp(w, LLVMIntSLT, a[0], a[1]);
	case isl_ast_expr_op_ge: return cmp(w, LLVMIntSGE, a[0], a[1]);
	case isl_ast_expr_op_gt: return cmp(w, LLVMIntSGT, a[0], a[1]);
	default:
		ein_internal(w->ctx, "unexpected operation %d in a size check",
			op);
		return NULL;
	}
}

/* The i1 that holds when the sizes are valid: spec->valid with the fixed
 * sizes substituted, as an isl AST expression lowered by the walker. */
static LLVMValueRef emit_size_check(struct wrap_emit *w,
	const struct ein_wrap_spec *spec)
{
	struct ein_emitter em = { .user = w, .expr_int = &expr_int,
		.expr_id = &expr_id, .expr_op = &expr_op };
	isl_set *valid = isl_set_copy(spec->valid);
	isl_ast_build *build;
	isl_ast_expr *expr;
	LLVMValueRef v;
	int i;

	for (i = 0; i < w->func->n_size; ++i)
		if (spec->fixed[i])
			valid = ein_specialize_fix(valid, isl_dim_param, i,
				spec->value[i]);
	build = isl_ast_build_from_context(isl_set_universe(
		isl_set_get_space(valid)));
	expr = isl_ast_build_expr_from_set(build, valid);
	isl_ast_build_free(build);
	v = expr ? ein_walk_expr(&em, expr) : NULL;
	isl_ast_expr_free(expr);
	return v ? to_bool(w, v) : NULL;
}

/* The wrapper's type: the queue if "queue", the tensors not in globals,
 * then the free sizes. */
static LLVMTypeRef wrapper_type(LLVMContextRef c,
	const struct ein_wrap_spec *spec, int queue)
{
	const struct ein_func *func = spec->func;
	LLVMTypeRef params[func->n_tensor + func->n_size + 2];
	int i, n = 0;

	if (queue)
		params[n++] = LLVMPointerTypeInContext(c, 0);
	for (i = 0; i < func->n_tensor; ++i)
		if (func->tensor[i].role != EIN_ROLE_TEMP && !spec->konst[i])
			params[n++] = LLVMPointerTypeInContext(c, 0);
	for (i = 0; i < func->n_size; ++i)
		if (!spec->fixed[i])
			params[n++] = LLVMInt64TypeInContext(c);
	return LLVMFunctionType(LLVMInt32TypeInContext(c), params, n, 0);
}

/* Declare the global of constant tensor "i": an external array of bytes
 * until the caller gives it its data.  Both wrappers of an OpenCL kernel
 * (NAME and NAME_cl) pass the one global. */
static LLVMValueRef declare_const(LLVMModuleRef m,
	const struct ein_wrap_spec *spec, int i)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMTypeRef ty = LLVMArrayType(LLVMInt8TypeInContext(c),
		spec->const_bytes[i]);
	LLVMValueRef g = LLVMGetNamedGlobal(m, spec->konst[i]);

	if (g)
		return g;
	g = LLVMAddGlobal(m, ty, spec->konst[i]);

	LLVMSetGlobalConstant(g, 1);
	LLVMSetAlignment(g, 64);
	return g;
}

/* Return "code" from the wrapper unless "ok" holds; continue in a new
 * block. */
static void return_unless(struct wrap_emit *w, LLVMValueRef fn,
	LLVMValueRef ok, int code)
{
	LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(c, fn, "fail");
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c, fn, "ok");

	LLVMBuildCondBr(w->b, ok, next, fail);
	LLVMPositionBuilderAtEnd(w->b, fail);
	LLVMBuildRet(w->b, LLVMConstInt(LLVMInt32TypeInContext(c), code, 0));
	LLVMPositionBuilderAtEnd(w->b, next);
}

/* The arguments of the kernel, from the wrapper's: the queue (the
 * wrapper's first if "queue", else NULL) for a kernel that takes one,
 * tensors (or their globals), then sizes (or their values); each pointer
 * checked. */
static int kernel_args(struct wrap_emit *w, LLVMModuleRef m,
	LLVMValueRef fn, const struct ein_wrap_spec *spec, int queue,
	LLVMValueRef *args)
{
	const struct ein_func *func = spec->func;
	int i, k = queue, n = 0;

	if (spec->queue)
		args[n++] = queue ? LLVMGetParam(fn, 0) : LLVMConstPointerNull(
			LLVMPointerTypeInContext(LLVMGetModuleContext(m), 0));
	/* A NULL queue would mean host arrays to the kernel. */
	if (queue)
		return_unless(w, fn, LLVMBuildIsNotNull(w->b, args[0], ""),
			EIN_WRAP_ERROR_NULL);
	for (i = 0; i < func->n_tensor; ++i) {
		if (func->tensor[i].role == EIN_ROLE_TEMP)
			continue;
		if (spec->konst[i]) {
			args[n++] = declare_const(m, spec, i);
			continue;
		}
		args[n] = LLVMGetParam(fn, k++);
		LLVMSetValueName2(args[n], func->tensor[i].name,
			strlen(func->tensor[i].name));
		return_unless(w, fn, LLVMBuildIsNotNull(w->b, args[n], ""),
			EIN_WRAP_ERROR_NULL);
		n++;
	}
	for (i = 0; i < func->n_size; ++i) {
		if (spec->fixed[i]) {
			w->size[i] = LLVMConstInt(w->i64, spec->value[i], 1);
		} else {
			w->size[i] = LLVMGetParam(fn, k++);
			LLVMSetValueName2(w->size[i], func->size[i],
				strlen(func->size[i]));
		}
		args[n++] = w->size[i];
	}
	return n;
}

/* Give the kernel "NAME" the name NAME__kernel, make it internal (so that
 * the optimiser may inline it into the wrapper and propagate the fixed
 * sizes) and delete NAME__entry. */
static LLVMValueRef hide_kernel(ein_ctx *ctx, LLVMModuleRef m,
	const char *name)
{
	char buf[strlen(name) + sizeof(KERNEL_SUFFIX) + sizeof(EIN_ENTRY_SUFFIX)];
	LLVMValueRef kernel = LLVMGetNamedFunction(m, name), entry;

	snprintf(buf, sizeof(buf), "%s%s", name, EIN_ENTRY_SUFFIX);
	entry = LLVMGetNamedFunction(m, buf);
	if (!kernel || !entry) {
		ein_internal(ctx, "no kernel '%s' in the module", name);
		return NULL;
	}
	LLVMDeleteFunction(entry);
	snprintf(buf, sizeof(buf), "%s%s", name, KERNEL_SUFFIX);
	LLVMSetValueName2(kernel, buf, strlen(buf));
	LLVMSetLinkage(kernel, LLVMInternalLinkage);
	return kernel;
}

static int verify(ein_ctx *ctx, LLVMModuleRef m)
{
	char *msg = NULL;
	int bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);

	if (bad)
		ein_internal(ctx, "invalid wrapper IR: %s", msg ? msg : "?");
	LLVMDisposeMessage(msg);
	return bad ? -1 : 0;
}

/* The wrapper "name" of "kernel", taking a queue first if "queue".  A
 * kernel that takes a queue returns the wrapper's status itself. */
static int add_wrapper(ein_ctx *ctx, LLVMModuleRef m,
	const struct ein_wrap_spec *spec, LLVMValueRef kernel,
	const char *name, int queue)
{
	const struct ein_func *func = spec->func;
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMValueRef args[func->n_tensor + func->n_size + 2];
	LLVMValueRef size[func->n_size + 1], fn, ok, status;
	struct wrap_emit w = { ctx, NULL, LLVMInt64TypeInContext(c), func,
		size };
	int n;

	fn = LLVMAddFunction(m, name, wrapper_type(c, spec, queue));
	w.b = LLVMCreateBuilderInContext(c);
	LLVMPositionBuilderAtEnd(w.b, LLVMAppendBasicBlockInContext(c, fn,
		"entry"));
	n = kernel_args(&w, m, fn, spec, queue, args);
	ok = emit_size_check(&w, spec);
	if (ok) {
		return_unless(&w, fn, ok, EIN_WRAP_ERROR_SIZE);
		status = LLVMBuildCall2(w.b, LLVMGlobalGetValueType(kernel),
			kernel, args, n, "");
		LLVMBuildRet(w.b, spec->queue ? status : LLVMConstInt(
			LLVMInt32TypeInContext(c), 0, 0));
	}
	LLVMDisposeBuilder(w.b);
	return ok ? 0 : -1;
}

int ein_wrap_kernel(ein_ctx *ctx, LLVMModuleRef m,
	const struct ein_wrap_spec *spec)
{
	const char *name = spec->func->def->name;
	LLVMValueRef kernel = hide_kernel(ctx, m, name);
	char cl_name[strlen(name) + 4];

	if (!kernel || add_wrapper(ctx, m, spec, kernel, name, 0) < 0)
		return -1;
	snprintf(cl_name, sizeof(cl_name), "%s_cl", name);
	if (spec->queue && add_wrapper(ctx, m, spec, kernel, cl_name, 1) < 0)
		return -1;
	return verify(ctx, m);
}

int ein_wrap_options_sizes(ein_ctx *ctx, const struct ein_func *func,
	const ein_options *opts, int64_t *fixed, __isl_give isl_set **sizes)
{
	isl_set *valid;
	int i, n = 0;

	*sizes = NULL;
	for (i = 0; i < func->n_size; ++i)
		if ((fixed[i] = ein_options_fixed_value(opts,
				func->size[i])) > 0)
			n++;
	if (n == 0)
		return 0;
	valid = ein_wrap_valid_sizes(ctx, func);
	*sizes = valid ? ein_wrap_fix_sizes(ctx, func, valid, fixed) : NULL;
	isl_set_free(valid);
	return *sizes ? 0 : -1;
}
