/*
 * llvm_dot4.c: u8 x s8 dot products of four consecutive elements as
 * VNNI's vpdpbusd, in loops emitted as explicit vectors.
 *
 * The pattern, in a loop vectorised along j (the int8 GEMM micro-kernel
 * of schedules/x86_64-avx512/qgemm_vnni.sched, docs/quantization.md):
 *
 *	C(.., j) += U(u0) * S(s0) + U(u0 + 1) * S(s0 + 1)
 *		+ U(u0 + 2) * S(s0 + 2) + U(u0 + 3) * S(s0 + 3)
 *
 * where C is int32 and contiguous along j, U is uint8 and the same four
 * consecutive bytes in every lane (its last index u0 + q; uniform along
 * j), S is int8 with its four bytes consecutive in its last dimension of
 * extent 4 (s0 + q) and its next-to-last index moving by one along j:
 * the bytes of 16 lanes are then 64 consecutive bytes, the operand of
 * one vpdpbusd (VNNI's layout, as oneDNN packs its int8 weights).  The
 * products may be written in any order, either factor first.
 *
 * vpdpbusd adds, in each 32-bit lane, the four products of unsigned and
 * signed bytes (each within 16 bits, their sum within 18) to the
 * accumulator, wrapping: exactly the int32 sum the statement means, whose
 * additions wrap and so may be regrouped.  Lanes (a power of two) go by
 * 16 (512 bits), 8 or 4 (256 and 128, AVX512VL); a wider vector is cut
 * into 16s.
 *
 * Targets with AVX2 but not AVX512-VNNI get the exact AVX2 form
 * instead: the bytes as 16-bit values (zero-extended for the unsigned,
 * sign-extended for the signed: each product then fits 16 bits, 255 x
 * 128), vpmaddwd (the two products of each pair of 16-bit lanes summed
 * in 32 bits, exactly) on the even and on the odd bytes, the two added
 * (dot4_avx2).  vpmaddubsw, which computes the same with half the
 * multiplies and none of the shifts, saturates the sum of two products
 * to 16 bits (2 x 255 x 127 > 32767), which is not the language's
 * arithmetic -- except where the unsigned bytes are below 128 (2 x 127 x
 * 128 < 2^15), as in oneDNN's and onnxruntime's 7-bit activations for
 * CPUs without VNNI.  So a kernel whose unsigned bytes come from its
 * inputs is emitted twice, and on entry it or's together every byte of
 * those inputs (a pass over them, small beside the products): if none
 * has its high bit set, it runs the version with vpmaddubsw
 * (dot4_avx2_7bit), else the long form (ein_llvm_dot4_u7_test,
 * emit_llvm.c).  The int8 GEMM at 1024^3 on a Zen 3: 0.62x oneDNN's
 * speed with the long form, 0.96x with the short one (docs/quantization.md).
 * Elsewhere the statement is not explicit-vector code (its int8 accesses
 * stride by 4 along j) and LLVM's loop vectoriser takes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Core.h>
#include "codegen/llvm_private.h"
#include "frontend/type.h"
#include "poly/dot4.h"

/* A statement matched: u[q] and s[q], the positions of the uint8 and
 * int8 accesses of product q (their last indices u0 + q, s0 + q). */
struct dot4 {
	int u[4];
	int s[4];
};

/* The position of access "x" among those of "stmt", -1 if none. */
static int access_pos(const struct ein_scop_stmt *stmt,
	const struct ein_ast_expr *x)
{
	const struct ein_scop_access *a = ein_scop_stmt_find_access(stmt, x);

	return a ? (int) (a - stmt->access) : -1;
}

/* Does the statement of "us" sum four products that read consecutive
 * elements (poly/dot4.h, the offsets of the accesses from the polyhedral
 * model)?  Fills "d" with their positions, ordered by offset, if so. */
static int products(struct llvm_emit *e, const struct ein_user_stmt *us,
	struct dot4 *d)
{
	const struct ein_scop_stmt *stmt = us->stmt;
	struct ein_dot4 x;
	long du[4], ds[4];
	int q;

