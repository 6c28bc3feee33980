/*
 * llvm_stmt.c: the bodies of statement instances in LLVM IR: each node of
 * a source expression in the type the type checker gave it
 * (frontend/type.c), reductions, copies and prefetches.
 *
 * In the body of a vectorised loop that vector_loop.c runs as explicit
 * vectors, statements are lowered on vectors of its width: an access that
 * moves along the loop to the next element is one vector load or store
 * at the address of lane 0, an access that stays on one element is a
 * scalar load broadcast to every lane, and every operation applies
 * lane-wise (see ein_llvm_vector_stmt for what qualifies).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include "diag.h"
#include "codegen/llvm_private.h"
#include "codegen/mathfn.h"
#include "frontend/builtin.h"
#include "frontend/type.h"

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
	base = ein_llvm_tensor_base(e, t);
	return LLVMBuildInBoundsGEP2(e->b, ein_llvm_memory_type(e,
		ein_llvm_tensor_type(e, t)), base, &off, 1, "addr");
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
 * saturated to the type's range, NaN giving 0 (never ein_llvm_poison). */
static LLVMValueRef float_to_int(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type to)
{
	LLVMTypeRef ty[2] = { ein_llvm_value_type(e, to), LLVMTypeOf(v) };

	return call_intrinsic(e, to == EIN_TYPE_U8 ? "llvm.fptoui.sat" :
		"llvm.fptosi.sat", 2, ty, 1, &v);
}

/* Convert "v" of type "from" to type "to" (docs/language.md, "Types"). */
static LLVMValueRef convert(struct llvm_emit *e, LLVMValueRef v,
	enum ein_type from, enum ein_type to)
{
	LLVMTypeRef ty = ein_llvm_value_type(e, to);

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
	if (addr && s->stride && s->stride[a - s->us->stmt->access] == 2)
		return ein_llvm_load_every_other(s->e, addr,
			ein_llvm_tensor_type(s->e, a->tensor), x->name);
	return addr ? ein_llvm_load_value(s->e, addr,
		ein_llvm_tensor_type(s->e, a->tensor),
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
	return LLVMBuildNSWAdd(e->b, ein_llvm_splat(e, v),
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
		v = ein_llvm_splat(s->e, s->e->size[x->slot]);
	}
	return v ? LLVMBuildTrunc(s->e->b, v,
		ein_llvm_value_type(s->e, x->vtype), x->name) : NULL;
}

static LLVMValueRef int_select(struct llvm_emit *e, LLVMIntPredicate pred,
	LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, pred, a, b, ""),
		a, b, "");
}

/* The type with the shape of "ty" (a scalar or a vector) and elements
 * of "elem". */
static LLVMTypeRef same_shape(LLVMTypeRef ty, LLVMTypeRef elem)
{
	if (LLVMGetTypeKind(ty) != LLVMVectorTypeKind)
		return elem;
	return LLVMVectorType(elem, LLVMGetVectorSize(ty));
}

/* qmul(x, m, s) on int32 values, as ein_builtin_qmul (builtin.h) computes
 * it: the exact product in 64 bits, its magnitude plus half of 2^s
 * shifted right (unsigned: at most 2^63), the sign put back, saturated. */
static LLVMValueRef lower_qmul(struct llvm_emit *e, LLVMValueRef *a)
{
	LLVMBuilderRef b = e->b;
	LLVMTypeRef t32 = LLVMTypeOf(a[0]);
	LLVMTypeRef t64 = same_shape(t32, LLVMInt64TypeInContext(e->c));
	LLVMValueRef p, neg, u, sh, r;

	p = LLVMBuildMul(b, LLVMBuildSExt(b, a[0], t64, ""),
		LLVMBuildSExt(b, a[1], t64, ""), "");
	neg = LLVMBuildICmp(b, LLVMIntSLT, p, iconst(t64, 0), "");
	u = LLVMBuildSelect(b, neg, LLVMBuildSub(b, iconst(t64, 0), p, ""),
		p, "");
	sh = int_select(e, LLVMIntSGT, a[2], iconst(t32, 0));
	sh = LLVMBuildZExt(b, int_select(e, LLVMIntSLT, sh, iconst(t32, 63)),
		t64, "");
	u = LLVMBuildAdd(b, u, LLVMBuildLShr(b, LLVMBuildShl(b,
		iconst(t64, 1), sh, ""), iconst(t64, 1), ""), "");
	u = LLVMBuildLShr(b, u, sh, "");
	r = LLVMBuildSelect(b, neg, LLVMBuildSub(b, iconst(t64, 0), u, ""),
		u, "");
	r = int_select(e, LLVMIntSGT, r, iconst(t64, INT32_MIN));
	r = int_select(e, LLVMIntSLT, r, iconst(t64, INT32_MAX));
	return LLVMBuildTrunc(b, r, t32, "qmul");
}

