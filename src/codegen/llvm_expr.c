/*
 * llvm_expr.c: the integer expressions of isl's AST (loop bounds, indices,
 * conditions, extents) in LLVM IR, as i64 values: the LLVM emitter's
 * callbacks for the walker's expression lowering (walk.h).  Iterators
 * live in allocas of the function's entry block.
 */
#include <stdlib.h>
#include <llvm-c/Core.h>
#include "diag.h"
#include "codegen/llvm_private.h"

LLVMValueRef ein_llvm_iter_slot(struct llvm_emit *e, isl_id *id, int create)
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

ein_value ein_llvm_expr_int(void *user, long v)
{
	struct llvm_emit *e = user;

	return LLVMConstInt(e->i64, (unsigned long long) v, 1);
}

ein_value ein_llvm_expr_id(void *user, isl_id *id)
{
	struct llvm_emit *e = user;
	LLVMValueRef slot = ein_llvm_iter_slot(e, id, 0);
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

ein_value ein_llvm_expr_op(void *user, enum isl_ast_expr_op_type op, int n,
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