	if (!ein_dot4_match(stmt->rhs, &x))
		return 0;
	for (q = 0; q < 4; ++q) {
		d->u[q] = access_pos(stmt, x.u[q]);
		d->s[q] = access_pos(stmt, x.s[q]);
		if (d->u[q] < 0 || d->s[q] < 0)
			return 0;
	}
	for (q = 0; q < 4; ++q)
		if (!ein_user_stmt_access_delta(e->scop, us, d->u[0], d->u[q],
				&du[q]) ||
		    !ein_user_stmt_access_delta(e->scop, us, d->s[0], d->s[q],
				&ds[q]))
			return 0;
	if (!ein_dot4_order(&x, du, ds))
		return 0;
	for (q = 0; q < 4; ++q) {
		d->u[q] = access_pos(stmt, x.u[q]);
		d->s[q] = access_pos(stmt, x.s[q]);
	}
	return 1;
}

/* Is the extent of the last dimension of tensor or buffer "t" the
 * constant 4? */
static int last_extent_is_4(struct llvm_emit *e, int t)
{
	int n = ein_scop_tensor_n_dim(e->scop, t);
	LLVMValueRef x = n > 0 ? e->extent[t][n - 1] : NULL;

	return x && LLVMIsAConstantInt(x) && LLVMConstIntGetSExtValue(x) == 4;
}

/* Does the int8 access "pos" move by one in its next-to-last dimension
 * along "iter", and nowhere else, with a last dimension of 4 bytes? */
static int s_moves_by_rows(struct llvm_emit *e, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, int pos)
{
	int t = ein_scop_access_get_target(&us->stmt->access[pos]);
	int n = ein_scop_tensor_n_dim(e->scop, t), d;
	long coef[n + 1];

	if (n < 2 || !last_extent_is_4(e, t) ||
	    ein_user_stmt_access_steps(e->scop, us, iter, pos, coef) < 0)
		return 0;
	for (d = 0; d < n; ++d)
		if (coef[d] != (d == n - 2))
			return 0;
	return 1;
}

/* Does the statement of "us" match the pattern along "iter" with vectors
 * of "lanes", on a target with VNNI?  Fills "d" if so. */
static int match(struct llvm_emit *e, const struct ein_user_stmt *us,
	__isl_keep isl_id *iter, int lanes, struct dot4 *d)
{
	const struct ein_scop_stmt *stmt = us->stmt;
	const struct ein_ast_stmt *src;
	int stride[stmt->n_access + 1], q, n_iter = 0;

	while (us->iter[n_iter])
		++n_iter;
	long step[n_iter + 1];

	if ((!e->vnni && !e->pmaddwd) || lanes < 4 || (lanes & (lanes - 1)) ||
	    stmt->kind != EIN_STMT_COMPUTE || stmt->is_init ||
	    ein_llvm_tensor_type(e, stmt->access[0].tensor) != EIN_TYPE_I32)
		return 0;
	src = e->scop->func->stmt[stmt->src].ast;
	if (src->op != EIN_ASSIGN_ADD ||
	    !products(e, us, d))
		return 0;
	if (ein_user_stmt_strides(e->scop, us, iter, stride, step) < 0 ||
	    stride[0] != 1)
		return 0;
	for (q = 0; q < stmt->n_access; ++q)
		if (stmt->access[q].guard)
			return 0;
	return stride[d->u[0]] == 0 && s_moves_by_rows(e, us, iter, d->s[0]);
}

int ein_llvm_dot4_stmt_matches(struct llvm_emit *e,
	const struct ein_user_stmt *us, __isl_keep isl_id *iter, int lanes)
{
	struct dot4 d;

	return match(e, us, iter, lanes, &d);
}

/* A call of the (not overloaded) intrinsic "name" on "n" arguments. */
static LLVMValueRef call_intrinsic(struct llvm_emit *e, const char *name,
	LLVMValueRef *args, int n)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, NULL, 0);
	LLVMTypeRef fty = LLVMIntrinsicGetType(e->c, id, NULL, 0);

	return LLVMBuildCall2(e->b, fty, fn, args, n, "");
}

