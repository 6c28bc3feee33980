/*
 * ops_tensor.c: operators that move elements without computing: Reshape,
 * Flatten, Squeeze, Unsqueeze (one index mapping), Transpose, Concat,
 * Identity and Dropout (inference: a copy).
 *
 * A reshape keeps row-major order.  Its index mapping reads
 * x(i0, ..., (L / S_q) % D_q, ...) where L is the row-major position of
 * the element of y in the dimensions that change; the leading dimensions
 * the two shapes share (a symbolic batch) and dimensions of extent 1
 * map one to one, so that symbolic sizes stay out of the arithmetic.
 */
#include <string.h>
#include "onnx/ops.h"

/* The dimensions of t that are not a constant 1, into pos[]; their
 * number. */
static int non_unit(const struct ein_onnx_tensor *t, int *pos)
{
	int d, k = 0;

	for (d = 0; d < t->rank; ++d)
		if (t->dim[d].sym >= 0 || t->dim[d].value != 1)
			pos[k++] = d;
	return k;
}

/* Append the row-major position of y's element in dimensions ys[p ..
 * ny-1] to buf ("i3 * 64 + i4 * 8 + i5"). */
static void print_linear(const struct ein_onnx_tensor *y, const int *ys,
	int p, int ny, char *buf, size_t size)
{
	int64_t stride = 1;
	int k;

	buf[0] = '\0';
	for (k = ny - 1; k >= p; --k) {
		char term[64];

		if (stride == 1)
			snprintf(term, sizeof(term), "i%d", ys[k]);
		else
			snprintf(term, sizeof(term), "i%d * %lld", ys[k],
				(long long) stride);
		if (k < ny - 1) {
			size_t len = strlen(term);

			memmove(buf + len + 3, buf, strlen(buf) + 1);
			memcpy(buf, term, len);
			memcpy(buf + len, " + ", 3);
		} else {
			snprintf(buf, size, "%s", term);
		}
		stride *= y->dim[ys[k]].value;
	}
}

/* Write y(I) = x(...) for y a reshape of x (same number of elements). */
static int print_reshape(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	struct ein_onnx_tensor *x, struct ein_onnx_tensor *y)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX], lin[EIN_ONNX_MAX_RANK * 64];
	int xs[EIN_ONNX_MAX_RANK], ys[EIN_ONNX_MAX_RANK];
	int nx = non_unit(x, xs), ny = non_unit(y, ys), p, k, d;
	int64_t stride = 1;

	for (d = 0; d < x->rank; ++d)
		strcpy(idx[d], "0");
	for (p = 0; p < nx && p < ny &&
			ein_onnx_dim_eq(x->dim[xs[p]], y->dim[ys[p]]); ++p)
		snprintf(idx[xs[p]], EIN_ONNX_IDX, "i%d", ys[p]);
	for (k = p; k < nx; ++k)
		if (x->dim[xs[k]].sym >= 0)
			return ein_onnx_need_const_shape(l, n, x, "reshaping "
				"its dimensions");
	for (k = p; k < ny; ++k)
		if (y->dim[ys[k]].sym >= 0)
			return ein_onnx_need_const_shape(l, n, y, "reshaping "
				"its dimensions");
	print_linear(y, ys, p, ny, lin, sizeof(lin));
	if (!*lin)
		strcpy(lin, "0");
	for (k = nx - 1; k >= p; --k) {
		const char *paren = strchr(lin, ' ') ? "(" : "";
		char div[64] = "", mod[64] = "";

		if (stride > 1)
			snprintf(div, sizeof(div), " / %lld", (long long) stride);
		if (k > p)
			snprintf(mod, sizeof(mod), " %% %lld",
				(long long) x->dim[xs[k]].value);
		if (snprintf(idx[xs[k]], EIN_ONNX_IDX, "%s%s%s%s%s",
				*div || *mod ? paren : "", lin, *div || *mod ?
				(*paren ? ")" : "") : "", div, mod) >=
				EIN_ONNX_IDX)
			return ein_onnx_node_error(l, n, "the reshape of '%s' "
				"has too many dimensions to map", x->name);
		stride *= x->dim[xs[k]].value;
	}
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_access(l, x, idx);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The product of dims[lo .. hi-1] as one dimension: a constant, or a
 * symbolic size times constants that multiply to 1. */
