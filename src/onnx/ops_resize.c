/*
 * ops_resize.c: Resize (and opset 10's form of it) as ein statements.
 *
 * Nearest and linear resizing are separable: the importer resizes one
 * axis at a time, one statement per axis whose extent or coordinates
 * change.  Along an axis, output position o maps to the input coordinate
 * v = (a o + b) / c, an exact fraction (the coordinate transformation
 * with the scale as a fraction p/q), so the positions read are
 * quasi-affine expressions of o that ein compiles: nearest reads
 * x(round(v)), linear x(floor(v)) and x(floor(v) + 1) weighted by the
 * fraction's remainder; positions outside the input read its edge (ONNX's
 * reference pads with the edge values), written as guarded pieces.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "onnx/ops.h"

/* The largest numerator and denominator of a scale's fraction, and of
 * a * o + b (ein computes index values as int32). */
#define MAX_FRAC 65536
#define MAX_NUM 1000000000LL

/* The map of one axis: output position o reads input coordinate
 * (a o + b) / c; in, out: the extents. */
struct axis_map {
	int64_t a, b, c;
	int64_t in, out;
};

/* The simplest fraction p / q that rounds to the float32 scale "s" (0.6
 * is 3/5): the scale the model meant, computed exactly.  -1 if there is
 * none with q <= MAX_FRAC. */
static int scale_fraction(float s, int64_t *p, int64_t *q)
{
	int64_t k;

	for (k = 1; k <= MAX_FRAC; ++k) {
		int64_t num = llround((double) s * k);

		if (num >= 1 && num <= MAX_FRAC &&
		    (float) ((double) num / k) == s) {
			*p = num;
			*q = k;
			return 0;
		}
	}
	return -1;
}

/* Positions are int32 values in the kernel: an extent "len" of axis d
 * beyond MAX_NUM is an error for "n" (bounding the extents also keeps
 * axis_map's products, and a scaled extent's conversion from double,
 * within int64_t). */
static int too_long(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int64_t len, int d)
{
	return ein_onnx_node_error(l, n, "extent %lld along axis %d is too "
		"large to resize (at most %lld)", (long long) len, d,
		MAX_NUM);
}

/* Is a o + |b| + 2 c at most MAX_NUM for every output position o of "m"
 * (a, c >= 0), computed without overflow? */
static int within_num(const struct axis_map *m)
{
	int64_t v;

	return !__builtin_mul_overflow(m->a, m->out - 1, &v) &&
		!__builtin_add_overflow(v, llabs(m->b), &v) &&
		!__builtin_add_overflow(v, 2 * m->c, &v) && v <= MAX_NUM;
}

/* The map of an axis from "in" to "out" with scale p / q for the
 * coordinate transformation "mode"; -1 after an error for "n". */
static int axis_map(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const char *mode, int64_t p, int64_t q, struct axis_map *m)
{
	/* The scaled length in * p / q, not the integer out, is what
	 * ONNX's reference divides by (align_corners) and compares with 1
	 * (pytorch_half_pixel). */
	int64_t len_q = m->in * p;

	if (!strcmp(mode, "half_pixel") ||
	    (!strcmp(mode, "pytorch_half_pixel") && len_q != q)) {
		/* (o + 1/2) / s - 1/2 */
		m->a = 2 * q;
		m->b = q - p;
		m->c = 2 * p;
	} else if (!strcmp(mode, "pytorch_half_pixel")) {
		m->a = 0;
		m->b = -1;
		m->c = 2;
	} else if (!strcmp(mode, "asymmetric")) {
		m->a = q;
		m->b = 0;
		m->c = p;
	} else if (!strcmp(mode, "tf_half_pixel_for_nn")) {
		m->a = 2 * q;
		m->b = q;
		m->c = 2 * p;
	} else if (!strcmp(mode, "align_corners")) {
		/* o (in - 1) / (in p / q - 1) */
		m->a = len_q != q ? (m->in - 1) * q : 0;
		m->b = 0;
		m->c = len_q != q ? len_q - q : 1;
	} else {
		return ein_onnx_node_error(l, n, "coordinate_transformation_mode"
			" '%s' is not supported", mode);
	}
	if (!within_num(m))
		return ein_onnx_node_error(l, n, "the scale %lld/%lld is too "
			"fine a fraction for an axis of %lld elements",
			(long long) p, (long long) q, (long long) m->out);
	return 0;
}

/* Is the map the identity (nothing to compute along the axis)? */
static int axis_identity(const struct axis_map *m)
{
	return m->in == m->out && m->a == m->c && m->b == 0;
}

/* "(a * iD + b)" into buf. */
static void print_num(const struct axis_map *m, int d, char *buf,
	size_t size)
{
	if (m->a == 0)
		snprintf(buf, size, "%lld", (long long) m->b);
	else
		snprintf(buf, size, "(%lld * i%d + %lld)", (long long) m->a, d,
			(long long) m->b);
}

/* The numerator's value at o = 0 and o = out - 1 (the map is
 * non-decreasing in o). */
