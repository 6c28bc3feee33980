/*
 * ops_quant.c: ONNX's quantised operators as ein statements
 * (docs/onnx.md, docs/quantization.md).
 *
 *     QuantizeLinear    y = saturate(round(x / s) + z)     ties to even
 *     DequantizeLinear  y = (x - z) * s                    float32
 *     MatMulInteger     y = sum (a - za) (b - zb)          int32
 *     QLinearMatMul     y = saturate(round(acc * sa sb / sy) + zy)
 *     ConvInteger       y = conv(x - zx, w - zw)           int32
 *     QLinearConv       y = saturate(round(acc * sx sw / sy) + zy)
 *
 * The rounding of QuantizeLinear and of the QLinear operators is that of
 * ein_onnx_print_quantize (quantize.h): of the exact quotient or product,
 * to nearest with ties to even, as ONNX's reference rounds.  The
 * QLinear operators take their scales as constants: the real multiplier
 * sa sb / sy is computed at import in float32, as ONNX's reference
 * computes it, and the accumulator (exact in float32 below 2^24) is
 * multiplied by it.  Zero points may be constants or inputs; scales of
 * QuantizeLinear and DequantizeLinear too (per tensor, or per axis).
 */
#include <stdio.h>
#include <string.h>
#include "onnx/ops.h"
#include "onnx/quantize.h"

/* The room for an operand's text. */
#define TEXT 512

/* "ID(i0, ..., i{rank-1})" for t read at the indices of its own shape;
 * t is marked used. */
static void full_access(struct ein_onnx_tensor *t, char *buf, size_t size)
{
	size_t len = snprintf(buf, size, "%s(", t->id);
	int d;

	t->used = 1;
	for (d = 0; d < t->rank && len < size; ++d)
		len += snprintf(buf + len, size - len, "%si%d", d ? ", " : "",
			d);
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

/* A scale or zero point "t" read for the element at index i{axis} of
 * the output: a scalar (rank 0, or one element), or a vector along
 * "axis" of extent "extent"; -1 after an error for "n". */
static int operand(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	struct ein_onnx_tensor *t, int axis, struct ein_onnx_dim extent,
	char *buf, size_t size)
{
	if (ein_onnx_need_ein_type(l, n, t) < 0)
		return -1;
	t->used = 1;
	if (t->rank == 0)
		snprintf(buf, size, "%s", t->id);
	else if (t->rank == 1 && t->dim[0].sym < 0 && t->dim[0].value == 1)
		snprintf(buf, size, "%s(0)", t->id);
	else if (t->rank == 1 && axis >= 0 && ein_onnx_dim_eq(t->dim[0], extent))
		snprintf(buf, size, "%s(i%d)", t->id, axis);
	else
		return ein_onnx_node_error(l, n, "'%s' is neither a scalar nor "
			"a vector along axis %d", t->name, axis);
	return 0;
}

/* The zero point input "i" of "n" (NULL: 0) read at i{axis}, into buf;
 * its type (UINT8 when absent) in *dtype. */
static int zero_point(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int i, int axis, struct ein_onnx_dim extent, char *buf, size_t size,
	enum ein_onnx_dtype *dtype)
{
	struct ein_onnx_tensor *z = ein_onnx_in(l, n, i, NULL);

	*dtype = z ? z->dtype : EIN_ONNX_UINT8;
	if (!z) {
		snprintf(buf, size, "0");
		return 0;
	}
	if (z->dtype != EIN_ONNX_UINT8 && z->dtype != EIN_ONNX_INT8 &&
	    z->dtype != EIN_ONNX_INT32)
		return ein_onnx_node_error(l, n, "zero point '%s' is %s, not "
			"UINT8, INT8 or INT32", z->name,
			ein_onnx_dtype_name(z->dtype));
	return operand(l, n, z, axis, extent, buf, size);
}

/* The limits of an 8-bit type. */
static void limits(enum ein_onnx_dtype dtype, int *lo, int *hi)
{
	*lo = dtype == EIN_ONNX_INT8 ? -128 : 0;
	*hi = dtype == EIN_ONNX_INT8 ? 127 : 255;
}

/* The axis of x along which scale s varies (attribute axis, default 1):
 * -1 for a scalar s, -2 after an error. */
static int scale_axis(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, const struct ein_onnx_tensor *s)
{
	int a;

	if (s->rank == 0 || (s->rank == 1 && s->dim[0].sym < 0 &&
			s->dim[0].value == 1))
		return -1;
	a = ein_onnx_axis(l, n, ein_onnx_node_int(n, "axis", 1), x->rank);
	return a < 0 ? -2 : a;
}

/* QuantizeLinear: y = saturate(round(x / s) + z), y of z's type (uint8
 * without z). */
int ein_onnx_lower_quantize_linear(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "x");
	struct ein_onnx_tensor *s = ein_onnx_in(l, n, 1, "y_scale");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	char xt[TEXT], st[TEXT], zt[TEXT];
	enum ein_onnx_dtype dtype;
	int axis, lo, hi;

	if (!x || !s || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    ein_onnx_need_float(l, n, s) < 0 ||
	    (axis = scale_axis(l, n, x, s)) < -1 ||
	    operand(l, n, s, axis, axis >= 0 ? x->dim[axis] :
		ein_onnx_dim_const(1), st, sizeof(st)) < 0 ||
	    zero_point(l, n, 2, axis, axis >= 0 ? x->dim[axis] :
		ein_onnx_dim_const(1), zt, sizeof(zt), &dtype) < 0)
		return -1;
	if (dtype == EIN_ONNX_INT32)
		return ein_onnx_node_error(l, n, "an INT32 result is not "
			"supported");
	limits(dtype, &lo, &hi);
	ein_onnx_set_shape(y, dtype, x->rank, x->dim);
	full_access(x, xt, sizeof(xt));
	return ein_onnx_print_quantize(l, y, xt, st, 0, zt, lo, hi);
}