static int dim_product(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, int lo, int hi, struct ein_onnx_dim *r)
{
	int64_t c = 1;
	int d, sym = -1;

	for (d = lo; d < hi; ++d) {
		if (x->dim[d].sym < 0)
			c *= x->dim[d].value;
		else if (sym >= 0)
			return ein_onnx_need_const_shape(l, n, x, "a product "
				"of its dimensions");
		else
			sym = d;
	}
	if (sym >= 0 && c != 1)
		return ein_onnx_need_const_shape(l, n, x, "a product of its "
			"dimensions");
	*r = sym >= 0 ? x->dim[sym] : ein_onnx_dim_const(c);
	return 0;
}

/* Flatten: (d0 ... d{a-1}) x (da ...). */
int ein_onnx_lower_flatten(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "input");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[2];
	int axis;

	if (!x || !y || ein_onnx_need_ein_type(l, n, x) < 0)
		return -1;
	axis = ein_onnx_node_int(n, "axis", 1);
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis > x->rank)
		return ein_onnx_node_error(l, n, "axis %d is out of range",
			axis);
	if (dim_product(l, n, x, 0, axis, &dim[0]) < 0 ||
	    dim_product(l, n, x, axis, x->rank, &dim[1]) < 0)
		return -1;
	ein_onnx_set_shape(y, x->dtype, 2, dim);
	return print_reshape(l, n, x, y);
}

/* The symbolic sizes in dim[0 .. rank-1] (as a count per size) and the
 * product of the constants, EIN_ONNX_MAX_ELEM + 1 if it is larger (a
 * model's shape constants can be anything: a shape that large never
 * fits an input, which has fewer elements, and an output that large is
 * refused after the node). */
static int64_t split_dims(const struct ein_onnx_dim *dim, int rank, int *count)
{
	int d;

	for (d = 0; d < rank; ++d)
		if (dim[d].sym >= 0)
			count[dim[d].sym]++;
	return ein_onnx_const_product(dim, rank);
}

/* Resolve the -1 of a Reshape at "pos" in dim[], given x's shape. */
static int infer_dim(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, struct ein_onnx_dim *dim, int rank,
	int pos)
{
	int cx[l->g->n_size + 1], ck[l->g->n_size + 1], s, sym = -1;
	int64_t px, pk;

	memset(cx, 0, sizeof(cx));
	memset(ck, 0, sizeof(ck));
	dim[pos] = ein_onnx_dim_const(1);
	px = split_dims(x->dim, x->rank, cx);
	pk = split_dims(dim, rank, ck);
	for (s = 0; s < l->g->n_size; ++s) {
		if (ck[s] > cx[s] || cx[s] - ck[s] > 1 ||
		    (cx[s] > ck[s] && sym >= 0))
			return ein_onnx_node_error(l, n, "cannot infer the -1 "
				"of the shape from symbolic sizes");
		if (cx[s] > ck[s])
			sym = s;
	}
	if (pk == 0 || px % pk || (sym >= 0 && px != pk))
		return ein_onnx_node_error(l, n, "the shape does not fit the "
			"%lld elements of '%s'", (long long) px, x->name);
	dim[pos] = sym >= 0 ? (struct ein_onnx_dim) { 0, sym } :
		ein_onnx_dim_const(px / pk);
	return 0;
}

/* The target shape of a Reshape from its constant input. */
static int reshape_shape(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, const struct ein_onnx_tensor *s,
	struct ein_onnx_dim *dim, int *rank)
{
	int64_t k, m = s->bytes / 8;
	int allowzero = ein_onnx_node_int(n, "allowzero", 0), minus = -1;

	if (s->role != EIN_ONNX_CONST || s->dtype != EIN_ONNX_INT64 ||
	    s->rank != 1)
		return ein_onnx_node_error(l, n, "the shape '%s' must be a "
			"constant INT64 vector (a dynamic shape is not "
			"supported)", s->name);
	if (m > EIN_ONNX_MAX_RANK)
		return ein_onnx_node_error(l, n, "the shape has too many "
			"dimensions");
	for (k = 0; k < m; ++k) {
		struct ein_onnx_dim v = s->sval ? s->sval[k] :
			ein_onnx_dim_const(((int64_t *) s->data)[k]);

		if (v.sym < 0 && v.value == 0 && !allowzero && k < x->rank)
			v = x->dim[k];
		if (v.sym < 0 && v.value == -1 && minus < 0)
			minus = k;
		else if (v.sym < 0 && v.value < 1)
			return ein_onnx_node_error(l, n, "dimension %lld of "
				"the shape is %lld", (long long) k,
				(long long) v.value);
		dim[k] = v;
	}
	*rank = m;
	if (minus >= 0)
		return infer_dim(l, n, x, dim, m, minus);
	return 0;
}