static int64_t num_at(const struct axis_map *m, int64_t o)
{
	return m->a * o + m->b;
}

/* floor(num / c) for the extreme values of num. */
static int64_t floor_div(int64_t num, int64_t c)
{
	return num >= 0 ? num / c : -((-num + c - 1) / c);
}

/* The read of "x" with index "e" along axis d and i{k} elsewhere. */
static void print_read(struct ein_onnx_lower *l, struct ein_onnx_tensor *x,
	int d, const char *e)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int k;

	for (k = 0; k < x->rank; ++k)
		snprintf(idx[k], sizeof(idx[k]), "i%d", k);
	snprintf(idx[d], sizeof(idx[d]), "%s", e);
	ein_onnx_print_access(l, x, idx);
}

/* y = x resized along axis d with nearest "rounding": the input
 * position is an integer function of (a o + b) / c, clamped to the
 * input by guards where it can leave it. */
static void resize_nearest(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *x, struct ein_onnx_tensor *y, int d,
	const struct axis_map *m, const char *rounding)
{
	char num[96], e[EIN_ONNX_IDX], edge[32];
	int64_t c = m->c, add, div;

	print_num(m, d, num, sizeof(num));
	/* floor(v), ceil(v), ceil(v - 1/2), floor(v + 1/2) as
	 * (factor * num + add) / div. */
	if (!strcmp(rounding, "floor"))
		add = 0, div = c;
	else if (!strcmp(rounding, "ceil"))
		add = c - 1, div = c;
	else if (!strcmp(rounding, "round_prefer_ceil"))
		add = c, div = 2 * c;
	else
		add = c - 1, div = 2 * c;
	snprintf(e, sizeof(e), "(%s%s + %lld) / %lld", div == c ? "" : "2 * ",
		num, (long long) add, (long long) div);
	ein_onnx_print_lhs(l, y, "=");
	{
		int64_t mult = div == c ? 1 : 2;
		int64_t lo = floor_div(mult * num_at(m, 0) + add, div);
		int64_t hi = floor_div(mult * num_at(m, m->out - 1) + add,
			div);

		if (lo < 0) {
			fprintf(l->out, "%s < 0 ? ", e);
			print_read(l, x, d, "0");
			fputs(" : ", l->out);
		}
		if (hi > m->in - 1) {
			fprintf(l->out, "%s > %lld ? ", e,
				(long long) (m->in - 1));
			snprintf(edge, sizeof(edge), "%lld",
				(long long) (m->in - 1));
			print_read(l, x, d, edge);
			fputs(" : ", l->out);
		}
	}
	print_read(l, x, d, e);
	ein_onnx_print_where(l, y, 0);
}

/* y = x resized along axis d linearly: x(f) + (x(f + 1) - x(f)) r with
 * f = floor(v) and r = v - f, the remainder of the fraction; below the
 * input the first element, from its last on the last. */
static void resize_linear(struct ein_onnx_lower *l, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *y, int d, const struct axis_map *m)
{
	char num[96], f[EIN_ONNX_IDX], f1[EIN_ONNX_IDX], edge[32];
	const char *type = ein_onnx_dtype_ein(x->dtype);

	print_num(m, d, num, sizeof(num));
	snprintf(f, sizeof(f), "%s / %lld", num, (long long) m->c);
	snprintf(f1, sizeof(f1), "%s / %lld + 1", num, (long long) m->c);
	snprintf(edge, sizeof(edge), "%lld", (long long) (m->in - 1));
	ein_onnx_print_lhs(l, y, "=");
	if (m->in == 1) {
		print_read(l, x, d, "0");
		ein_onnx_print_where(l, y, 0);
		return;
	}
	if (num_at(m, 0) < 0) {
		fprintf(l->out, "%s < 0 ? ", num);
		print_read(l, x, d, "0");
		fputs(" : ", l->out);
	}
	if (num_at(m, m->out - 1) >= (m->in - 1) * m->c) {
		fprintf(l->out, "%s >= %lld ? ", num,
			(long long) ((m->in - 1) * m->c));
		print_read(l, x, d, edge);
		fputs(" : ", l->out);
	}
	print_read(l, x, d, f);
	fputs(" + (", l->out);
	print_read(l, x, d, f1);
	fputs(" - ", l->out);
	print_read(l, x, d, f);
	fprintf(l->out, ") * (%s(%s %% %lld) / %lld.0)", type, num,
		(long long) m->c, (long long) m->c);
	ein_onnx_print_where(l, y, 0);
}

/* The float scales of constant "t" into s[0 .. rank-1]; -1 after an
 * error. */
static int const_scales(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *t, int rank, float *s)
{
	if (t->role != EIN_ONNX_CONST || t->dtype != EIN_ONNX_FLOAT)
		return ein_onnx_node_error(l, n, "scales '%s' must be a "
			"constant FLOAT tensor (scales computed at run time are "
			"not supported)", t->name);
	if (t->bytes != rank * sizeof(float))
		return ein_onnx_node_error(l, n, "scales '%s' has %zu values "
			"for rank %d", t->name, t->bytes / sizeof(float), rank);
	memcpy(s, t->data, rank * sizeof(float));
	return 0;
}

