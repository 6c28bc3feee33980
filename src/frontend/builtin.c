/*
 * builtin.c: the table of builtin functions (builtin.h).
 */
#include <math.h>
#include <string.h>
#include "diag.h"
#include "frontend/builtin.h"

static double eval_exp(const double *a) { return exp(a[0]); }
static double eval_log(const double *a) { return log(a[0]); }
static double eval_sqrt(const double *a) { return sqrt(a[0]); }
static double eval_rsqrt(const double *a) { return 1 / sqrt(a[0]); }
static double eval_tanh(const double *a) { return tanh(a[0]); }
static double eval_sigmoid(const double *a) { return 1 / (1 + exp(-a[0])); }
static double eval_erf(const double *a) { return erf(a[0]); }
static double eval_abs(const double *a) { return fabs(a[0]); }
static double eval_floor(const double *a) { return floor(a[0]); }
static double eval_ceil(const double *a) { return ceil(a[0]); }
static double eval_pow(const double *a) { return pow(a[0], a[1]); }
static double eval_min(const double *a) { return fmin(a[0], a[1]); }
static double eval_max(const double *a) { return fmax(a[0], a[1]); }
static double eval_fma(const double *a) { return fma(a[0], a[1], a[2]); }
static double eval_clamp(const double *a)
{
	return fmin(fmax(a[0], a[1]), a[2]);
}
static double eval_qmul(const double *a)
{
	return ein_builtin_qmul((int32_t) a[0], (int32_t) a[1],
		(int32_t) a[2]);
}

#define F EIN_BUILTIN_FLOAT
#define A EIN_BUILTIN_ARITH
#define LIBM EIN_BUILTIN_VEC_LIBM
#define NATIVE EIN_BUILTIN_VEC_NATIVE
#define INLINE EIN_BUILTIN_VEC_INLINE
#define I EIN_BUILTIN_INT

/* The functions, indexed by enum ein_builtin.  fma is LIBM: explicit
 * vectors have never used LLVM's fma intrinsic for it (a change of
 * generated code to measure before making). */
static const struct ein_builtin_info table[EIN_BUILTIN_N] = {
	[EIN_BUILTIN_EXP] = { "exp", 1, F, INLINE, "v", &eval_exp },
	[EIN_BUILTIN_LOG] = { "log", 1, F, LIBM, "v", &eval_log },
	[EIN_BUILTIN_SQRT] = { "sqrt", 1, F, NATIVE, NULL, &eval_sqrt },
	[EIN_BUILTIN_RSQRT] = { "rsqrt", 1, F, NATIVE, NULL, &eval_rsqrt },
	[EIN_BUILTIN_TANH] = { "tanh", 1, F, LIBM, "v", &eval_tanh },
	[EIN_BUILTIN_SIGMOID] = { "sigmoid", 1, F, INLINE, NULL,
		&eval_sigmoid },
	[EIN_BUILTIN_ERF] = { "erf", 1, F, INLINE, "v", &eval_erf },
	[EIN_BUILTIN_ABS] = { "abs", 1, A, NATIVE, NULL, &eval_abs },
	[EIN_BUILTIN_FLOOR] = { "floor", 1, F, NATIVE, NULL, &eval_floor },
	[EIN_BUILTIN_CEIL] = { "ceil", 1, F, NATIVE, NULL, &eval_ceil },
	[EIN_BUILTIN_POW] = { "pow", 2, F, LIBM, "vv", &eval_pow },
	[EIN_BUILTIN_MIN] = { "min", 2, A, NATIVE, NULL, &eval_min },
	[EIN_BUILTIN_MAX] = { "max", 2, A, NATIVE, NULL, &eval_max },
	[EIN_BUILTIN_FMA] = { "fma", 3, F, LIBM, NULL, &eval_fma },
	[EIN_BUILTIN_CLAMP] = { "clamp", 3, A, NATIVE, NULL, &eval_clamp },
	[EIN_BUILTIN_QMUL] = { "qmul", 3, I, NATIVE, NULL, &eval_qmul },
};

/* |x * m| <= 2^62, so |x * m| + 2^(s - 1) <= 2^63 fits in a uint64_t,
 * and the rounded quotient, at most 2^62, in an int64_t. */
int32_t ein_builtin_qmul(int32_t x, int32_t m, int32_t s)
{
	int64_t p = (int64_t) x * m, r;
	uint64_t u = p < 0 ? 0 - (uint64_t) p : (uint64_t) p;
	int sh = s < 0 ? 0 : s > 63 ? 63 : s;

	u = (u + ((UINT64_C(1) << sh) >> 1)) >> sh;
	r = p < 0 ? -(int64_t) u : (int64_t) u;
	return r < INT32_MIN ? INT32_MIN : r > INT32_MAX ? INT32_MAX :
		(int32_t) r;
}

const struct ein_builtin_info *ein_builtin_get(enum ein_builtin fn)
{
	return &table[fn];
}

enum ein_builtin ein_builtin_find(const char *name, size_t len)
{
	int i;

	for (i = EIN_BUILTIN_NONE + 1; i < EIN_BUILTIN_N; ++i)
		if (strlen(table[i].name) == len &&
		    !strncmp(table[i].name, name, len))
			return i;
	return EIN_BUILTIN_NONE;
}

const char *ein_builtin_name(enum ein_builtin fn)
{
	return table[fn].name;
}

int ein_builtin_arity(const char *name)
{
	enum ein_builtin fn = ein_builtin_find(name, strlen(name));

	return fn == EIN_BUILTIN_NONE ? -1 : table[fn].n_arg;
}

const char *ein_builtin_nearest(const char *name, int best)
{
	const char *found = NULL;
	int i, d;

	for (i = EIN_BUILTIN_NONE + 1; i < EIN_BUILTIN_N; ++i) {
		d = ein_diag_edit_distance(name, strlen(name), table[i].name);
		if (d < best) {
			best = d;
			found = table[i].name;
		}
	}
	return found;
}
