/*
 * fold.c: constant folding of the nodes that compute shapes.
 *
 * Exporters write a flatten or a view as Shape -> Gather -> Unsqueeze ->
 * Concat -> Reshape.  These vectors are computed here, as INT64 constants
 * whose values are dimensions ("sval"): a symbolic batch size stays a
 * symbol through them, so that the Reshape that uses them still sees
 * [N, -1].  Only small integer vectors are computed this way; tensors of
 * data are always computed by ein.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "onnx/fold.h"

/* The most values of a folded vector. */
#define MAX_VALUES 64
/* The most bytes of a tensor of data folded (ConstantOfShape, Range):
 * larger ones are left to ein, as any computation. */
#define MAX_FOLD_BYTES ((int64_t) 1 << 26)

/* Make "t" the INT64 constant of v[0 .. count-1], a vector (rank 1) or a
 * scalar (rank 0, count 1). */
static int set_ints(struct ein_onnx_tensor *t, const struct ein_onnx_dim *v,
	int count, int rank)
{
	int k;

	free(t->data);
	free(t->sval);
	t->data = malloc(count * sizeof(int64_t) + 1);
	t->sval = malloc(count * sizeof(*t->sval) + 1);
	if (!t->data || !t->sval)
		return -1;
	for (k = 0; k < count; ++k) {
		t->sval[k] = v[k];
		((int64_t *) t->data)[k] = v[k].sym >= 0 ? -1 : v[k].value;
	}
	t->bytes = count * sizeof(int64_t);
	t->dtype = EIN_ONNX_INT64;
	t->role = EIN_ONNX_CONST;
	t->rank = rank;
	t->dim[0] = ein_onnx_dim_const(count);
	t->known = 1;
	return 1;
}

/* The values of an integer constant "t" as dimensions into v; their
 * number, -1 if t is not such a constant. */
static int get_ints(const struct ein_onnx_tensor *t, struct ein_onnx_dim *v)
{
	size_t esize = ein_onnx_dtype_size(t->dtype);
	int count, k;

	if (t->role != EIN_ONNX_CONST || t->rank > 1 ||
	    (t->dtype != EIN_ONNX_INT64 && t->dtype != EIN_ONNX_INT32))
		return -1;
	count = t->bytes / esize;
	if (count > MAX_VALUES)
		return -1;
	for (k = 0; k < count; ++k)
		v[k] = t->sval ? t->sval[k] : ein_onnx_dim_const(
			t->dtype == EIN_ONNX_INT64 ? ((int64_t *) t->data)[k] :
			((int32_t *) t->data)[k]);
	return count;
}

/* Copy constant "x" into "y" (same type, data and shape). */
static int copy_const(struct ein_onnx_tensor *y, const struct ein_onnx_tensor *x)
{
	free(y->data);
	free(y->sval);
	y->sval = NULL;
	y->data = malloc(x->bytes + 1);
	if (!y->data)
		return -1;
	memcpy(y->data, x->data, x->bytes);
	if (x->sval) {
		size_t n = x->bytes / 8;

		y->sval = malloc(n * sizeof(*y->sval) + 1);
		if (!y->sval)
			return -1;
		memcpy(y->sval, x->sval, n * sizeof(*y->sval));
	}
	y->bytes = x->bytes;
	y->dtype = x->dtype;
	y->rank = x->rank;
	memcpy(y->dim, x->dim, sizeof(y->dim));
	y->role = EIN_ONNX_CONST;
	y->known = 1;
	return 1;
}

/* Constant: the value attribute (a tensor) or one of the value_*
 * forms. */
