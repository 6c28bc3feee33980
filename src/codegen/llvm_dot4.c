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
 * (dot4_avx2).  Not vpmaddubsw, which would save a vpmaddwd: it
 * saturates the sum of two products to 16 bits (2 x 255 x 127 > 32767),
 * not the language's arithmetic.  Elsewhere the statement is not
 * explicit-vector code (its int8 accesses stride by 4 along j) and
 * LLVM's loop vectoriser takes it.
 */
#include <stdio.h>
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

/* vpdpbusd of "acc", "u" and "s", vectors of n = 4, 8 or 16 i32. */
static LLVMValueRef vpdpbusd(struct llvm_emit *e, int n, LLVMValueRef acc,
	LLVMValueRef u, LLVMValueRef s)
{
	char name[40];
	unsigned id;
	LLVMValueRef fn, args[3] = { acc, u, s };
	LLVMTypeRef fty;

	snprintf(name, sizeof(name), "llvm.x86.avx512.vpdpbusd.%d", 32 * n);
	id = LLVMLookupIntrinsicID(name, strlen(name));
	fn = LLVMGetIntrinsicDeclaration(e->m, id, NULL, 0);
	fty = LLVMIntrinsicGetType(e->c, id, NULL, 0);
	return LLVMBuildCall2(e->b, fty, fn, args, 3, "");
}

/* vpmaddwd of the 16-bit vectors "u" and "s" of 2n lanes: 256 bits (n
 * = 8) or 128 (n = 4, SSE2's pmaddwd). */
static LLVMValueRef vpmaddwd(struct llvm_emit *e, int n, LLVMValueRef u,
	LLVMValueRef s)
{
	const char *name = n == 8 ? "llvm.x86.avx2.pmadd.wd" :
		"llvm.x86.sse2.pmadd.wd";
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, NULL, 0);
	LLVMTypeRef fty = LLVMIntrinsicGetType(e->c, id, NULL, 0);
	LLVMValueRef args[2] = { u, s };

	return LLVMBuildCall2(e->b, fty, fn, args, 2, "");
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

LLVMValueRef ein_llvm_dot4_build(struct llvm_emit *e,
	const struct ein_user_stmt *us, LLVMValueRef (*addr)(void *user,
	int pos), void *user, LLVMValueRef acc_addr)
{
	LLVMBuilderRef b = e->b;
	LLVMTypeRef i32 = LLVMInt32TypeInContext(e->c);
	LLVMTypeRef vty = LLVMVectorType(i32, e->lanes);
	int w = e->vnni ? 16 : 8;
	int n = e->lanes < w ? e->lanes : w, k = e->lanes / n, i;
	LLVMValueRef ua, sa, u, s, acc, part[k];
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
	for (i = 0; i < k; ++i)
		part[i] = (e->vnni ? vpdpbusd : dot4_avx2)(e, n,
			lanes_of(e, acc, i * n, n), lanes_of(e, u, i * n, n),
			lanes_of(e, s, i * n, n));
	return join(e, part, n);
}