/* abs, min, max, clamp and qmul of int32 values; abs(INT32_MIN) wraps. */
static LLVMValueRef lower_int_call(struct llvm_emit *e, enum ein_builtin fn,
	LLVMValueRef *a)
{
	LLVMValueRef zero = iconst(LLVMTypeOf(a[0]), 0), t;

	switch (fn) {
	case EIN_BUILTIN_ABS:
		return int_select(e, LLVMIntSGT, a[0],
			LLVMBuildSub(e->b, zero, a[0], ""));
	case EIN_BUILTIN_MIN:
		return int_select(e, LLVMIntSLT, a[0], a[1]);
	case EIN_BUILTIN_QMUL:
		return lower_qmul(e, a);
	case EIN_BUILTIN_CLAMP:
		t = int_select(e, LLVMIntSGT, a[0], a[1]);
		return int_select(e, LLVMIntSLT, t, a[2]);
	default:
		return int_select(e, LLVMIntSGT, a[0], a[1]);
	}
}

/* exp(v) or erf(v): inline (mathfn.h) unless strict floating point,
 * else LLVM's intrinsic or the C library's function, which become calls
 * to the C library or to libmvec. */
static LLVMValueRef lower_exp_erf(struct llvm_emit *e, enum ein_builtin fn,
	LLVMValueRef v)
{
	if (e->relaxed && ein_mathfn_has(fn, LLVMTypeOf(v)))
		return ein_mathfn_build(e->b, e->m, fn, v, e->avx512);
	if (fn == EIN_BUILTIN_ERF)
		return call_libm(e, ein_builtin_name(fn), v);
	return call_float(e, "llvm.exp", 1, &v);
}

/* The call "x" of a builtin of a floating-point type, on the lowered
 * arguments "a": LLVM's intrinsic where it has one, else the C library's
 * function or mathfn.h's inline expansion. */
static LLVMValueRef lower_float_call(struct llvm_emit *e,
	const struct ein_ast_expr *x, LLVMValueRef *a)
{
	LLVMValueRef one = fconst(LLVMTypeOf(a[0]), 1), t;

	switch (x->fn) {
	case EIN_BUILTIN_RSQRT:
		return LLVMBuildFDiv(e->b, one,
			call_float(e, "llvm.sqrt", 1, a), "");
	case EIN_BUILTIN_SIGMOID:
		t = lower_exp_erf(e, EIN_BUILTIN_EXP,
			LLVMBuildFNeg(e->b, a[0], ""));
		return LLVMBuildFDiv(e->b, one,
			LLVMBuildFAdd(e->b, one, t, ""), "");
	case EIN_BUILTIN_EXP:
	case EIN_BUILTIN_ERF:
		return lower_exp_erf(e, x->fn, a[0]);
	case EIN_BUILTIN_TANH:
		return call_libm(e, "tanh", a[0]);
	case EIN_BUILTIN_ABS:
		return call_float(e, "llvm.fabs", 1, a);
	case EIN_BUILTIN_MIN:
		return call_float(e, "llvm.minnum", 2, a);
	case EIN_BUILTIN_MAX:
		return call_float(e, "llvm.maxnum", 2, a);
	case EIN_BUILTIN_LOG:
		return call_float(e, "llvm.log", 1, a);
	case EIN_BUILTIN_SQRT:
		return call_float(e, "llvm.sqrt", 1, a);
	case EIN_BUILTIN_FLOOR:
		return call_float(e, "llvm.floor", 1, a);
	case EIN_BUILTIN_CEIL:
		return call_float(e, "llvm.ceil", 1, a);
	case EIN_BUILTIN_POW:
		return call_float(e, "llvm.pow", 2, a);
	case EIN_BUILTIN_FMA:
		return call_float(e, "llvm.fma", 3, a);
	case EIN_BUILTIN_CLAMP:
		t = call_float(e, "llvm.maxnum", 2, a);
		return call_float(e, "llvm.minnum", 2,
			(LLVMValueRef[]) { t, a[2] });
	default:
		ein_internal(e->ctx, "unknown function '%s'", x->name);
		return NULL;
	}
}