/* vpdpbusd of "acc", "u" and "s", vectors of n = 4, 8 or 16 i32. */
static LLVMValueRef vpdpbusd(struct llvm_emit *e, int n, LLVMValueRef acc,
	LLVMValueRef u, LLVMValueRef s)
{
	char name[40];
	LLVMValueRef args[3] = { acc, u, s };

	snprintf(name, sizeof(name), "llvm.x86.avx512.vpdpbusd.%d", 32 * n);
	return call_intrinsic(e, name, args, 3);
}

/* vpmaddwd of the 16-bit vectors "u" and "s" of 2n lanes: 256 bits (n
 * = 8) or 128 (n = 4, SSE2's pmaddwd). */
static LLVMValueRef vpmaddwd(struct llvm_emit *e, int n, LLVMValueRef u,
	LLVMValueRef s)
{
	LLVMValueRef args[2] = { u, s };

	return call_intrinsic(e, n == 8 ? "llvm.x86.avx2.pmadd.wd" :
		"llvm.x86.sse2.pmadd.wd", args, 2);
}

/* The 2n-lane vector of i16 "c". */
static LLVMValueRef splat16(struct llvm_emit *e, int n, int c)
{
	LLVMValueRef v[16];
	int l;

	for (l = 0; l < 2 * n; ++l)
		v[l] = LLVMConstInt(LLVMInt16TypeInContext(e->c), c, 0);
	return LLVMConstVector(v, 2 * n);
}

/* The AVX2 form of vpdpbusd on n = 4 or 8 i32 lanes (the head comment),
 * without moving bytes across lanes: each lane's four bytes read as two
 * 16-bit words, whose low bytes (q = 0, 2) and high bytes (q = 1, 3)
 * are taken apart by shifts in place, zero-extended for u (and, shift
 * right), sign-extended for s (shift left, arithmetic shift right); one
 * vpmaddwd of the low bytes gives each lane u0 s0 + u2 s2, one of the
 * high bytes u1 s1 + u3 s3, both in the lane they are added to.  (The
 * bytes widened to 16 bits by vpmovzxbw / vpmovsxbw instead put each
 * lane's pair sums in two lanes, and adding them took shuffles across
 * the vector: the int8 GEMM at 1024^3 ran at 0.27x oneDNN's.)  u is the
 * same in every j lane, so its two halves are computed once per step of
 * the reduction, not per vector of j. */
static LLVMValueRef dot4_avx2(struct llvm_emit *e, int n, LLVMValueRef acc,
	LLVMValueRef u, LLVMValueRef s)
{
	LLVMBuilderRef b = e->b;
	LLVMTypeRef i16v = LLVMVectorType(LLVMInt16TypeInContext(e->c), 2 * n);
	LLVMValueRef eight = splat16(e, n, 8);
	LLVMValueRef uw, sw, ulo, uhi, slo, shi;

	uw = LLVMBuildBitCast(b, u, i16v, "");
	sw = LLVMBuildBitCast(b, s, i16v, "");
	ulo = LLVMBuildAnd(b, uw, splat16(e, n, 0xff), "");
	uhi = LLVMBuildLShr(b, uw, eight, "");
	slo = LLVMBuildAShr(b, LLVMBuildShl(b, sw, eight, ""), eight, "");
	shi = LLVMBuildAShr(b, sw, eight, "");
	acc = LLVMBuildAdd(b, acc, vpmaddwd(e, n, ulo, slo), "");
	return LLVMBuildAdd(b, acc, vpmaddwd(e, n, uhi, shi), "");
}

/* vpmaddubsw of the byte vectors "u" (unsigned) and "s" (signed) of 4n
 * lanes: each 16-bit lane the sum of two products, saturated. */
static LLVMValueRef vpmaddubsw(struct llvm_emit *e, int n, LLVMValueRef u,
	LLVMValueRef s)
{
	LLVMTypeRef i8v = LLVMVectorType(LLVMInt8TypeInContext(e->c), 4 * n);
	LLVMValueRef args[2] = { LLVMBuildBitCast(e->b, u, i8v, ""),
		LLVMBuildBitCast(e->b, s, i8v, "") };

	return call_intrinsic(e, "llvm.x86.avx2.pmadd.ub.sw", args, 2);
}