static int fold_constant(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	struct ein_onnx_tensor *y)
{
	const struct ein_onnx_attr *a = n->n_attr == 1 ? &n->attr[0] : NULL;
	struct ein_onnx_dim v[MAX_VALUES];
	int k;

	if (a && a->kind == EIN_ONNX_ATTR_TENSOR && !strcmp(a->name, "value"))
		return copy_const(y, &l->g->tensor[a->tensor]);
	if (a && !strcmp(a->name, "value_int"))
		return set_ints(y, (v[0] = ein_onnx_dim_const(a->i), v), 1, 0);
	if (a && !strcmp(a->name, "value_ints") && a->n <= MAX_VALUES) {
		for (k = 0; k < a->n; ++k)
			v[k] = ein_onnx_dim_const(a->ints[k]);
		return set_ints(y, v, a->n, 1);
	}
	if (a && (!strcmp(a->name, "value_float") ||
			!strcmp(a->name, "value_floats"))) {
		int count = a->kind == EIN_ONNX_ATTR_FLOAT ? 1 : a->n;

		y->data = malloc(count * sizeof(float) + 1);
		if (!y->data)
			return -1;
		memcpy(y->data, count == 1 && a->kind == EIN_ONNX_ATTR_FLOAT ?
			&a->f : a->floats, count * sizeof(float));
		y->bytes = count * sizeof(float);
		y->dtype = EIN_ONNX_FLOAT;
		y->rank = a->kind == EIN_ONNX_ATTR_FLOAT ? 0 : 1;
		y->dim[0] = ein_onnx_dim_const(count);
		y->role = EIN_ONNX_CONST;
		y->known = 1;
		return 1;
	}
	return ein_onnx_node_error(l, n, "the value of a Constant must be one "
		"attribute value, value_float(s) or value_int(s)");
}

/* Shape: the dimensions of x (from start to end). */
static int fold_shape(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, struct ein_onnx_tensor *y)
{
	int64_t start = ein_onnx_node_int(n, "start", 0);
	int64_t end = ein_onnx_node_int(n, "end", x->rank);

	if (start < 0)
		start += x->rank;
	if (end < 0)
		end += x->rank;
	start = start < 0 ? 0 : start > x->rank ? x->rank : start;
	end = end < start ? start : end > x->rank ? x->rank : end;
	return set_ints(y, x->dim + start, end - start, 1);
}

/* Gather along axis 0 of an integer vector. */
static int fold_gather(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, const struct ein_onnx_tensor *ix,
	struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim v[MAX_VALUES], iv[MAX_VALUES], r[MAX_VALUES];
	int nv = get_ints(x, v), ni = get_ints(ix, iv), k;

	if (nv < 0 || ni < 0 || x->rank != 1 ||
	    ein_onnx_node_int(n, "axis", 0) != 0)
		return 0;
	for (k = 0; k < ni; ++k) {
		int64_t i = iv[k].value;

		if (iv[k].sym >= 0 || i < -nv || i >= nv)
			return ein_onnx_node_error(l, n, "index out of range");
		r[k] = v[i < 0 ? i + nv : i];
	}
	return set_ints(y, r, ni, ix->rank);
}

/* Concat of integer vectors. */
static int fold_concat(const struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim v[MAX_VALUES], part[MAX_VALUES];
	int i, k, count = 0, m;

	for (i = 0; i < n->n_in; ++i) {
		if (n->in[i] < 0 || l->g->tensor[n->in[i]].rank != 1 ||
		    (m = get_ints(&l->g->tensor[n->in[i]], part)) < 0 ||
		    count + m > MAX_VALUES)
			return 0;
		for (k = 0; k < m; ++k)
			v[count++] = part[k];
	}
	return set_ints(y, v, count, 1);
}

/* Unsqueeze of a scalar into a vector, Squeeze of a one-element vector. */
static int fold_squeeze(const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim v[MAX_VALUES];
	int m = get_ints(x, v), un = !strcmp(n->op, "Unsqueeze");

	if (m != 1 || x->rank != (un ? 0 : 1))
		return 0;
	return set_ints(y, v, 1, un ? 1 : 0);
}

/* Slice of an integer vector with constant starts, ends (axis 0, step
 * 1 or given). */