static LLVMValueRef lower_call(struct stmt_emit *s,
	const struct ein_ast_expr *x)
{
	LLVMValueRef a[3];
	int i;

	for (i = 0; i < x->n_arg && i < 3; ++i)
		if (!(a[i] = lower_as(s, x->args[i], x->vtype)))
			return NULL;
	if (!ein_type_is_float(x->vtype))
		return lower_int_call(s->e, x->fn, a);
	return lower_float_call(s->e, x, a);
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
 * have no guarded access (ein_llvm_vector_stmt), both sides and a select. */
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
	bb[0] = ein_llvm_new_block(e, "sel.t");
	bb[1] = ein_llvm_new_block(e, "sel.f");
	join = ein_llvm_new_block(e, "sel.join");
	LLVMBuildCondBr(e->b, c, bb[0], bb[1]);
	for (i = 0; i < 2; ++i) {
		LLVMPositionBuilderAtEnd(e->b, bb[i]);
		if (!(v[i] = lower_as(s, x->args[1 + i], x->vtype)))
			return NULL;
		bb[i] = LLVMGetInsertBlock(e->b);
		LLVMBuildBr(e->b, join);
	}
	LLVMPositionBuilderAtEnd(e->b, join);
	phi = LLVMBuildPhi(e->b, ein_llvm_value_type(e, x->vtype), "sel");
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
	LLVMTypeRef ty = ein_llvm_value_type(s->e, x->vtype);

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
	LLVMTypeRef ty = ein_llvm_value_type(e, type);
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
		return fused(s, rhs, ein_llvm_load_value(e, addr, type, 0,
			""), 0);
	v = lower_as(s, rhs, ct);
	if (!v)
		return NULL;
	old = convert(e, ein_llvm_load_value(e, addr, type, 0, ""), type, ct);
	v = ein_type_is_float(ct) ? combine_float(e, op, old, v) :
		combine_int(e, op, old, v);
	return convert(e, v, ct, type);
}