/* DequantizeLinear: y = (x - z) * s in float32. */
int ein_onnx_lower_dequantize_linear(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "x");
	struct ein_onnx_tensor *s = ein_onnx_in(l, n, 1, "x_scale");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	char xt[TEXT], st[TEXT], zt[TEXT];
	enum ein_onnx_dtype dtype;
	int axis;

	if (!x || !s || !y || ein_onnx_need_ein_type(l, n, x) < 0 ||
	    ein_onnx_need_float(l, n, s) < 0 ||
	    (axis = scale_axis(l, n, x, s)) < -1 ||
	    operand(l, n, s, axis, axis >= 0 ? x->dim[axis] :
		ein_onnx_dim_const(1), st, sizeof(st)) < 0 ||
	    zero_point(l, n, 2, axis, axis >= 0 ? x->dim[axis] :
		ein_onnx_dim_const(1), zt, sizeof(zt), &dtype) < 0)
		return -1;
	if (x->dtype != EIN_ONNX_UINT8 && x->dtype != EIN_ONNX_INT8 &&
	    x->dtype != EIN_ONNX_INT32)
		return ein_onnx_node_error(l, n, "input '%s' is %s, not UINT8, "
			"INT8 or INT32", x->name, ein_onnx_dtype_name(x->dtype));
	ein_onnx_set_shape(y, EIN_ONNX_FLOAT, x->rank, x->dim);
	full_access(x, xt, sizeof(xt));
	ein_onnx_print_lhs(l, y, "=");
	fprintf(l->out, "(%s - %s) * %s", xt, zt, st);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The int32 product of the 8-bit matrices a (rank >= 2: leading batch
 * dimensions) and b (rank 2) with zero points za (a scalar) and zb (a
 * scalar or one per column), as "acc" with y's shape set (int32):
 * acc(i..., j) +=! (a(i..., r0) - za) * (b(r0, j) - zb). */
static int print_imatmul(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	struct ein_onnx_tensor *a, struct ein_onnx_tensor *b, int iza, int izb,
	struct ein_onnx_tensor *y, const char *acc)
{
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	struct ein_onnx_tensor t;
	char za[TEXT], zb[TEXT];
	enum ein_onnx_dtype dt;
	int d, r;