static int fold_slice(const struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim v[MAX_VALUES], s[1], e[1], st[1], r[MAX_VALUES];
	int m = get_ints(x, v), k = 0;
	int64_t b, f, step = 1, i;

	if (m < 0 || x->rank != 1 || n->n_in < 3 || n->in[1] < 0 ||
	    n->in[2] < 0 || get_ints(&l->g->tensor[n->in[1]], s) != 1 ||
	    get_ints(&l->g->tensor[n->in[2]], e) != 1 ||
	    (n->n_in > 4 && n->in[4] >= 0 &&
		(get_ints(&l->g->tensor[n->in[4]], st) != 1 ||
		 (step = st[0].value) == 0)))
		return 0;
	b = s[0].value < 0 ? s[0].value + m : s[0].value;
	f = e[0].value < 0 ? e[0].value + m : e[0].value;
	b = b < 0 ? 0 : b > m ? m : b;
	f = f < -1 ? -1 : f > m ? m : f;
	for (i = b; step > 0 ? i < f : i > f; i += step)
		if (i >= 0 && i < m)
			r[k++] = v[i];
	return set_ints(y, r, k, 1);
}

/* Add, Sub, Mul, Div of integer vectors (or a vector and a scalar) whose
 * values are constants. */
static int fold_arith(const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *a, const struct ein_onnx_tensor *b,
	struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim va[MAX_VALUES], vb[MAX_VALUES], r[MAX_VALUES];
	int na = get_ints(a, va), nb = get_ints(b, vb), k, m;

	if (na < 1 || nb < 1 || (na != nb && na != 1 && nb != 1))
		return 0;
	m = na > nb ? na : nb;
	for (k = 0; k < m; ++k) {
		struct ein_onnx_dim x = va[na == 1 ? 0 : k];
		struct ein_onnx_dim z = vb[nb == 1 ? 0 : k];

		if (x.sym >= 0 || z.sym >= 0 ||
		    (n->op[0] == 'D' && z.value == 0))
			return 0;
		r[k] = ein_onnx_dim_const(n->op[0] == 'A' ? x.value + z.value :
			n->op[0] == 'S' ? x.value - z.value :
			n->op[0] == 'M' ? x.value * z.value : x.value / z.value);
	}
	return set_ints(y, r, m, a->rank > b->rank ? a->rank : b->rank);
}

/* Neg of an integer vector or scalar whose values are constants. */
static int fold_neg(const struct ein_onnx_tensor *x, struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim v[MAX_VALUES];
	int m = get_ints(x, v), k;

	if (m < 0 || x->dtype != EIN_ONNX_INT64)
		return 0;
	for (k = 0; k < m; ++k) {
		if (v[k].sym >= 0)
			return 0;
		v[k] = ein_onnx_dim_const(-v[k].value);
	}
	return set_ints(y, v, m, x->rank);
}

/* Cast of an integer vector or scalar to INT64. */
static int fold_cast(const struct ein_onnx_tensor *x, struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim v[MAX_VALUES];
	int m = get_ints(x, v);

	return m < 0 ? 0 : set_ints(y, v, m, x->rank);
}

static int size_error(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	return ein_onnx_node_error(l, n, "the number of elements is a "
		"product with a symbolic dimension, which is not supported "
		"(--sizes NAME=VALUE fixes it)");
}

/* The error of a ConstantOfShape or Range that cannot be folded: "what"
 * is not constant, or the result is larger than MAX_FOLD_BYTES. */
static int fold_error(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const char *what, int too_large)
{
	if (too_large)
		return ein_onnx_node_error(l, n, "the result is larger than "
			"%lld bytes, which is not supported (folded at import)",
			(long long) MAX_FOLD_BYTES);
	return ein_onnx_node_error(l, n, "%s must be a constant (computed "
		"at run time is not supported; --sizes NAME=VALUE fixes a "
		"symbolic dimension)", what);
}

