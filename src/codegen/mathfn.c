/*
 * mathfn.c: inline float32 exp and erf (mathfn.h).
 *
 * Both are branch-free: clamps, a polynomial or rational function in
 * Horner form with fused multiply-adds (llvm.fmuladd: one rounding where
 * the target has FMA), and integer operations on the bits of floats, so
 * that a vectorised loop computes them in its vector registers.  A NaN
 * argument gives NaN: the clamps are selects that keep it (one maxps and
 * one minps on x86-64; llvm.maxnum would return the bound and cost a
 * compare and a blend more), it stays NaN through the arithmetic, and
 * exp takes its integer from the bits of a float (never a conversion of
 * NaN, which would be poison).
 */
#include <string.h>
#include "mathfn.h"

/* Call intrinsic "name" overloaded on the type of its first argument. */
static LLVMValueRef call(LLVMBuilderRef b, LLVMModuleRef m, const char *name,
	int n, LLVMValueRef *args)
{
	LLVMTypeRef ty = LLVMTypeOf(args[0]);
	LLVMContextRef c = LLVMGetModuleContext(m);
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, &ty, 1);

	return LLVMBuildCall2(b, LLVMIntrinsicGetType(c, id, &ty, 1), fn,
		args, n, "");
}

static LLVMValueRef fmuladd(LLVMBuilderRef b, LLVMModuleRef m,
	LLVMValueRef x, LLVMValueRef y, LLVMValueRef z)
{
	return call(b, m, "llvm.fmuladd", 3, (LLVMValueRef[]) { x, y, z });
}

/* "lane" in every lane of vector type "ty", or "lane" itself if "ty" is
 * not a vector type. */
static LLVMValueRef splat(LLVMTypeRef ty, LLVMValueRef lane)
{
	int i, n = LLVMGetTypeKind(ty) == LLVMVectorTypeKind ?
		(int) LLVMGetVectorSize(ty) : 0;
	LLVMValueRef lanes[n > 0 ? n : 1];

	for (i = 0; i < n; ++i)
		lanes[i] = lane;
	return n ? LLVMConstVector(lanes, n) : lane;
}

/* The element type of "ty" if it is a vector type, else "ty". */
static LLVMTypeRef scalar_of(LLVMTypeRef ty)
{
	return LLVMGetTypeKind(ty) == LLVMVectorTypeKind ?
		LLVMGetElementType(ty) : ty;
}

LLVMValueRef ein_mathfn_real(LLVMTypeRef ty, double v)
{
	return splat(ty, LLVMConstReal(scalar_of(ty), v));
}

LLVMValueRef ein_mathfn_int(LLVMTypeRef ty, long long v)
{
	return splat(ty, LLVMConstInt(scalar_of(ty), (unsigned long long) v,
		1));
}

/* "elem" with as many lanes as "like" has, if it is a vector. */
static LLVMTypeRef shaped(LLVMTypeRef elem, LLVMTypeRef like)
{
	if (LLVMGetTypeKind(like) != LLVMVectorTypeKind)
		return elem;
	return LLVMVectorType(elem, LLVMGetVectorSize(like));
}

/* x clamped to [lo, hi]; a NaN x stays NaN (both compares are false). */
static LLVMValueRef clamp(LLVMBuilderRef b, LLVMValueRef x, double lo,
	double hi)
{
	LLVMValueRef l = ein_mathfn_real(LLVMTypeOf(x), lo);
	LLVMValueRef h = ein_mathfn_real(LLVMTypeOf(x), hi);

	x = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, l, x, ""), l, x,
		"");
	return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, h, x, ""), h,
		x, "");
}

/* The polynomial c[0] + c[1] x + ... + c[n - 1] x^(n-1), by Horner's rule. */
static LLVMValueRef horner(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef x,
	const double *c, int n)
{
	LLVMTypeRef ty = LLVMTypeOf(x);
	LLVMValueRef p = ein_mathfn_real(ty, c[n - 1]);

	while (--n > 0)
		p = fmuladd(b, m, p, x, ein_mathfn_real(ty, c[n - 1]));
	return p;
}

/* 2^k for an int32 k in [-126, 127], as float32: k + 127 in the exponent
 * field. */
static LLVMValueRef pow2(LLVMBuilderRef b, LLVMValueRef k)
{
	LLVMTypeRef i32 = LLVMTypeOf(k);
	LLVMValueRef e = LLVMBuildAdd(b, k, ein_mathfn_int(i32, 127), "");

	e = LLVMBuildShl(b, e, ein_mathfn_int(i32, 23), "");
	return LLVMBuildBitCast(b, e, shaped(LLVMFloatTypeInContext(
		LLVMGetTypeContext(i32)), i32), "");
}

/* p * 2^n for 16 floats p and integers n, in one rounding: AVX-512's
 * vscalefps (all lanes, the current rounding mode), which replaces the
 * two-factor scaling of build_exp: 11 operations per vector, a tenth of
 * softmax's time on one thread. */
static LLVMValueRef scalef(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef p,
	LLVMValueRef n)
{
	static const char name[] = "llvm.x86.avx512.mask.scalef.ps.512";
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMTypeRef ty = LLVMTypeOf(p);
	LLVMTypeRef i16 = LLVMInt16TypeInContext(c);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
	LLVMTypeRef fty = LLVMFunctionType(ty,
		(LLVMTypeRef[]) { ty, ty, ty, i16, i32 }, 5, 0);
	LLVMValueRef fn = LLVMGetNamedFunction(m, name);
	LLVMValueRef args[5] = { p, n, LLVMGetUndef(ty),
		LLVMConstInt(i16, 0xffff, 0), LLVMConstInt(i32, 4, 0) };

	if (!fn)
		fn = LLVMAddFunction(m, name, fty);
	return LLVMBuildCall2(b, fty, fn, args, 5, "");
}