	if (a->rank < 2 || b->rank != 2 ||
	    !ein_onnx_dim_eq(a->dim[a->rank - 1], b->dim[0]))
		return ein_onnx_node_error(l, n, "'%s' and '%s' are not matrices "
			"of matching shapes (the importer takes a batch of "
			"matrices times a matrix)", a->name, b->name);
	for (d = 0; d < 2; ++d) {
		const struct ein_onnx_tensor *u = d ? b : a;

		if (u->dtype != EIN_ONNX_UINT8 && u->dtype != EIN_ONNX_INT8)
			return ein_onnx_node_error(l, n, "input '%s' is %s, "
				"not UINT8 or INT8", u->name,
				ein_onnx_dtype_name(u->dtype));
	}
	r = a->rank;
	for (d = 0; d + 1 < r; ++d)
		dim[d] = a->dim[d];
	dim[r - 1] = b->dim[1];
	if (zero_point(l, n, iza, -1, ein_onnx_dim_const(1), za,
			sizeof(za), &dt) < 0 ||
	    zero_point(l, n, izb, r - 1, b->dim[1], zb, sizeof(zb), &dt) < 0)
		return -1;
	ein_onnx_set_shape(y, EIN_ONNX_INT32, r, dim);
	t = *y;
	t.id = (char *) acc;
	ein_onnx_print_lhs(l, &t, "+=!");
	fprintf(l->out, "(%s(", a->id);
	for (d = 0; d + 1 < r; ++d)
		fprintf(l->out, "i%d, ", d);
	fprintf(l->out, "r0) - %s) * (%s(r0, i%d) - %s)", za, b->id, r - 1,
		zb);
	a->used = b->used = 1;
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* MatMulInteger: the int32 product itself. */
int ein_onnx_lower_matmul_integer(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *a = ein_onnx_in(l, n, 0, "A");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 1, "B");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);

	if (!a || !b || !y)
		return -1;
	return print_imatmul(l, n, a, b, 2, 3, y, y->id);
}

/* The float value of the scalar constant input "i" of "n". */
static int const_scale(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int i, const char *what, float *v)
{
	struct ein_onnx_tensor *t = ein_onnx_in(l, n, i, what);
	double d;

	if (!t || ein_onnx_const_float(l, n, t, what, &d) < 0)
		return -1;
	*v = (float) d;
	if (!(*v > 0))
		return ein_onnx_node_error(l, n, "scale '%s' is not positive",
			t->name);
	return 0;
}

/* The requantisation of the QLinear operators: y = saturate(round(acc *
 * m) + zy) with m = s1 * s2 / sy in float32 (as ONNX's reference). */
static int print_requant(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	struct ein_onnx_tensor *y, const char *acc, float s1, float s2,
	float sy, int izy)
{
	volatile float prod = s1 * s2;
	float m = prod / sy;
	char at[TEXT], mt[64], zt[TEXT];
	struct ein_onnx_tensor t = *y;
	enum ein_onnx_dtype dtype;
	int lo, hi;

	if (zero_point(l, n, izy, -1, ein_onnx_dim_const(1), zt, sizeof(zt),
			&dtype) < 0)
		return -1;
	if (dtype == EIN_ONNX_INT32)
		return ein_onnx_node_error(l, n, "an INT32 result is not "
			"supported");
	limits(dtype, &lo, &hi);
	y->dtype = dtype;
	t.id = (char *) acc;
	full_access(&t, at, sizeof(at));
	ein_onnx_exact_float(m, mt, sizeof(mt));
	return ein_onnx_print_quantize(l, y, at, mt, 1, zt, lo, hi);
}