/* The AVX2 form of vpdpbusd for bytes of "u" below 128: vpmaddubsw (its
 * pair sums at most 2 x 127 x 128 < 2^15 in magnitude: exact), then
 * vpmaddwd by ones adds the two pairs of each lane in 32 bits. */
static LLVMValueRef dot4_avx2_7bit(struct llvm_emit *e, int n,
	LLVMValueRef acc, LLVMValueRef u, LLVMValueRef s)
{
	LLVMValueRef p = vpmaddubsw(e, n, u, s);

	return LLVMBuildAdd(e->b, acc, vpmaddwd(e, n, p, splat16(e, n, 1)),
		"");
}

/* Lanes [lo, lo + n) of vector "v". */
static LLVMValueRef lanes_of(struct llvm_emit *e, LLVMValueRef v, int lo,
	int n)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c);
	LLVMValueRef mask[n];
	int l;

	if (lo == 0 && n == e->lanes)
		return v;
	for (l = 0; l < n; ++l)
		mask[l] = LLVMConstInt(i32, lo + l, 0);
	return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(LLVMTypeOf(v)),
		LLVMConstVector(mask, n), "");
}

/* The vectors "part" of "n" lanes each, joined into one of e->lanes. */
static LLVMValueRef join(struct llvm_emit *e, LLVMValueRef *part, int n)
{
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c);
	int k = e->lanes / n, w, i, l;

	for (w = n; k > 1; w *= 2, k /= 2)
		for (i = 0; i < k / 2; ++i) {
			LLVMValueRef mask[2 * w];

			for (l = 0; l < 2 * w; ++l)
				mask[l] = LLVMConstInt(i32, l, 0);
			part[i] = LLVMBuildShuffleVector(e->b, part[2 * i],
				part[2 * i + 1], LLVMConstVector(mask, 2 * w),
				"");
		}
	return part[0];
}

/* The dot products of "acc", "u" and "s" (e->lanes i32 each) by "f",
 * in pieces of n lanes. */
static LLVMValueRef dot4_by(struct llvm_emit *e, LLVMValueRef (*f)(
	struct llvm_emit *e, int n, LLVMValueRef acc, LLVMValueRef u,
	LLVMValueRef s), int n, LLVMValueRef acc, LLVMValueRef u,
	LLVMValueRef s)
{
	int k = e->lanes / n, i;
	LLVMValueRef part[k];

	for (i = 0; i < k; ++i)
		part[i] = f(e, n, lanes_of(e, acc, i * n, n),
			lanes_of(e, u, i * n, n), lanes_of(e, s, i * n, n));
	return join(e, part, n);
}

LLVMValueRef ein_llvm_dot4_build(struct llvm_emit *e,
	const struct ein_user_stmt *us, LLVMValueRef (*addr)(void *user,
	int pos), void *user, LLVMValueRef acc_addr)
{
	LLVMBuilderRef b = e->b;
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c);
	LLVMTypeRef vty = LLVMVectorType(i32, e->lanes);
	LLVMValueRef ua, sa, u, s, acc;
	struct dot4 d;

	if (!match(e, us, e->vec_iter, e->lanes, &d))
		return NULL;
	ua = addr(user, d.u[0]);
	sa = addr(user, d.s[0]);
	if (!ua || !sa)
		return NULL;
	u = LLVMBuildLoad2(b, i32, ua, "u8x4");
	LLVMSetAlignment(u, 1);
	u = ein_llvm_splat(e, u);
	s = LLVMBuildLoad2(b, vty, sa, "s8x4");
	LLVMSetAlignment(s, 1);
	acc = ein_llvm_load_value(e, acc_addr, EIN_TYPE_I32, 0, "");
	if (e->vnni)
		return dot4_by(e, &vpdpbusd, e->lanes < 16 ? e->lanes : 16,
			acc, u, s);
	if (e->lanes >= 8 && e->dot4_short &&
	    e->u7[us->stmt->access[d.u[0]].tensor])
		return dot4_by(e, &dot4_avx2_7bit, 8, acc, u, s);
	return dot4_by(e, &dot4_avx2, e->lanes < 8 ? e->lanes : 8, acc, u, s);
}

