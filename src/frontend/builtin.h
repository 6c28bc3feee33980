/*
 * builtin.h: the builtin functions of the language, one row each.
 *
 * Every pass that knows the functions (the parser, sema, the type checker,
 * the reference interpreter and each backend) reads this one table by the
 * function's enum, so that a new function is one row here plus one case
 * in each backend's lowering (a switch over enum ein_builtin), and a
 * second backend copies no list of names.  The parser stores the enum in
 * the call's node (ein_ast_expr.fn).
 */
#ifndef EIN_FRONTEND_BUILTIN_H
#define EIN_FRONTEND_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

/* The builtin functions; EIN_BUILTIN_NONE for a name that is none.  The
 * numbers index the table. */
enum ein_builtin {
	EIN_BUILTIN_NONE = 0,
	EIN_BUILTIN_EXP,
	EIN_BUILTIN_LOG,
	EIN_BUILTIN_SQRT,
	EIN_BUILTIN_RSQRT,
	EIN_BUILTIN_TANH,
	EIN_BUILTIN_SIGMOID,
	EIN_BUILTIN_ERF,
	EIN_BUILTIN_ABS,
	EIN_BUILTIN_FLOOR,
	EIN_BUILTIN_CEIL,
	EIN_BUILTIN_POW,
	EIN_BUILTIN_MIN,
	EIN_BUILTIN_MAX,
	EIN_BUILTIN_FMA,
	EIN_BUILTIN_CLAMP,
	EIN_BUILTIN_QMUL,
	EIN_BUILTIN_N
};

/* How a call's type follows from its arguments' (frontend/type.c):
 * FLOAT: computed in a floating-point type, the arguments' arithmetic
 *	type if it is one, else float32;
 * ARITH: computed in the arguments' arithmetic type, integers included;
 * INT: computed in int32 on integer arguments (a float argument is an
 *	error). */
enum ein_builtin_type_rule {
	EIN_BUILTIN_FLOAT,
	EIN_BUILTIN_ARITH,
	EIN_BUILTIN_INT
};

/* How fast a function is on explicit vectors of floats:
 * LIBM: a call of the C library per lane (the CPU leaves such loops to
 *	LLVM's loop vectoriser, which calls libmvec);
 * NATIVE: the targets have vector instructions for it;
 * INLINE: computed inline as straight-line arithmetic (codegen/mathfn.h)
 *	for float32 unless --strict-fp, else as LIBM. */
enum ein_builtin_vector {
	EIN_BUILTIN_VEC_LIBM,
	EIN_BUILTIN_VEC_NATIVE,
	EIN_BUILTIN_VEC_INLINE
};

/* One builtin function.
 * name: its name in sources; n_arg: its number of arguments;
 * type_rule: its result type (enum ein_builtin_type_rule);
 * vector: its cost on explicit vectors (enum ein_builtin_vector);
 * libmvec: the parameters of its vector version in glibc's libmvec in the
 *	vector function ABI ("v": one vector, "vv": two) where libmvec has
 *	one under the C library's name "name", else NULL;
 * eval: its value on doubles, as the reference interpreter computes it
 *	(integer abs, min, max and clamp are the interpreter's own, and so
 *	is qmul, which is never computed on doubles). */
struct ein_builtin_info {
	const char *name;
	int n_arg;
	enum ein_builtin_type_rule type_rule;
	enum ein_builtin_vector vector;
	const char *libmvec;
	double (*eval)(const double *a);
};

/* qmul(x, m, s): the product x * m divided by 2^s (s clamped to 0..63),
 * rounded to the nearest integer, ties away from zero, and saturated to
 * int32; the product is exact (64 bits).  docs/quantization.md.  Every
 * backend and the interpreter compute this one definition. */
int32_t ein_builtin_qmul(int32_t x, int32_t m, int32_t s);

/* The row of "fn", which must not be EIN_BUILTIN_NONE. */
const struct ein_builtin_info *ein_builtin_get(enum ein_builtin fn);
/* The function named by the "len" bytes at "name" (not NUL-terminated),
 * or EIN_BUILTIN_NONE. */
enum ein_builtin ein_builtin_find(const char *name, size_t len);
/* The name of "fn". */
const char *ein_builtin_name(enum ein_builtin fn);
/* The number of arguments of the function called "name", or -1 if it is
 * none. */
int ein_builtin_arity(const char *name);
/* The builtin closest to "name" by edit distance, if within "best" - 1
 * edits, else NULL (sema's "did you mean"). */
const char *ein_builtin_nearest(const char *name, int best);

#endif
