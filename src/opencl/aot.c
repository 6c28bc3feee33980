/*
 * aot.c: the host side of OpenCL kernels compiled ahead of time (aot.h):
 * the description runtime/cl_rt.c reads, and the function that hands it
 * to ein_rt_cl_run.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/val.h>
#include "diag.h"
#include "codegen/ast_build.h"
#include "codegen/emit_llvm.h"
#include "frontend/type.h"
#include "opencl/aot.h"

/* The name cl_rt.c gives isl's operation "op", NULL if it has none. */
static const char *op_name(enum isl_ast_expr_op_type op)
{
	switch (op) {
	case isl_ast_expr_op_add: return "+";
	case isl_ast_expr_op_sub: return "-";
	case isl_ast_expr_op_mul: return "*";
	case isl_ast_expr_op_div:
	case isl_ast_expr_op_pdiv_q: return "/";
	case isl_ast_expr_op_fdiv_q: return "fdiv";
	case isl_ast_expr_op_pdiv_r:
	case isl_ast_expr_op_zdiv_r: return "%";
	case isl_ast_expr_op_min: return "min";
	case isl_ast_expr_op_max: return "max";
	case isl_ast_expr_op_minus: return "neg";
	case isl_ast_expr_op_and:
	case isl_ast_expr_op_and_then: return "and";
	case isl_ast_expr_op_or:
	case isl_ast_expr_op_or_else: return "or";
	case isl_ast_expr_op_eq: return "eq";
	case isl_ast_expr_op_le: return "le";
	case isl_ast_expr_op_lt: return "lt";
	case isl_ast_expr_op_ge: return "ge";
	case isl_ast_expr_op_gt: return "gt";
	case isl_ast_expr_op_cond:
	case isl_ast_expr_op_select: return "sel";
	default: return NULL;
	}
}

static int print_expr(FILE *f, const struct ein_scop *scop,
	__isl_keep isl_ast_expr *expr);

/* An identifier: one of the sizes ("$i"), else -1 (a loop iterator). */
static int print_id(FILE *f, const struct ein_scop *scop,
	__isl_keep isl_ast_expr *expr)
{
	isl_id *id = isl_ast_expr_id_get_id(expr);
	const char *name = id ? isl_id_get_name(id) : NULL;
	int i, r = -1;

	for (i = 0; name && i < scop->func->n_size; ++i)
		if (!strcmp(scop->func->size[i], name)) {
			fprintf(f, "$%d", i);
			r = 0;
			break;
		}
	isl_id_free(id);
	return r;
}

static int print_op(FILE *f, const struct ein_scop *scop,
	__isl_keep isl_ast_expr *expr)
{
	const char *name = op_name(isl_ast_expr_op_get_type(expr));
	int i, n = isl_ast_expr_op_get_n_arg(expr), r = 0;

	if (!name || n < 1 || n > 8)
		return -1;
	fprintf(f, "(%s", name);
	for (i = 0; r == 0 && i < n; ++i) {
		isl_ast_expr *arg = isl_ast_expr_op_get_arg(expr, i);

		fputc(' ', f);
		r = arg ? print_expr(f, scop, arg) : -1;
		isl_ast_expr_free(arg);
	}
	fputc(')', f);
	return r;
}

/* Print "expr" in cl_rt.c's prefix form; -1 if it names anything but
 * the sizes or has an operation the host does not compute. */
static int print_expr(FILE *f, const struct ein_scop *scop,
	__isl_keep isl_ast_expr *expr)
{
	isl_val *v;
	int r;

	switch (isl_ast_expr_get_type(expr)) {
	case isl_ast_expr_int:
		v = isl_ast_expr_int_get_val(expr);
		r = v && isl_val_is_int(v) ? 0 : -1;
		if (r == 0)
			fprintf(f, "%ld", isl_val_get_num_si(v));
		isl_val_free(v);
		return r;
	case isl_ast_expr_id:
		return print_id(f, scop, expr);
	case isl_ast_expr_op:
		return print_op(f, scop, expr);
	default:
		return -1;
	}
}

/* The bytes of one element of scop tensor "t". */
static int element_bytes(const struct ein_scop *scop, int t)
{
	switch (ein_scop_tensor_type(scop, t)) {
	case EIN_TYPE_F64: return 8;
	case EIN_TYPE_F32:
	case EIN_TYPE_I32: return 4;
	default: return 1;
	}
}

/* The position of tensor "t" in the signature (the definition's tensors
 * that are not temporaries), -1 for a temporary. */
static int signature_pos(const struct ein_func *func, int t)
{
	int i, pos = 0;

	if (t >= func->n_tensor || func->tensor[t].role == EIN_ROLE_TEMP)
		return -1;
	for (i = 0; i < t; ++i)
		pos += func->tensor[i].role != EIN_ROLE_TEMP;
	return pos;
}

