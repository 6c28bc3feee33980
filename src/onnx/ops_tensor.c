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
	char idx[EIN_ONNX_MAX_RANK][48], lin[EIN_ONNX_MAX_RANK * 64];
	int xs[EIN_ONNX_MAX_RANK], ys[EIN_ONNX_MAX_RANK];
	int nx = non_unit(x, xs), ny = non_unit(y, ys), p, k, d;
	int64_t stride = 1;

	for (d = 0; d < x->rank; ++d)
		strcpy(idx[d], "0");
	for (p = 0; p < nx && p < ny &&
			ein_onnx_dim_eq(x->dim[xs[p]], y->dim[ys[p]]); ++p)
		snprintf(idx[xs[p]], 48, "i%d", ys[p]);
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
		snprintf(idx[xs[k]], 48, "%s%s%s%s%s", *div || *mod ? paren : "",
			lin, *div || *mod ? (*paren ? ")" : "") : "", div, mod);
		if (strlen(lin) > 40 && (*div || *mod))
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
 * product of the constants. */
static int64_t split_dims(const struct ein_onnx_dim *dim, int rank, int *count)
{
	int64_t c = 1;
	int d;

	for (d = 0; d < rank; ++d) {
		if (dim[d].sym >= 0)
			count[dim[d].sym]++;
		else
			c *= dim[d].value;
	}
	return c;
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
	char idx[EIN_ONNX_MAX_RANK][48];
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
		snprintf(idx[perm[d]], 48, "i%d", d);
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
	char idx[EIN_ONNX_MAX_RANK][48];
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
			snprintf(idx[d], 48, d == axis && off ? "i%d - %lld" :
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