/* Reshape to a constant shape (0 copies the input's dimension unless
 * allowzero, -1 is inferred). */
int ein_onnx_lower_reshape(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "data");
	struct ein_onnx_tensor *s = ein_onnx_in(l, n, 1, "shape");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	int rank = 0, cx[l->g->n_size + 1], cy[l->g->n_size + 1], i;

	if (!x || !s || !y || ein_onnx_need_ein_type(l, n, x) < 0 ||
	    reshape_shape(l, n, x, s, dim, &rank) < 0)
		return -1;
	memset(cx, 0, sizeof(cx));
	memset(cy, 0, sizeof(cy));
	if (split_dims(x->dim, x->rank, cx) != split_dims(dim, rank, cy))
		return ein_onnx_node_error(l, n, "the shape does not keep the "
			"number of elements of '%s'", x->name);
	for (i = 0; i < l->g->n_size; ++i)
		if (cx[i] != cy[i])
			return ein_onnx_node_error(l, n, "the shape does not "
				"keep the symbolic sizes of '%s'", x->name);
	ein_onnx_set_shape(y, x->dtype, rank, dim);
	return print_reshape(l, n, x, y);
}

/* The axes of Squeeze and Unsqueeze: attribute (before opset 13) or
 * constant input. */
static int squeeze_axes(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int64_t *axes, int *count)
{
	struct ein_onnx_tensor *at = ein_onnx_in(l, n, 1, NULL);

	if (at)
		return ein_onnx_const_ints(l, n, at, "axes", axes, count,
			EIN_ONNX_MAX_RANK);
	return ein_onnx_attr_ints(l, n, "axes", axes, count,
		EIN_ONNX_MAX_RANK);
}

/* Squeeze (drop dimensions of extent 1) and Unsqueeze (insert them). */
int ein_onnx_lower_squeeze(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "data");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	int64_t axes[EIN_ONNX_MAX_RANK];
	int flag[2 * EIN_ONNX_MAX_RANK] = { 0 }, count, d, k, rank, a;
	int un = !strcmp(n->op, "Unsqueeze");

	if (!x || !y || ein_onnx_need_ein_type(l, n, x) < 0 ||
	    squeeze_axes(l, n, axes, &count) < 0)
		return -1;
	rank = un ? x->rank + count : x->rank;
	if (rank > EIN_ONNX_MAX_RANK)
		return ein_onnx_node_error(l, n, "too many dimensions");
	for (k = 0; k < count; ++k) {
		if ((a = ein_onnx_axis(l, n, axes[k], rank)) < 0)
			return -1;
		flag[a] = 1;
	}
	for (d = 0, k = 0; d < (un ? rank : x->rank); ++d) {
		if (un) {
			dim[d] = flag[d] ? ein_onnx_dim_const(1) : x->dim[k++];
			continue;
		}
		if ((count ? flag[d] : x->dim[d].sym < 0 &&
				x->dim[d].value == 1)) {
			if (x->dim[d].sym >= 0 || x->dim[d].value != 1)
				return ein_onnx_node_error(l, n, "dimension "
					"%d of '%s' is not 1", d, x->name);
			continue;
		}
		dim[k++] = x->dim[d];
	}
	ein_onnx_set_shape(y, x->dtype, un ? rank : k, dim);
	return print_reshape(l, n, x, y);
}

/* Transpose: y dimension d is x dimension perm[d] (reversed without
 * perm). */