/* "arg SIG ROLE BYTES N_DIM EXTENT...": ROLE 1 for an output, 2 for a
 * constant input (konst), else 0; the extents of a tensor of the
 * signature are its shape, of a temporary the plan's. */
static int print_arg(FILE *f, const struct ein_ocl_plan *plan,
	struct ein_scop *scop, const char *const *konst, int i)
{
	const struct ein_func *func = scop->func;
	int t = plan->arg[i], sig = signature_pos(func, t), d, r = 0;
	int n_dim = sig >= 0 ? func->tensor[t].n_dim : plan->n_dim[t];
	int role = sig < 0 ? 0 : func->tensor[t].role == EIN_ROLE_OUTPUT ? 1 :
		konst && konst[t] ? 2 : 0;

	fprintf(f, "arg %d %d %d %d", sig, role, element_bytes(scop, t),
		n_dim);
	for (d = 0; r == 0 && d < n_dim; ++d) {
		isl_ast_expr *e = sig >= 0 ? ein_ast_build_extent(scop,
			ein_scop_tensor_extent(scop, t, d)) :
			isl_ast_expr_copy(plan->extent[t][d]);

		fputc(' ', f);
		r = e ? print_expr(f, scop, e) : -1;
		isl_ast_expr_free(e);
	}
	fputc('\n', f);
	return r;
}

/* One block dimension of a launch: "INIT CMP BOUND INC" where the host
 * can compute its trip count (as runtime.c's n_groups), else "0 ? 0 0"
 * (the runtime takes 64 groups, which the loop strides over).  A
 * dimension without a loop (isl generated none: it runs once, and the
 * kernel does not guard it) is one group, "0 le 0 1", as in runtime.c;
 * 64 groups would each run all of it. */
static void print_block(FILE *f, const struct ein_scop *scop,
	const struct ein_ocl_launch *l, int d)
{
	char *text = NULL;
	size_t len;
	FILE *g;
	enum isl_ast_expr_op_type op = isl_ast_expr_op_error;
	isl_ast_expr *bound = NULL;
	int r;

	if (!l->cond[d]) {
		fprintf(f, "  0 le 0 1\n");
		return;
	}
	g = open_memstream(&text, &len);
	r = g ? 0 : -1;
	if (r == 0 && isl_ast_expr_get_type(l->cond[d]) == isl_ast_expr_op)
		op = isl_ast_expr_op_get_type(l->cond[d]);
	if (op == isl_ast_expr_op_le || op == isl_ast_expr_op_lt)
		bound = isl_ast_expr_op_get_arg(l->cond[d], 1);
	if (r == 0 && bound) {
		r = print_expr(g, scop, l->init[d]);
		fprintf(g, " %s ", op == isl_ast_expr_op_le ? "le" : "lt");
		r = r < 0 ? r : print_expr(g, scop, bound);
		fputc(' ', g);
		r = r < 0 ? r : print_expr(g, scop, l->inc[d]);
	}
	isl_ast_expr_free(bound);
	if (g && fclose(g) != 0)
		r = -1;
	fprintf(f, "  %s\n", r == 0 && bound && text ? text : "0 ? 0 0");
	free(text);
}

static void print_kernel(FILE *f, const struct ein_scop *scop,
	const struct ein_ocl_launch *l)
{
	int d;

	fprintf(f, "kernel %s %d %d", l->name, l->n_block, l->n_thread);
	for (d = 0; d < EIN_GPU_MAX_DIM; ++d)
		fprintf(f, " %ld", d < l->n_thread ? l->local[d] : 1);
	fputc('\n', f);
	for (d = 0; d < l->n_block; ++d)
		print_block(f, scop, l, d);
}

/* Does "konst" name a tensor of "scop"'s definition? */
static int has_const(const struct ein_scop *scop, const char *const *konst)
{
	int t;

	for (t = 0; konst && t < scop->func->n_tensor; ++t)
		if (konst[t])
			return 1;
	return 0;
}

/* Version 2 of the description marks constant arguments (role 2), which
 * a runtime that reads only version 1 must refuse rather than take for
 * outputs; without constants, the description stays version 1. */
char *ein_ocl_aot_describe(ein_ctx *ctx, const struct ein_ocl_plan *plan,
	struct ein_scop *scop, const char *const *konst)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	int i, r = 0;

	if (!f)
		return NULL;
	fprintf(f, "ein-opencl %d %d %d %d\n", has_const(scop, konst) ? 2 : 1,
		scop->func->n_size, plan->n_arg, plan->n_kernel);
	for (i = 0; r == 0 && i < plan->n_arg; ++i)
		r = print_arg(f, plan, scop, konst, i);
	for (i = 0; r == 0 && i < plan->n_kernel; ++i)
		print_kernel(f, scop, &plan->kernel[i]);
	fprintf(f, "source %zu\n%s", strlen(plan->source), plan->source);
	if (fclose(f) != 0 || r < 0) {
		free(text);
		ein_error(ctx, EIN_ERROR_INTERNAL, "OpenCL: the host cannot "
			"compute a buffer's size from the sizes");
		return NULL;
	}
	return text;
}