/* Size: the number of elements of x, whose shape is known: a constant,
 * or one symbolic dimension when all the others are 1 (N for [N, 1]);
 * a product with a symbol is an error (a dimension has one symbol). */
static int fold_size(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, struct ein_onnx_tensor *y)
{
	struct ein_onnx_dim v = ein_onnx_dim_const(1);
	int64_t prod = 1;
	int d;

	for (d = 0; d < x->rank; ++d) {
		if (x->dim[d].sym < 0 &&
		    __builtin_mul_overflow(prod, x->dim[d].value, &prod))
			return ein_onnx_node_error(l, n, "the number of "
				"elements does not fit in 64 bits");
		else if (x->dim[d].sym < 0)
			continue;
		else if (v.sym >= 0)
			return size_error(l, n);
		else
			v = x->dim[d];
	}
	if (v.sym >= 0 && prod != 1)
		return size_error(l, n);
	if (v.sym < 0)
		v = ein_onnx_dim_const(prod);
	return set_ints(y, &v, 1, 0);
}

/* Make "y" a constant of type "dtype" and shape dim[0 .. rank-1] (all
 * constant), its "count" elements uninitialised; NULL when out of memory
 * or too large to fold (MAX_FOLD_BYTES). */
static void *alloc_const(struct ein_onnx_tensor *y, enum ein_onnx_dtype dtype,
	const struct ein_onnx_dim *dim, int rank, int64_t count)
{
	size_t esize = ein_onnx_dtype_size(dtype);
	int d;

	if (count < 0 || esize == 0 || count > MAX_FOLD_BYTES / (int64_t) esize)
		return NULL;
	free(y->data);
	free(y->sval);
	y->sval = NULL;
	y->data = malloc(count * esize + 1);
	if (!y->data)
		return NULL;
	y->bytes = count * esize;
	y->dtype = dtype;
	y->rank = rank;
	for (d = 0; d < rank; ++d)
		y->dim[d] = dim[d];
	y->role = EIN_ONNX_CONST;
	y->known = 1;
	return y->data;
}

/* ConstantOfShape: a tensor of the constant shape x (no symbolic
 * dimension) filled with the one element of the "value" attribute
 * (absent: FLOAT 0).  An INT64 vector keeps its values as dimensions,
 * for the shape computations that read it. */
static int fold_constant_of_shape(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *y)
{
	const struct ein_onnx_attr *a = ein_onnx_node_attr(n, "value");
	const struct ein_onnx_tensor *v = a && a->kind == EIN_ONNX_ATTR_TENSOR ?
		&l->g->tensor[a->tensor] : NULL;
	struct ein_onnx_dim dim[MAX_VALUES];
	static const float zero;
	int rank = get_ints(x, dim), d;
	int64_t count = 1, k;
	size_t esize;
	unsigned char *data;

	if (a && (!v || v->bytes != ein_onnx_dtype_size(v->dtype) ||
		  !v->data))
		return ein_onnx_node_error(l, n, "the value must be a tensor "
			"of one element");
	if (rank < 0 || x->rank != 1 || rank > EIN_ONNX_MAX_RANK)
		return fold_error(l, n, "the shape (an INT64 vector)", 0);
	for (d = 0; d < rank; ++d) {
		if (dim[d].sym >= 0)
			return fold_error(l, n, "the shape", 0);
		if (dim[d].value < 0)
			return ein_onnx_node_error(l, n, "dimension %d of the "
				"shape is negative", d);
		if (dim[d].value > 0 && count > MAX_FOLD_BYTES / dim[d].value)
			return fold_error(l, n, NULL, 1);
		count *= dim[d].value;
	}
	if (v && v->dtype == EIN_ONNX_INT64 && rank == 1 && count <= MAX_VALUES) {
		struct ein_onnx_dim r[MAX_VALUES];

		for (k = 0; k < count; ++k)
			r[k] = ein_onnx_dim_const(*(int64_t *) v->data);
		return set_ints(y, r, count, 1);
	}
	esize = v ? ein_onnx_dtype_size(v->dtype) : sizeof(float);
	if (count * (int64_t) esize > MAX_FOLD_BYTES)
		return fold_error(l, n, NULL, 1);
	data = alloc_const(y, v ? v->dtype : EIN_ONNX_FLOAT, dim, rank, count);
	if (!data)
		return -1;
	for (k = 0; k < count; ++k)
		memcpy(data + k * esize, v ? v->data : &zero, esize);
	return 1;
}