/* QLinearMatMul(a, sa, za, b, sb, zb, sy, zy). */
int ein_onnx_lower_qlinear_matmul(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *a = ein_onnx_in(l, n, 0, "a");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 3, "b");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	float sa, sb, sy;
	char acc[256];

	if (!a || !b || !y || const_scale(l, n, 1, "a_scale", &sa) < 0 ||
	    const_scale(l, n, 4, "b_scale", &sb) < 0 ||
	    const_scale(l, n, 6, "y_scale", &sy) < 0)
		return -1;
	ein_onnx_aux_name(l, y, "acc", acc, sizeof(acc));
	if (print_imatmul(l, n, a, b, 2, 5, y, acc) < 0)
		return -1;
	return print_requant(l, n, y, acc, sa, sb, sy, 7);
}

/* A float view of 8-bit tensor "t", for the shape checks of Conv. */
static struct ein_onnx_tensor float_view(const struct ein_onnx_tensor *t)
{
	struct ein_onnx_tensor v = *t;

	v.dtype = EIN_ONNX_FLOAT;
	return v;
}

/* The int32 convolution of ConvInteger and QLinearConv: x, w the inputs
 * ix, iw, zero points izx, izw (scalars). */
static int print_iconv(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int ix, int iw, int izx, int izw, struct ein_onnx_tensor *y,
	const char *acc)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, ix, "x");
	struct ein_onnx_tensor *w = ein_onnx_in(l, n, iw, "w");
	struct ein_onnx_tensor xf, wf;
	char zx[TEXT], zw[TEXT];
	enum ein_onnx_dtype dt;

	if (!x || !w || zero_point(l, n, izx, -1, ein_onnx_dim_const(1), zx,
			sizeof(zx), &dt) < 0 ||
	    zero_point(l, n, izw, -1, ein_onnx_dim_const(1), zw, sizeof(zw),
			&dt) < 0)
		return -1;
	if ((x->dtype != EIN_ONNX_UINT8 && x->dtype != EIN_ONNX_INT8) ||
	    (w->dtype != EIN_ONNX_UINT8 && w->dtype != EIN_ONNX_INT8))
		return ein_onnx_node_error(l, n, "'%s' and '%s' must be UINT8 "
			"or INT8", x->name, w->name);
	xf = float_view(x);
	wf = float_view(w);
	if (ein_onnx_print_qconv_acc(l, n, &xf, &wf, x, zx, w,
			strcmp(zw, "0") ? zw : NULL, y, acc) < 0)
		return -1;
	y->dtype = EIN_ONNX_INT32;
	return 0;
}

/* ConvInteger(x, w, zx, zw): the int32 convolution. */
int ein_onnx_lower_conv_integer(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);

	return y ? print_iconv(l, n, 0, 1, 2, 3, y, y->id) : -1;
}

/* QLinearConv(x, sx, zx, w, sw, zw, sy, zy, B): the int32 convolution
 * plus the int32 bias B (scale sx sw), requantised; per-tensor scales. */
int ein_onnx_lower_qlinear_conv(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), t;
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 8, NULL);
	char acc[256], sum[256], at[TEXT];
	float sx, sw, sy;

	if (!y || const_scale(l, n, 1, "x_scale", &sx) < 0 ||
	    const_scale(l, n, 4, "w_scale", &sw) < 0 ||
	    const_scale(l, n, 6, "y_scale", &sy) < 0)
		return -1;
	ein_onnx_aux_name(l, y, "acc", acc, sizeof(acc));
	if (print_iconv(l, n, 0, 3, 2, 5, y, acc) < 0)
		return -1;
	if (b) {
		if (b->dtype != EIN_ONNX_INT32 || b->rank != 1 ||
		    !ein_onnx_dim_eq(b->dim[0], y->dim[1]))
			return ein_onnx_node_error(l, n, "bias '%s' is not an "
				"INT32 vector of the output channels", b->name);
		ein_onnx_aux_name(l, y, "biased", sum, sizeof(sum));
		t = *y;
		t.id = sum;
		ein_onnx_print_lhs(l, &t, "=");
		t.id = acc;
		full_access(&t, at, sizeof(at));
		fprintf(l->out, "%s + %s(i1)", at, b->id);
		b->used = 1;
		ein_onnx_print_where(l, y, 0);
	}
	return print_requant(l, n, y, b ? sum : acc, sx, sw, sy, 7);
}