/* The attributes of opset 18 that change the result only where they are
 * not their defaults. */
static int check_defaults(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	if (ein_onnx_node_int(n, "antialias", 0))
		return ein_onnx_node_error(l, n, "antialias is not supported");
	if (ein_onnx_node_attr(n, "axes"))
		return ein_onnx_node_error(l, n, "the axes attribute is not "
			"supported");
	if (strcmp(ein_onnx_node_string(n, "keep_aspect_ratio_policy",
			"stretch"), "stretch"))
		return ein_onnx_node_error(l, n, "keep_aspect_ratio_policy "
			"other than stretch is not supported");
	return 0;
}

/* Resize with mode nearest or linear, constant scales or sizes: one
 * statement per axis that changes, into temporaries, the last into y. */
int ein_onnx_lower_resize(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	int old = l->g->opset < 11 || !strcmp(n->op, "Upsample");
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *st = ein_onnx_in(l, n, old ? 1 : 2, NULL);
	struct ein_onnx_tensor *sz = old ? NULL : ein_onnx_in(l, n, 3, NULL);
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), cur, next;
	const char *mode = ein_onnx_node_string(n, "mode", "nearest");
	const char *coord = ein_onnx_node_string(n,
		"coordinate_transformation_mode", old ? "asymmetric" :
		"half_pixel");
	const char *rounding = ein_onnx_node_string(n, "nearest_mode",
		old ? "floor" : "round_prefer_floor");
	struct axis_map m[EIN_ONNX_MAX_RANK];
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char names[EIN_ONNX_MAX_RANK][256];
	float s[EIN_ONNX_MAX_RANK];
	int64_t size[EIN_ONNX_MAX_RANK], p, q;
	int d, count, last = -1;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    check_defaults(l, n) < 0)
		return -1;
	if (strcmp(mode, "nearest") && strcmp(mode, "linear"))
		return ein_onnx_node_error(l, n, "mode '%s' is not supported "
			"(nearest and linear are)", mode);
	if (st && st->bytes == 0 && sz)
		st = NULL;
	if (!!st == !!sz)
		return ein_onnx_node_error(l, n, "exactly one of scales and "
			"sizes must be given");
	if (st && const_scales(l, n, st, x->rank, s) < 0)
		return -1;
	if (sz && (ein_onnx_const_ints(l, n, sz, "sizes", size, &count,
			EIN_ONNX_MAX_RANK) < 0))
		return -1;
	if (sz && count != x->rank)
		return ein_onnx_node_error(l, n, "sizes has %d values for rank "
			"%d", count, x->rank);
	for (d = 0; d < x->rank; ++d) {
		dim[d] = x->dim[d];
		/* A symbolic dimension (the batch) may only keep its
		 * extent; a scale of 1 maps o to o in every mode. */
		if (x->dim[d].sym >= 0 && st && s[d] == 1.0f)
			continue;
		if (x->dim[d].sym >= 0)
			return ein_onnx_need_const_shape(l, n, x,
				"resizing it");
		m[d].in = x->dim[d].value;
		if (m[d].in > MAX_NUM)
			return too_long(l, n, m[d].in, d);
		if (st) {
			if (!(s[d] > 0) || scale_fraction(s[d], &p, &q) < 0)
				return ein_onnx_node_error(l, n, "scale %g "
					"along axis %d is not supported", s[d],
					d);
			m[d].out = (int64_t) floor(m[d].in * (double) s[d]);
		} else {
			m[d].out = p = size[d];
			q = m[d].in;
		}
		if (m[d].out < 1)
			return ein_onnx_node_error(l, n, "output extent %lld "
				"along axis %d", (long long) m[d].out, d);
		if (m[d].out > MAX_NUM)
			return too_long(l, n, m[d].out, d);
		if (axis_map(l, n, coord, p, q, &m[d]) < 0)
			return -1;
		dim[d] = ein_onnx_dim_const(m[d].out);
		if (!axis_identity(&m[d]))
			last = d;
	}
	ein_onnx_set_shape(y, x->dtype, x->rank, dim);
	if (last < 0)
		return ein_onnx_lower_identity(l, n);
	cur = *x;
	for (d = 0; d <= last; ++d) {
		struct ein_onnx_tensor *to = &next;

		if (dim[d].sym >= 0 || axis_identity(&m[d]))
			continue;
		if (d == last) {
			to = y;
		} else {
			next = cur;
			ein_onnx_aux_name(l, y, "axis", names[d],
				sizeof(names[d]));
			next.id = names[d];
		}
		to->dim[d] = dim[d];
		if (!strcmp(mode, "nearest"))
			resize_nearest(l, &cur, to, d, &m[d], rounding);
		else
			resize_linear(l, &cur, to, d, &m[d]);
		if (d != last)
			cur = next;
	}
	x->used = 1;
	return 0;
}