/* ---- 7-bit bytes: where the unsigned bytes are below 128 ---- */

/* Are the values of expression "x" of the definition integers in
 * 0..127 whenever the bytes of the inputs marked in "scan" are (marking
 * the inputs it reads there)?  Literals in range, reads of uint8 tensors
 * whose values are (u7_tensor), either branch of a select, integer
 * conversions of such values and clamps into 0..127 (clamped_u7) are;
 * nothing else is known to be. */
static int u7_expr(const struct ein_func *func, const struct ein_ast_expr *x,
	char *state, char *scan);

/* Are the values of tensor "t" below 128 whenever those of the inputs
 * marked in "scan" are?  An input is, once scanned; a temporary is if
 * every statement writing it assigns (=) such a value; an output is not
 * known to be.  "state": 1 while "t" is being looked at (a cycle is
 * "not known"), 2 once it is known to be. */
static int u7_tensor(const struct ein_func *func, int t, char *state,
	char *scan)
{
	int k, ok = 1;

	if (state[t])
		return state[t] == 2;
	if (func->tensor[t].type != EIN_TYPE_U8 ||
	    func->tensor[t].role == EIN_ROLE_OUTPUT)
		return 0;
	if (func->tensor[t].role == EIN_ROLE_INPUT) {
		scan[t] = 1;
		state[t] = 2;
		return 1;
	}
	state[t] = 1;
	for (k = 0; ok && k < func->n_stmt; ++k) {
		const struct ein_ast_stmt *st = func->stmt[k].ast;

		if (st->lhs->slot != t)
			continue;
		ok = st->op == EIN_ASSIGN_SET && !st->init &&
			u7_expr(func, st->rhs, state, scan);
	}
	state[t] = ok ? 2 : 0;
	return ok;
}

/* Is "x" a literal in 0..127 (a float one below 128)? */
static int u7_literal(const struct ein_ast_expr *x)
{
	double v;

	if (x->kind == EIN_EXPR_INT)
		v = (double) x->ival;
	else if (x->kind == EIN_EXPR_FLOAT)
		v = x->fval;
	else
		return 0;
	return v >= 0 && v < 128;
}

/* Is "x" a clamp(a, lo, hi) whose bounds are literals with 0 <= lo and
 * 0 <= hi < 128?  Its values then lie in 0..hi whatever "a" is: as
 * integers max(a, lo) >= lo >= 0 and then min(., hi) <= hi (llvm_stmt.c's
 * signed selects); as floats maxnum/minnum give lo for a NaN, and the
 * conversion to uint8 truncates into 0..127 (saturating, llvm.fptoui.sat).
 * The quantiser's 7-bit quantisation of a float activation inside a
 * kernel (uint8(clamp(..., 0, 127))) is such. */
static int clamped_u7(const struct ein_ast_expr *x)
{
	return x->kind == EIN_EXPR_CALL && x->fn == EIN_BUILTIN_CLAMP &&
		x->n_arg == 3 && u7_literal(x->args[1]) &&
		u7_literal(x->args[2]);
}

static int u7_expr(const struct ein_func *func, const struct ein_ast_expr *x,
	char *state, char *scan)
{
	switch (x->kind) {
	case EIN_EXPR_INT:
		return u7_literal(x);
	case EIN_EXPR_CALL:
		return clamped_u7(x);
	case EIN_EXPR_ACCESS:
		return u7_tensor(func, x->slot, state, scan);
	case EIN_EXPR_SELECT:
		return u7_expr(func, x->args[1], state, scan) &&
			u7_expr(func, x->args[2], state, scan);
	case EIN_EXPR_CAST:
		return x->type != EIN_TYPE_BOOL &&
			u7_expr(func, x->args[0], state, scan);
	default:
		return 0;
	}
}

/* Mark in e->u7 the uint8 tensors of the definition's four-term dot
 * products whose bytes are below 128 when those of the inputs marked in
 * "scan" are; the number marked. */