/* The value of scalar constant "t" (one element of a number type): an
 * integer's into *iv exactly (and *v), a float's into *v; 0 if it is
 * none (or a symbolic dimension). */
static int scalar_value(const struct ein_onnx_tensor *t, double *v,
	int64_t *iv)
{
	if (t->role != EIN_ONNX_CONST || !t->data ||
	    t->bytes != ein_onnx_dtype_size(t->dtype) ||
	    (t->sval && t->sval[0].sym >= 0))
		return 0;
	switch (t->dtype) {
	case EIN_ONNX_INT64: *iv = *(int64_t *) t->data; break;
	case EIN_ONNX_INT32: *iv = *(int32_t *) t->data; break;
	case EIN_ONNX_FLOAT: *v = *(float *) t->data; return 1;
	case EIN_ONNX_DOUBLE: *v = *(double *) t->data; return 1;
	default: return 0;
	}
	*v = (double) *iv;
	return 1;
}

/* The number of elements of an integer Range iv[0] (start), iv[1]
 * (limit), iv[2] (delta, not 0): ceil((limit - start) / delta) if
 * positive, else 0, in int64 without overflow.  -1 if it does not fit. */
static int int_range_count(const int64_t *iv, int64_t *count)
{
	int64_t diff;

	if (__builtin_sub_overflow(iv[1], iv[0], &diff) || diff == INT64_MIN)
		return -1;
	if (diff == 0 || (diff > 0) != (iv[2] > 0)) {
		*count = 0;
		return 0;
	}
	*count = diff / iv[2] + (diff % iv[2] != 0);
	return 0;
}

/* Element k of Range(start, delta) of type "dtype" into "data": start +
 * k delta, as the ONNX specification defines it, exact for integers (iv:
 * the integer start and delta; every element lies between start and
 * limit) and computed in double and rounded to the type for floats (v;
 * k delta is exact in double for a float32 delta and any k that
 * fits). */
static void range_elem(void *data, enum ein_onnx_dtype dtype, int64_t k,
	const double *v, const int64_t *iv)
{
	switch (dtype) {
	case EIN_ONNX_INT64:
		((int64_t *) data)[k] = iv[0] + k * iv[2];
		break;
	case EIN_ONNX_INT32:
		((int32_t *) data)[k] = (int32_t) (iv[0] + k * iv[2]);
		break;
	case EIN_ONNX_FLOAT:
		((float *) data)[k] = (float) (v[0] + k * v[2]);
		break;
	default:
		((double *) data)[k] = v[0] + k * v[2];
	}
}

/* The number of elements of Range v (iv for integers) of type "dtype"
 * into *count; -1 if more than MAX_FOLD_BYTES. */
static int range_count(enum ein_onnx_dtype dtype, const double *v,
	const int64_t *iv, int64_t *count)
{
	int64_t max = MAX_FOLD_BYTES / (int64_t) ein_onnx_dtype_size(dtype);
	double c;

	if (dtype == EIN_ONNX_INT64 || dtype == EIN_ONNX_INT32)
		return int_range_count(iv, count) < 0 || *count > max ? -1 : 0;
	c = ceil((v[1] - v[0]) / v[2]);
	if (!(c <= max))
		return -1;
	*count = c > 0 ? (int64_t) c : 0;
	return 0;
}

/* Range: start, limit and delta constant scalars of one type; the
 * vector of max(ceil((limit - start) / delta), 0) elements.  An INT64
 * range keeps its values as dimensions. */