/* The declaration of ein_rt_cl_run (runtime/cl_rt.h) in "m". */
static LLVMValueRef declare_run(LLVMModuleRef m, LLVMTypeRef *type)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
	LLVMTypeRef params[5] = { ptr, ptr, ptr, ptr, ptr };
	LLVMValueRef fn;

	*type = LLVMFunctionType(LLVMInt32TypeInContext(c), params, 5, 0);
	fn = LLVMGetNamedFunction(m, "ein_rt_cl_run");
	return fn ? fn : LLVMAddFunction(m, "ein_rt_cl_run", *type);
}

/* A private global of "m" named NAME<suffix> holding "init". */
static LLVMValueRef add_global(LLVMModuleRef m, const char *name,
	const char *suffix, LLVMValueRef init, int constant)
{
	char buf[strlen(name) + strlen(suffix) + 1];
	LLVMValueRef g;

	snprintf(buf, sizeof(buf), "%s%s", name, suffix);
	g = LLVMAddGlobal(m, LLVMTypeOf(init), buf);
	LLVMSetInitializer(g, init);
	LLVMSetGlobalConstant(g, constant);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	return g;
}

/* Store "n" values, param "first" on, into a new stack array of "type";
 * the array. */
static LLVMValueRef store_params(LLVMBuilderRef b, LLVMValueRef fn,
	LLVMTypeRef type, int first, int n)
{
	LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetTypeContext(type));
	LLVMValueRef arr = LLVMBuildArrayAlloca(b, type,
		LLVMConstInt(i64, n ? n : 1, 0), "");
	int i;

	for (i = 0; i < n; ++i) {
		LLVMValueRef idx = LLVMConstInt(i64, i, 0);
		LLVMValueRef p = LLVMBuildGEP2(b, type, arr, &idx, 1, "");

		LLVMBuildStore(b, LLVMGetParam(fn, first + i), p);
	}
	return arr;
}

/* NAME(queue, tensors..., sizes...) calling ein_rt_cl_run, and the
 * empty NAME__entry. */
static void add_functions(LLVMModuleRef m, const struct ein_func *func,
	LLVMValueRef desc, LLVMValueRef state)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(c), run_type, type;
	int n_sig = 0, n = func->n_size, i;
	LLVMValueRef run = declare_run(m, &run_type), fn, args[5];
	const char *name = func->def->name;
	char entry[strlen(name) + sizeof(EIN_ENTRY_SUFFIX)];
	LLVMBuilderRef b = LLVMCreateBuilderInContext(c);

	for (i = 0; i < func->n_tensor; ++i)
		n_sig += func->tensor[i].role != EIN_ROLE_TEMP;
	{
		LLVMTypeRef params[1 + n_sig + n + 1];

		params[0] = ptr;
		for (i = 0; i < n_sig; ++i)
			params[1 + i] = ptr;
		for (i = 0; i < n; ++i)
			params[1 + n_sig + i] = i64;
		type = LLVMFunctionType(LLVMInt32TypeInContext(c), params,
			1 + n_sig + n, 0);
	}
	fn = LLVMAddFunction(m, name, type);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, fn,
		"entry"));
	args[0] = desc;
	args[1] = state;
	args[2] = store_params(b, fn, ptr, 1, n_sig);
	args[3] = store_params(b, fn, i64, 1 + n_sig, n);
	args[4] = LLVMGetParam(fn, 0);
	LLVMBuildRet(b, LLVMBuildCall2(b, run_type, run, args, 5, ""));
	snprintf(entry, sizeof(entry), "%s%s", name, EIN_ENTRY_SUFFIX);
	fn = LLVMAddFunction(m, entry, LLVMFunctionType(
		LLVMVoidTypeInContext(c), NULL, 0, 0));
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, fn,
		"entry"));
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
}

LLVMModuleRef ein_ocl_aot_module(ein_ctx *ctx, LLVMContextRef c,
	const struct ein_ocl_plan *plan, struct ein_scop *scop,
	const char *const *konst)
{
	const char *name = scop->func->def->name;
	char *text = ein_ocl_aot_describe(ctx, plan, scop, konst);
	LLVMModuleRef m;
	LLVMValueRef desc, state;

	if (!text)
		return NULL;
	m = LLVMModuleCreateWithNameInContext(name, c);
	desc = add_global(m, name, "__cl_desc", LLVMConstStringInContext(c,
		text, strlen(text), 0), 1);
	state = add_global(m, name, "__cl_state", LLVMConstPointerNull(
		LLVMPointerTypeInContext(c, 0)), 0);
	free(text);
	add_functions(m, scop->func, desc, state);
	return m;
}
