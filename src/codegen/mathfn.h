/*
 * mathfn.h: exp and erf of float32 values as inline LLVM IR, straight-line
 * arithmetic on scalars or explicit vectors (which LLVM's loop vectoriser
 * also turns into vector code of any width), where a call to the C
 * library (or its vector library, libmvec) costs a call per element or
 * per vector.  Used unless --strict-fp
 * (docs/language.md, "Functions"): results are within a few units in the
 * last place of the correctly rounded ones, as measured by
 * tests/unit/check_mathfn.c.
 */
#ifndef EIN_CODEGEN_MATHFN_H
#define EIN_CODEGEN_MATHFN_H

#include <llvm-c/Core.h>
#include "frontend/builtin.h"

/* 1 if "fn" (exp, erf) of a value of type "ty" has an inline
 * expansion: float32 or vectors of it only (float64 keeps the C
 * library's). */
int ein_mathfn_has(enum ein_builtin fn, LLVMTypeRef ty);

/* The constant "v" of the floating-point type "ty", or of each lane of
 * "ty" if it is a vector type. */
LLVMValueRef ein_mathfn_real(LLVMTypeRef ty, double v);
/* The constant "v" of the integer type "ty" (sign-extended), or of each
 * lane of "ty" if it is a vector type. */
LLVMValueRef ein_mathfn_int(LLVMTypeRef ty, long long v);

/* exp(x) or erf(x) of the float32 "x" (or vector of float32), with
 * AVX-512's instructions for 16-float vectors if "avx512", built by "b"
 * in module "m" (which receives the declarations of the intrinsics
 * used); "fn" must be one that ein_mathfn_has accepts. */
LLVMValueRef ein_mathfn_build(LLVMBuilderRef b, LLVMModuleRef m,
	enum ein_builtin fn, LLVMValueRef x, int avx512);

#endif