static int mark_u7(struct llvm_emit *e, char *scan)
{
	const struct ein_func *func = e->scop->func;
	char state[func->n_tensor + 1];
	struct ein_dot4 x;
	int i, q, n = 0;

	memset(state, 0, sizeof(state));
	for (i = 0; i < e->scop->n_source; ++i) {
		const struct ein_scop_stmt *stmt = &e->scop->stmt[i];

		if (stmt->kind != EIN_STMT_COMPUTE || !stmt->rhs ||
		    !ein_dot4_match(stmt->rhs, &x))
			continue;
		for (q = 0; q < 4; ++q) {
			int t = x.u[q]->slot;

			if (!e->u7[t] && u7_tensor(func, t, state, scan)) {
				e->u7[t] = 1;
				++n;
			}
		}
	}
	return n;
}

/* The number of elements of tensor "t" (i64). */
static LLVMValueRef n_elem(struct llvm_emit *e, int t)
{
	int n = ein_scop_tensor_n_dim(e->scop, t), d;
	LLVMValueRef v = LLVMConstInt(e->i64, 1, 0);

	for (d = 0; d < n; ++d)
		v = LLVMBuildMul(e->b, v, e->extent[t][d], "");
	return v;
}

/* "acc" or'ed with every byte of tensor "t", in a loop that LLVM's
 * vectoriser takes; the builder ends after it. */
static LLVMValueRef or_bytes(struct llvm_emit *e, int t, LLVMValueRef acc)
{
	LLVMBuilderRef b = e->b;
	LLVMTypeRef i8 = LLVMInt8TypeInContext(e->c);
	LLVMValueRef n = n_elem(e, t), zero = LLVMConstInt(e->i64, 0, 0);
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(e->c, e->fn,
		"u7.scan");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->fn,
		"u7.done");
	LLVMValueRef i, a, next, v, out;

	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGT, n, zero, ""), loop,
		done);
	LLVMPositionBuilderAtEnd(b, loop);
	i = LLVMBuildPhi(b, e->i64, "");
	a = LLVMBuildPhi(b, i8, "");
	v = LLVMBuildLoad2(b, i8, LLVMBuildInBoundsGEP2(b, i8, e->tensor[t],
		&i, 1, ""), "");
	next = LLVMBuildOr(b, a, v, "");
	v = LLVMBuildAdd(b, i, LLVMConstInt(e->i64, 1, 0), "");
	LLVMAddIncoming(i, (LLVMValueRef[]) { zero, v },
		(LLVMBasicBlockRef[]) { pre, loop }, 2);
	LLVMAddIncoming(a, (LLVMValueRef[]) { acc, next },
		(LLVMBasicBlockRef[]) { pre, loop }, 2);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, v, n, ""), loop, done);
	LLVMPositionBuilderAtEnd(b, done);
	out = LLVMBuildPhi(b, i8, "");
	LLVMAddIncoming(out, (LLVMValueRef[]) { acc, next },
		(LLVMBasicBlockRef[]) { pre, loop }, 2);
	return out;
}

LLVMValueRef ein_llvm_dot4_u7_test(struct llvm_emit *e)
{
	int n = e->scop->func->n_tensor, t;
	char scan[n + 1];
	LLVMTypeRef i8 = LLVMInt8TypeInContext(e->c);
	LLVMValueRef acc = LLVMConstInt(i8, 0, 0);

	if (e->vnni || !e->pmaddwd)
		return NULL;
	memset(scan, 0, sizeof(scan));
	e->u7 = calloc(e->n_tensor + 1, 1);
	if (!e->u7 || !mark_u7(e, scan)) {
		free(e->u7);
		e->u7 = NULL;
		return NULL;
	}
	for (t = 0; t < n; ++t)
		if (scan[t])
			acc = or_bytes(e, t, acc);
	acc = LLVMBuildAnd(e->b, acc, LLVMConstInt(i8, 0x80, 0), "");
	return LLVMBuildICmp(e->b, LLVMIntEQ, acc, LLVMConstInt(i8, 0, 0),
		"u7");
}