/* exp(x) = 2^n e^r with n = rint(x / ln 2) and r = x - n ln 2, |r| <=
 * ln 2 / 2.  n comes from adding 1.5 * 2^23 to x / ln 2: the sum t is
 * rounded to an integer (float32's unit there is 1), n = t - 1.5 * 2^23
 * exactly, and n is also the difference of the bits of t and of 1.5 *
 * 2^23 as integers.  r is computed in two steps (Cody and Waite): ln 2's
 * high part has 15 significant bits, so n ln2_hi is exact for |n| < 2^9.
 * e^r is its Taylor polynomial of degree 7, whose truncation error,
 * |r|^8 / 8! < 6e-9, is a tenth of float32's half unit.  2^n is applied in
 * two factors 2^(n/2) and 2^(n - n/2), each a normal float32, so that
 * results that are subnormal (x < -87.3) or infinite (x > 88.7) come out
 * of the multiplication rounded as they should (or in one step with
 * AVX-512: scalef); x is first clamped to [-104, 88.8], beyond which the
 * result is 0 or infinity anyway. */
static LLVMValueRef build_exp(LLVMBuilderRef b, LLVMModuleRef m,
	LLVMValueRef x, int avx512)
{
	static const double taylor[] = { 1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24,
		1.0 / 120, 1.0 / 720, 1.0 / 5040 };
	LLVMTypeRef ty = LLVMTypeOf(x);
	LLVMTypeRef i32 = shaped(LLVMInt32TypeInContext(
		LLVMGetTypeContext(ty)), ty);
	LLVMValueRef shift = ein_mathfn_real(ty, 12582912.0);
	LLVMValueRef xc, t, n, r, p, k, k1;

	xc = clamp(b, x, -104.0, 88.8);
	t = fmuladd(b, m, xc, ein_mathfn_real(ty, 1.4426950408889634), shift);
	n = LLVMBuildFSub(b, t, shift, "");
	r = fmuladd(b, m, n, ein_mathfn_real(ty, -0.693145751953125), xc);
	r = fmuladd(b, m, n, ein_mathfn_real(ty, -1.4286068203094172e-06), r);
	p = horner(b, m, r, taylor, 8);
	if (avx512 && LLVMGetTypeKind(ty) == LLVMVectorTypeKind &&
	    LLVMGetVectorSize(ty) == 16)
		return scalef(b, m, p, n);
	k = LLVMBuildSub(b, LLVMBuildBitCast(b, t, i32, ""),
		LLVMBuildBitCast(b, shift, i32, ""), "");
	k1 = LLVMBuildAShr(b, k, ein_mathfn_int(i32, 1), "");
	p = LLVMBuildFMul(b, p, pow2(b, k1), "");
	return LLVMBuildFMul(b, p, pow2(b, LLVMBuildSub(b, k, k1, "")), "");
}

/* erf(x) = x P(x^2) / Q(x^2) on [-3.925, 3.925], x clamped to it (erf
 * rounds to +-1 in float32 beyond it).  P (degree 6) and Q (degree 5)
 * were fitted to erf in double precision (linearised least squares on the
 * relative error, reweighted towards its maximum; P's constant term fixed
 * to 2 / sqrt(pi) rounded to float32, so that small arguments keep a small
 * relative error), then rounded to float32; Q has positive coefficients,
 * so no pole.  The roundings of the evaluation in float32 are most of the
 * error: check_mathfn measures at most 6 units in the last place against
 * glibc's erf in double (3.6e-7 near |x| = 3.6), 3 near 0. */
static LLVMValueRef build_erf(LLVMBuilderRef b, LLVMModuleRef m,
	LLVMValueRef x)
{
	static const double p[] = { 1.128379225730896, 0.17529597878456116,
		0.061016745865345, 0.0044985502026975155,
		0.0007224053260870278, 1.4006357559992466e-05,
		-6.052788847910051e-08 };
	static const double q[] = { 1.0, 0.488687127828598,
		0.1169603243470192, 0.017936622723937035,
		0.0019027736270800233, 0.00015167977835517377 };
	LLVMValueRef xc, t, num, den;

	xc = clamp(b, x, -3.925, 3.925);
	t = LLVMBuildFMul(b, xc, xc, "");
	num = LLVMBuildFMul(b, xc, horner(b, m, t, p, 7), "");
	den = horner(b, m, t, q, 6);
	return LLVMBuildFDiv(b, num, den, "");
}

int ein_mathfn_has(enum ein_builtin fn, LLVMTypeRef ty)
{
	if (LLVMGetTypeKind(scalar_of(ty)) != LLVMFloatTypeKind)
		return 0;
	return fn == EIN_BUILTIN_EXP || fn == EIN_BUILTIN_ERF;
}

LLVMValueRef ein_mathfn_build(LLVMBuilderRef b, LLVMModuleRef m,
	enum ein_builtin fn, LLVMValueRef x, int avx512)
{
	if (fn == EIN_BUILTIN_EXP)
		return build_exp(b, m, x, avx512);
	return build_erf(b, m, x);
}