/* A copy between a tensor and a buffer: the element as it is in memory. */
static int copy_stmt(struct stmt_emit *s)
{
	struct llvm_emit *e = s->e;
	enum ein_type type = ein_llvm_tensor_type(e,
		s->us->stmt->access[0].tensor);
	LLVMValueRef from = access_addr(s, 1), to = access_addr(s, 0);

	if (!from || !to)
		return -1;
	if (s->stride && s->stride[1] == 2)
		ein_llvm_store_memory(e, ein_llvm_load_every_other(e, from,
			type, ""), type, to);
	else
		ein_llvm_store_memory(e, ein_llvm_load_memory(e, from, type,
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
	int i, ok = x->kind != EIN_EXPR_CALL || !ein_type_is_float(x->vtype);

	if (!ok) {
		enum ein_builtin_vector v = ein_builtin_get(x->fn)->vector;

		ok = v == EIN_BUILTIN_VEC_NATIVE ||
			(v == EIN_BUILTIN_VEC_INLINE && e->relaxed &&
			 x->vtype == EIN_TYPE_F32);
	}
	for (i = 0; ok && i < x->n_arg; ++i)
		ok = fast_vector_calls(e, x->args[i]);
	return ok;
}

/* Set stride[i] to 2 for each read "i" of "us" that ein_user_stmt_strides
 * left at -1 and that moves by two elements of its innermost dimension
 * per iteration along "iter", its other dimensions fixed (a pooling or a
 * convolution of stride 2 vectorised along its output's width): an
 * explicit vector loop loads it as every other element of two vectors
 * (ein_llvm_load_every_other) instead of leaving the loop to LLVM's
 * vectoriser, which inside an accumulated register tile gathered them
 * (max pooling 3x3/2 at 64 x 113^2: 27 vgatherqps per row; issue 23).
 * Not bool, whose registers are not its bytes. */
static int every_other(struct llvm_emit *e, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, int *stride)
{
	const struct ein_scop_stmt *stmt = us->stmt;
	int i, d, n;

	for (i = 0; i < stmt->n_access; ++i) {
		const struct ein_scop_access *a = &stmt->access[i];
		int t = ein_scop_access_get_target(a);

		n = ein_scop_tensor_n_dim(e->scop, t);
		if (stride[i] >= 0 || a->is_write || a->guard || n < 1 ||
		    ein_llvm_tensor_type(e, t) == EIN_TYPE_BOOL)
			continue;
		{
			long coef[n];

			if (ein_user_stmt_access_steps(e->scop, us, iter, i,
					coef) < 0)
				return -1;
			for (d = 0; d + 1 < n && coef[d] == 0; ++d)
				;
			if (d == n - 1 && coef[d] == 2)
				stride[i] = 2;
		}
	}
	return 0;
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
int ein_llvm_vector_stmt(void *user, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, int width)
{
	struct llvm_emit *e = user;
	const struct ein_scop_stmt *stmt = us->stmt;
	int i, stride[stmt->n_access + 1];
	long step[n_iter(us) + 1];

	if (ein_llvm_dot4_stmt_matches(e, us, iter, width))
		return 1;
	if (stmt->kind == EIN_STMT_PREFETCH ||
	    ein_user_stmt_strides(e->scop, us, iter, stride, step) < 0 ||
	    every_other(e, us, iter, stride) < 0)
		return 0;
	for (i = 0; i < stmt->n_access; ++i)
		if (stmt->access[i].guard || stride[i] < 0 ||
		    (stmt->access[i].is_write && stride[i] != 1))
			return 0;
	return stmt->kind != EIN_STMT_COMPUTE || stmt->is_init ||
		(steps_known(stmt->rhs, step) &&
		 fast_vector_calls(e, stmt->rhs));
}

/* The address of access "pos" of the statement of "user", a struct
 * stmt_emit (llvm_dot4.c's callback). */
static LLVMValueRef stmt_addr(void *user, int pos)
{
	return access_addr(user, pos);
}

int ein_llvm_stream_start(void *user, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, ein_value init, int width, ein_value *start)
{
	struct llvm_emit *e = user;
	const struct ein_scop_stmt *stmt = us->stmt;
	struct stmt_emit s = { e, e->em, us, NULL, NULL };
	int t = ein_scop_access_get_target(&stmt->access[0]);
	LLVMValueRef slot, addr;

	if (stmt->kind != EIN_STMT_COMPUTE || ein_scop_get_buffer(e->scop, t))
		return 0;
	slot = ein_llvm_iter_slot(e, iter, 1);
	if (!slot)
		return -1;
	LLVMBuildStore(e->b, init, slot);
	addr = access_addr(&s, 0);
	if (!addr)
		return -1;
	*start = ein_llvm_stream_aligned_from(e, addr,
		ein_llvm_tensor_type(e, stmt->access[0].tensor), width, init);
	return *start != NULL;
}

int ein_llvm_user_stmt(void *user, const struct ein_user_stmt *us)
{
	struct llvm_emit *e = user;
	const struct ein_scop_stmt *stmt = us->stmt;
	const struct ein_ast_stmt *src = e->scop->func->stmt[stmt->src].ast;
	enum ein_type type = ein_llvm_tensor_type(e, stmt->access[0].tensor);
	struct stmt_emit s = { e, e->em, us, NULL, NULL };
	int stride[stmt->n_access + 1];
	long step[n_iter(us) + 1];
	LLVMValueRef v, addr;

	if (e->lanes) {
		if (ein_user_stmt_strides(e->scop, us, e->vec_iter, stride,
				step) < 0 ||
		    every_other(e, us, e->vec_iter, stride) < 0)
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
	if (e->lanes && ein_llvm_dot4_stmt_matches(e, us, e->vec_iter,
			e->lanes))
		v = ein_llvm_dot4_build(e, us, &stmt_addr, &s, addr);
	else if (stmt->is_init)
		v = identity(e, src->op, type);
	else
		v = update(&s, src->op, type, addr, stmt->rhs);
	if (!v)
		return -1;
	ein_llvm_store_value(e, v, type, addr,
		ein_scop_access_get_target(&stmt->access[0]));
	return 0;
}