int ein_onnx_lower_transpose(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "data");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int64_t perm[EIN_ONNX_MAX_RANK];
	int count, d, seen[EIN_ONNX_MAX_RANK] = { 0 };

	if (!x || !y || ein_onnx_need_ein_type(l, n, x) < 0 ||
	    ein_onnx_attr_ints(l, n, "perm", perm, &count,
			EIN_ONNX_MAX_RANK) < 0)
		return -1;
	if (!count)
		for (d = 0, count = x->rank; d < x->rank; ++d)
			perm[d] = x->rank - 1 - d;
	if (count != x->rank)
		return ein_onnx_node_error(l, n, "perm has %d values for rank "
			"%d", count, x->rank);
	for (d = 0; d < x->rank; ++d) {
		if (perm[d] < 0 || perm[d] >= x->rank || seen[perm[d]]++)
			return ein_onnx_node_error(l, n, "perm is not a "
				"permutation");
		dim[d] = x->dim[perm[d]];
		snprintf(idx[perm[d]], EIN_ONNX_IDX, "i%d", d);
	}
	ein_onnx_set_shape(y, x->dtype, x->rank, dim);
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_access(l, x, idx);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Check the inputs of a Concat along "axis" and compute y's shape. */
static int concat_shape(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int axis, struct ein_onnx_tensor *y)
{
	struct ein_onnx_tensor *x0 = ein_onnx_in(l, n, 0, "inputs"), *x;
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	int64_t total = 0;
	int i, d;

	for (i = 0; i < n->n_in; ++i) {
		if (!(x = ein_onnx_in(l, n, i, "inputs")))
			return -1;
		if (x->rank != x0->rank || x->dtype != x0->dtype)
			return ein_onnx_node_error(l, n, "inputs '%s' and '%s' "
				"differ in rank or type", x0->name, x->name);
		for (d = 0; d < x->rank; ++d)
			if (d != axis && !ein_onnx_dim_eq(x->dim[d], x0->dim[d]))
				return ein_onnx_node_error(l, n, "inputs '%s' "
					"and '%s' differ in dimension %d",
					x0->name, x->name, d);
		if (x->dim[axis].sym >= 0 && n->n_in > 1)
			return ein_onnx_need_const_shape(l, n, x,
				"concatenation");
		total += x->dim[axis].value;
	}
	memcpy(dim, x0->dim, sizeof(dim));
	if (n->n_in > 1)
		dim[axis] = ein_onnx_dim_const(total);
	ein_onnx_set_shape(y, x0->dtype, x0->rank, dim);
	return 0;
}

/* Concat: one statement choosing the input by the index along the axis,
 * "i1 < 3 ? a(i0, i1) : i1 < 5 ? b(i0, i1 - 3) : c(i0, i1 - 5)" (each read
 * is checked only under its guard). */
int ein_onnx_lower_concat(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x0 = ein_onnx_in(l, n, 0, "inputs"), *x;
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int64_t off = 0;
	int axis, i, d;

	if (!x0 || !y || ein_onnx_need_ein_type(l, n, x0) < 0 ||
	    (axis = ein_onnx_axis(l, n, ein_onnx_node_int(n, "axis", 0),
			x0->rank)) < 0 || concat_shape(l, n, axis, y) < 0)
		return -1;
	ein_onnx_print_lhs(l, y, "=");
	for (i = 0; i < n->n_in; ++i) {
		x = ein_onnx_in(l, n, i, "inputs");
		for (d = 0; d < x->rank; ++d)
			snprintf(idx[d], EIN_ONNX_IDX, d == axis && off ? "i%d - %lld" :
				"i%d", d, (long long) off);
		off += x->dim[axis].value;
		if (i + 1 < n->n_in)
			fprintf(l->out, "i%d < %lld ? ", axis, (long long) off);
		ein_onnx_print_access(l, x, idx);
		if (i + 1 < n->n_in)
			fputs(" : ", l->out);
	}
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Identity, and Dropout at inference: a copy. */
int ein_onnx_lower_identity(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "input");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);

	if (!x || !y || ein_onnx_need_ein_type(l, n, x) < 0)
		return -1;
	if (ein_onnx_out(l, n, 1))
		return ein_onnx_node_error(l, n, "the mask output is not "
			"supported (inference only)");
	ein_onnx_set_shape(y, x->dtype, x->rank, x->dim);
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_bcast(l, x, y->rank, y->dim);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The begin, step and extent along one axis of a Slice, from ONNX's
 * starts and ends (clamped as the specification says). */
static int slice_axis(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int64_t dim, int64_t start, int64_t end, int64_t step, int64_t *len)
{
	if (step == 0)
		return ein_onnx_node_error(l, n, "a step of 0");
	if (start < 0)
		start += dim;
	if (end < 0)
		end += dim;
	if (step > 0) {
		start = start < 0 ? 0 : start > dim ? dim : start;
		end = end < 0 ? 0 : end > dim ? dim : end;
		*len = end > start ? (end - start + step - 1) / step : 0;
	} else {
		start = start < 0 ? 0 : start > dim - 1 ? dim - 1 : start;
		end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
		*len = start > end ? (start - end - step - 1) / -step : 0;
	}
	if (*len < 1)
		return ein_onnx_node_error(l, n, "an empty slice (empty "
			"tensors are not supported)");
	return start;
}