static int fold_range(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *y)
{
	const struct ein_onnx_tensor *t[3];
	double v[3];
	int64_t iv[3], count, k;
	struct ein_onnx_dim dim;
	void *data;
	int i;

	for (i = 0; i < 3; ++i) {
		if (n->n_in != 3 || n->in[i] < 0)
			return ein_onnx_node_error(l, n, "Range takes three "
				"inputs");
		t[i] = &l->g->tensor[n->in[i]];
		if (t[i]->rank != 0 || t[i]->dtype != t[0]->dtype ||
		    !scalar_value(t[i], &v[i], &iv[i]))
			return fold_error(l, n, "each of start, limit and "
				"delta (scalars of one type)", 0);
	}
	if (v[2] == 0)
		return ein_onnx_node_error(l, n, "delta is 0");
	if (range_count(t[0]->dtype, v, iv, &count) < 0)
		return fold_error(l, n, NULL, 1);
	if (t[0]->dtype == EIN_ONNX_INT64 && count <= MAX_VALUES) {
		struct ein_onnx_dim r[MAX_VALUES];

		for (k = 0; k < count; ++k)
			r[k] = ein_onnx_dim_const(iv[0] + k * iv[2]);
		return set_ints(y, r, count, 1);
	}
	dim = ein_onnx_dim_const(count);
	data = alloc_const(y, t[0]->dtype, &dim, 1, count);
	if (!data)
		return -1;
	for (k = 0; k < count; ++k)
		range_elem(data, t[0]->dtype, k, v, iv);
	return 1;
}

/* Are all the inputs of "n" constants? */
static int all_const(const struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	int i;

	for (i = 0; i < n->n_in; ++i)
		if (n->in[i] >= 0 &&
		    l->g->tensor[n->in[i]].role != EIN_ONNX_CONST)
			return 0;
	return 1;
}

/* Is "op" computed only here, never by ein (the operators of shapes)? */
static int is_fold_only(const char *op)
{
	static const char *ops[] = { "Shape", "Size", "ConstantOfShape",
		"Range" };
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

int ein_onnx_fold(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = n->n_in > 0 && n->in[0] >= 0 ?
		&l->g->tensor[n->in[0]] : NULL;
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	const char *op = n->op;

	if (y && y->output && is_fold_only(op))
		return ein_onnx_node_error(l, n, "its output '%s' is a graph "
			"output: an output computed at import (a constant) is "
			"not supported", y->name);
	if (!y || y->output)
		return 0;
	if (!strcmp(op, "Constant"))
		return fold_constant(l, n, y);
	if (!strcmp(op, "Shape") && x && x->known)
		return fold_shape(l, n, x, y);
	if (!strcmp(op, "Size") && x && x->known)
		return fold_size(l, n, x, y);
	if (!strcmp(op, "ConstantOfShape") && x)
		return fold_constant_of_shape(l, n, x, y);
	if (!strcmp(op, "Range"))
		return fold_range(l, n, y);
	if (!x || !all_const(l, n))
		return 0;
	if (!strcmp(op, "Identity"))
		return copy_const(y, x);
	if (!strcmp(op, "Cast") && ein_onnx_node_int(n, "to", 0) ==
			EIN_ONNX_INT64)
		return fold_cast(x, y);
	if (!strcmp(op, "Gather") && n->n_in == 2)
		return fold_gather(l, n, x, &l->g->tensor[n->in[1]], y);
	if (!strcmp(op, "Concat"))
		return fold_concat(l, n, y);
	if (!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze"))
		return fold_squeeze(n, x, y);
	if (!strcmp(op, "Slice"))
		return fold_slice(l, n, x, y);
	if ((!strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") ||
			!strcmp(op, "Div")) && n->n_in == 2)
		return fold_arith(n, x, &l->g->tensor[n->in[1]], y);
	if (!strcmp(op, "Neg"))
		return fold_neg(x, y);
	return 0;
}