/* The starts, ends, axes and steps of a Slice: constant inputs (opset 10
 * and later) or attributes; axes default to 0, 1, ..., steps to 1. */
static int slice_params(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int64_t v[4][EIN_ONNX_MAX_RANK], int *count)
{
	static const char *what[] = { "starts", "ends", "axes", "steps" };
	int i, c, k;

	for (i = 0; i < 4; ++i) {
		struct ein_onnx_tensor *t = n->n_in > 1 ?
			ein_onnx_in(l, n, 1 + i, NULL) : NULL;

		c = -1;
		if (t && ein_onnx_const_ints(l, n, t, what[i], v[i], &c,
				EIN_ONNX_MAX_RANK) < 0)
			return -1;
		if (!t && n->n_in <= 1 && ein_onnx_node_attr(n, what[i]) &&
		    ein_onnx_attr_ints(l, n, what[i], v[i], &c,
				EIN_ONNX_MAX_RANK) < 0)
			return -1;
		if (i == 0)
			*count = c;
		if (c < 0 && i >= 2)
			for (c = k = 0; k < *count; ++k, ++c)
				v[i][k] = i == 2 ? k : 1;
		if (c < 0 || c != *count)
			return ein_onnx_node_error(l, n, "%s has %d values, "
				"starts %d", what[i], c, *count);
	}
	return 0;
}

/* Slice with constant parameters: y(i) = x(start + step * i) along each
 * sliced axis. */
int ein_onnx_lower_slice(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "data");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int64_t v[4][EIN_ONNX_MAX_RANK], len = 0;
	int count, k, a, d;

	if (!x || !y || ein_onnx_need_ein_type(l, n, x) < 0 ||
	    slice_params(l, n, v, &count) < 0)
		return -1;
	memcpy(dim, x->dim, sizeof(dim));
	for (d = 0; d < x->rank; ++d)
		snprintf(idx[d], EIN_ONNX_IDX, "i%d", d);
	for (k = 0; k < count; ++k) {
		int64_t b;

		if ((a = ein_onnx_axis(l, n, v[2][k], x->rank)) < 0)
			return -1;
		if (x->dim[a].sym >= 0)
			return ein_onnx_need_const_shape(l, n, x, "slicing");
		b = slice_axis(l, n, x->dim[a].value, v[0][k], v[1][k],
			v[3][k], &len);
		if (b < 0)
			return -1;
		dim[a] = ein_onnx_dim_const(len);
		if (v[3][k] == 1)
			snprintf(idx[a], EIN_ONNX_IDX, b ? "i%d + %lld" : "i%d", a,
				(long long) b);
		else
			snprintf(idx[a], EIN_ONNX_IDX, "%lld + %lld * i%d", (long long) b,
				(long long) v[3][k], a);
	}
	ein_onnx_set_shape(y, x->dtype, x->rank, dim);
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_access(l, x, idx);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Split along an axis into parts of the sizes given (input from opset
 * 13, attribute before) or equal parts. */
int ein_onnx_lower_split(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "input");
	struct ein_onnx_tensor *st = ein_onnx_in(l, n, 1, NULL), *y;
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int64_t split[EIN_ONNX_MAX_RANK * 8], off = 0, total = 0;
	int count, axis, k, d;

	if (!x || ein_onnx_need_ein_type(l, n, x) < 0 ||
	    (axis = ein_onnx_axis(l, n, ein_onnx_node_int(n, "axis", 0),
			x->rank)) < 0 ||
	    (st ? ein_onnx_const_ints(l, n, st, "split", split, &count, 64) :
		  ein_onnx_attr_ints(l, n, "split", split, &count, 64)) < 0)
		return -1;
	if (x->dim[axis].sym >= 0)
		return ein_onnx_need_const_shape(l, n, x, "splitting");
	if (!count)
		for (count = n->n_out, k = 0; k < count; ++k)
			split[k] = x->dim[axis].value / count;
	for (k = 0; k < count; ++k)
		total += split[k];
	if (count != n->n_out || total != x->dim[axis].value)
		return ein_onnx_node_error(l, n, "the parts do not split "
			"dimension %d of '%s' into %d outputs", axis, x->name,
			n->n_out);
	for (k = 0; k < count; off += split[k++]) {
		if (!(y = ein_onnx_out(l, n, k)))
			continue;
		memcpy(dim, x->dim, sizeof(dim));
		dim[axis] = ein_onnx_dim_const(split[k]);
		for (d = 0; d < x->rank; ++d)
			snprintf(idx[d], EIN_ONNX_IDX, d == axis && off ? "i%d + %lld" :
				"i%d", d, (long long) off);
		ein_onnx_set_shape(y, x->dtype, x->rank, dim);
		ein_onnx_print_lhs(l, y, "=");
		ein_onnx_print_access(l, x, idx);
		ein_onnx_print_where(l, y, 0);
	}
	return 0;
}

/* Gather with indices read at run time (an embedding's token ids), for
 * which ein has no indirect access: y(before, j, after) sums over every
 * position r of the gathered axis the element that the index selects,
 * (ind(j) == r || ind(j) == r - K) ? x(before, r, after) : 0 (a negative
 * index counts from the end, as ONNX's do), exactly the selected
 * element, at the cost of K reads per element.  An index outside -K..K-1
 * gives 0 (ONNX leaves it undefined). */
static int lower_gather_runtime(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *it, struct ein_onnx_tensor *y, int axis)
{
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	char jdx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int d, j, r = 0;
	int64_t k;

	if (it->dtype != EIN_ONNX_INT32)
		return ein_onnx_node_error(l, n, "indices '%s' read at run "
			"time are %s; the importer supports INT32 (ein does not "
			"compute with INT64)", it->name,
			ein_onnx_dtype_name(it->dtype));
	if (x->dtype != EIN_ONNX_FLOAT && x->dtype != EIN_ONNX_DOUBLE &&
	    x->dtype != EIN_ONNX_INT32)
		return ein_onnx_node_error(l, n, "data '%s' is %s; gathering "
			"at run time is supported on FLOAT, DOUBLE and INT32",
			x->name, ein_onnx_dtype_name(x->dtype));
	if (x->dim[axis].sym >= 0)
		return ein_onnx_need_const_shape(l, n, x, "gathering");
	if (x->rank + it->rank - 1 > EIN_ONNX_MAX_RANK)
		return ein_onnx_node_error(l, n, "the output's rank is over %d",
			EIN_ONNX_MAX_RANK);
	k = x->dim[axis].value;
	for (d = 0; d < x->rank; ++d) {
		if (d != axis) {
			dim[r] = x->dim[d];
			snprintf(idx[d], EIN_ONNX_IDX, "i%d", r++);
			continue;
		}
		snprintf(idx[d], EIN_ONNX_IDX, "r0");
		for (j = 0; j < it->rank; ++j) {
			dim[r] = it->dim[j];
			snprintf(jdx[j], EIN_ONNX_IDX, "i%d", r++);
		}
	}
	ein_onnx_set_shape(y, x->dtype, r, dim);
	ein_onnx_print_lhs(l, y, "+=!");
	fputc('(', l->out);
	ein_onnx_print_access(l, it, jdx);
	fputs(" == r0 || ", l->out);
	ein_onnx_print_access(l, it, jdx);
	fprintf(l->out, " == r0 - %lld) ? ", (long long) k);
	ein_onnx_print_access(l, x, idx);
	fputs(" : 0", l->out);
	ein_onnx_print_where(l, y, 1);
	fprintf(l->out, "r0 in 0:%lld\n", (long long) k);
	return 0;
}

/* Gather with constant indices that are a scalar or an arithmetic
 * progression (a + b * j): an affine read; other indices, or indices read
 * at run time, as lower_gather_runtime. */
int ein_onnx_lower_gather(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "data");
	struct ein_onnx_tensor *it = ein_onnx_in(l, n, 1, "indices");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int64_t v[64], b = 0;
	int count, axis, d, r = 0;

	if (!x || !it || !y || ein_onnx_need_ein_type(l, n, x) < 0)
		return -1;
	if ((axis = ein_onnx_axis(l, n, ein_onnx_node_int(n, "axis", 0),
			x->rank)) < 0)
		return -1;
	if (it->role != EIN_ONNX_CONST)
		return lower_gather_runtime(l, n, x, it, y, axis);
	if (it->rank > 1)
		return ein_onnx_node_error(l, n, "constant indices '%s' of "
			"rank %d are not supported (a scalar or a vector are)",
			it->name, it->rank);
	if (ein_onnx_const_ints(l, n, it, "indices", v, &count, 64) < 0)
		return -1;
	if (x->dim[axis].sym >= 0)
		return ein_onnx_need_const_shape(l, n, x, "gathering");
	for (d = 0; d < count; ++d) {
		if (v[d] < 0)
			v[d] += x->dim[axis].value;
		if (v[d] < 0 || v[d] >= x->dim[axis].value)
			return ein_onnx_node_error(l, n, "index %lld is out of "
				"range", (long long) v[d]);
	}
	if (count > 1)
		b = v[1] - v[0];
	for (d = 2; d < count; ++d)
		if (v[d] - v[d - 1] != b)
			return ein_onnx_node_error(l, n, "the indices are not "
				"an arithmetic progression (not supported)");
	for (d = 0; d < x->rank; ++d) {
		if (d != axis) {
			dim[r] = x->dim[d];
			snprintf(idx[d], EIN_ONNX_IDX, "i%d", r++);
		} else if (it->rank == 0) {
			snprintf(idx[d], EIN_ONNX_IDX, "%lld", (long long) v[0]);
		} else {
			dim[r] = ein_onnx_dim_const(count);
			snprintf(idx[d], EIN_ONNX_IDX, "%lld + %lld * i%d",
				(long long) v[0], (long long) b, r++);
		}
	}
	ein_onnx_set_shape(y, x->dtype, r, dim);
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_access(l, x, idx);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Pad in constant mode, with constant pads and value: y(i) = x(i - pb)
 * inside the input, the value elsewhere. */
int ein_onnx_lower_pad(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "data");
	struct ein_onnx_tensor *pt = ein_onnx_in(l, n, 1, NULL);
	struct ein_onnx_tensor *vt = ein_onnx_in(l, n, 2, NULL);
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int64_t pads[2 * EIN_ONNX_MAX_RANK];
	double value = ein_onnx_node_float(n, "value", 0);
	int count, d, any = 0;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    (pt ? ein_onnx_const_ints(l, n, pt, "pads", pads, &count,
			2 * EIN_ONNX_MAX_RANK) :
		  ein_onnx_attr_ints(l, n, "pads", pads, &count,
			2 * EIN_ONNX_MAX_RANK)) < 0 ||
	    (vt && ein_onnx_const_float(l, n, vt, "constant_value",
			&value) < 0))
		return -1;
	if (strcmp(ein_onnx_node_string(n, "mode", "constant"), "constant"))
		return ein_onnx_node_error(l, n, "mode '%s' is not supported",
			ein_onnx_node_string(n, "mode", ""));
	if (count != 2 * x->rank || ein_onnx_in(l, n, 3, NULL))
		return ein_onnx_node_error(l, n, "pads must have two values per "
			"dimension (the axes input is not supported)");
	for (d = 0; d < x->rank; ++d) {
		if (pads[d] < 0 || pads[x->rank + d] < 0)
			return ein_onnx_node_error(l, n, "negative pads are "
				"not supported");
		if ((pads[d] || pads[x->rank + d]) && x->dim[d].sym >= 0)
			return ein_onnx_need_const_shape(l, n, x, "padding");
		dim[d] = x->dim[d].sym >= 0 ? x->dim[d] : ein_onnx_dim_const(
			x->dim[d].value + pads[d] + pads[x->rank + d]);
		snprintf(idx[d], EIN_ONNX_IDX, pads[d] ? "i%d - %lld" : "i%d", d,
			(long long) pads[d]);
	}
	ein_onnx_set_shape(y, x->dtype, x->rank, dim);
	ein_onnx_print_lhs(l, y, "=");
	for (d = 0; d < x->rank; ++d) {
		if (pads[d])
			fprintf(l->out, "%si%d >= %lld", any++ ? " && " : "", d,
				(long long) pads[d]);
		if (pads[d] || pads[x->rank + d])
			fprintf(l->out, "%si%d < %lld", any++ ? " && " : "", d,
				(long long) (pads[d] + x->dim[d].value));
	}
	fputs(any ? " ? " : "", l->out);
	ein_onnx_print_access(l, x, idx);
	if (any) {
		fputs(" : ", l->out);
		ein_onnx_print_float(l, value);
	}
	ein_onnx_print_where(l, y, 0);
	return 0;
}
