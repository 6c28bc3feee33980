/*
 * quantize.c: the int8 plan of a graph and its statements
 * (docs/quantization.md states the arithmetic).
 *
 * Activations are uint8 with a zero point: r = S (q - Z), S and Z from
 * the profiled range [lo, hi] (widened to hold 0, so that zero and the
 * padding are exact): S = (hi - lo) / Q rounded to float32, Z =
 * round(-lo / S), with Q = 255, or 127 with 7-bit activations
 * (ein_options_set_activation_bits: CPUs without VNNI then compute the
 * dot products with vpmaddubsw, codegen/llvm_dot4.c).  The range is
 * the one seen (minmax), or one that clips outliers, chosen from the
 * histogram (calib.h): the 0.01 and 99.99 percentiles (percentile) or
 * the threshold of least KL divergence (kl).
 * Weights are int8, symmetric (Z = 0), one scale per output channel:
 * S_w[m] = max |W[m]| / 127, W_q = round(W / S_w) (half away from zero).
 * The bias is int32 with scale S_x S_w[m].  A node computes
 *
 *     acc = sum (X_q - Z_x) W_q + b_q                      (int32)
 *     Y_q = uint8(clamp(qmul(acc, mult[m], shift[m]) + Z_y, lo, Q))
 *
 * with mult / 2^shift = S_x S_w[m] / S_y (Q31, gemmlowp's form) and lo
 * = Z_y when a Relu is fused (else 0).  A Conv of one group computes the
 * same acc as four-term dot products of uint8 by int8, vpdpbusd's form:
 * over its input padded with Z_x, its weights in VNNI's layout, its bias
 * lowered by Z_x sum W_q (vnni_weights); so does a MatMul or Gemm whose
 * reduction is a multiple of 4, over its input in place
 * (vnni_matrix_weights).  A float operator reading an int8
 * tensor gets it dequantised, (q - Z) S in float32; an int8 node reading
 * a float tensor gets it quantised, round(x / S) + Z (ties to even, as
 * ONNX's QuantizeLinear, ein_onnx_print_quantize) saturated to 0..Q.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "onnx/calib.h"
#include "onnx/quantize.h"

/* What the plan does with a node. */
enum qkind {
	Q_FLOAT,	/* the operator's float statements */
	Q_CONV,		/* int8 statements */
	Q_GEMM,
	Q_MATMUL,
	Q_ADD,		/* int8 statements without weights */
	Q_MAXPOOL,
	Q_AVGPOOL,
	Q_FUSED		/* a Relu computed by the int8 node before it */
};

/* A node's plan.
 * kind: as above; out: the tensor the int8 statements write (the node's
 *	output, or the last fused node's); relu, add: the fused Relu node
 *	and the fused Add of a MatMul's bias, or 0; bias: the float bias
 *	(the node's third input, or the fused Add's constant), -1 if none;
 * wq, bq, mq, sq: the constants of the weights (int8), bias (int32, -1
 *	if none), multipliers and shifts (int32, per output channel);
 * tb: Gemm's transB;
 * dot4: a Conv, MatMul or Gemm computed as four-term dot products
 *	(vnni_weights, vnni_matrix_weights), with
 *	wv, bv: its weights in VNNI's layout (int8) and its bias lowered by
 *	Z_x sum W (int32, per output channel). */
struct qnode {
	enum qkind kind;
	int out;
	int relu;
	int add;
	int bias;
	int wq, bq, mq, sq;
	int tb;
	int dot4;
	int wv, bv;
};

/* A tensor's state.
 * qp: it has a scale and a zero point (from the profile);
 * scale, zp: them;
 * has_float: its float values exist under its id;
 * qid: the name of its uint8 values, NULL until written. */
struct qtensor {
	int qp;
	double scale;
	int zp;
	int has_float;
	char *qid;
};

/* The plan: the profile's root object while planning; the tensors'
 * states (n_tensor, as many as the graph has); the nodes'. */
struct ein_onnx_quant {
	ein_ctx *ctx;
	const char *path;
	const char *profile;
	ein_calibration cal;
	int qmax;
	json_object *root;
	int n_tensor;
	struct qtensor *t;
	struct qnode *n;
};

void ein_onnx_quant_free(struct ein_onnx_quant *q)
{
	int i;

	if (!q)
		return;
	for (i = 0; q->t && i < q->n_tensor; ++i)
		free(q->t[i].qid);
	free(q->t);
	free(q->n);
	if (q->root)
		json_object_put(q->root);
	free(q);
}

const char *ein_onnx_quant_qid(const struct ein_onnx_quant *q, int t)
{
	return q && t >= 0 && t < q->n_tensor ? q->t[t].qid : NULL;
}

/* Report a bad profile entry "what" (a tensor or node name). */
static int bad_entry(struct ein_onnx_quant *q, const char *what,
	const char *msg)
{
	ein_error(q->ctx, EIN_ERROR_INVALID, "%s: '%s': %s", q->profile, what,
		msg);
	return -1;
}

/* A number member "key" of "o" into *v. */
static int get_number(json_object *o, const char *key, double *v)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !(json_object_is_type(m, json_type_double) ||
		json_object_is_type(m, json_type_int)))
		return -1;
	*v = json_object_get_double(m);
	return isfinite(*v) ? 0 : -1;
}

/* The range that q's calibration chooses from histogram "h" (over [lo,
 * hi] in equal bins) into *a, *b; -1 if it is malformed, -2 when out
 * of memory. */
static int calibrated_range(struct ein_onnx_quant *q, json_object *h,
	double *a, double *b)
{
	json_object *counts;
	double lo, hi, *c;
	size_t i, n;
	int r;

	if (get_number(h, "lo", &lo) < 0 || get_number(h, "hi", &hi) < 0 ||
	    !json_object_object_get_ex(h, "counts", &counts) ||
	    !json_object_is_type(counts, json_type_array))
		return -1;
	n = json_object_array_length(counts);
	c = malloc((n + 1) * sizeof(*c));
	if (!c)
		return -2;
	for (i = 0; i < n; ++i)
		c[i] = json_object_get_double(
			json_object_array_get_idx(counts, i));
	r = ein_calib_range_levels(q->cal, q->qmax, lo, hi, c, n, a, b);
	free(c);
	return r;
}

/* The scale and zero point of range [lo, hi], widened to hold 0, over
 * the levels 0..qmax. */
static void choose_params(double lo, double hi, int qmax, struct qtensor *t)
{
	double s;

	lo = lo < 0 ? lo : 0;
	hi = hi > 0 ? hi : 0;
	s = (float) ((hi - lo) / qmax);
	if (!(s > 0) || !isfinite(s))
		s = 1;
	t->scale = s;
	t->zp = (int) lround(-lo / s);
	t->zp = t->zp < 0 ? 0 : t->zp > qmax ? qmax : t->zp;
	t->qp = 1;
}

/* The parameters of tensor "name" from the profile, if it has them. */
static int read_tensor(struct ein_onnx_quant *q, json_object *tensors,
	const char *name, struct qtensor *t)
{
	json_object *e, *h;
	double lo, hi;
	int r = 0;

	if (!json_object_object_get_ex(tensors, name, &e))
		return 0;
	if (get_number(e, "min", &lo) < 0 || get_number(e, "max", &hi) < 0 ||
	    hi < lo)
		return bad_entry(q, name, "needs numbers \"min\" <= \"max\"");
	if (q->cal != EIN_CALIBRATION_MINMAX &&
	    (!json_object_object_get_ex(e, "histogram", &h) ||
		(r = calibrated_range(q, h, &lo, &hi)) < 0))
		return r == -2 ? -1 : bad_entry(q, name, q->cal ==
			EIN_CALIBRATION_KL ? "the kl calibration needs a "
			"\"histogram\" with \"lo\", \"hi\" and non-negative "
			"\"counts\"" : "the percentile calibration needs "
			"a \"histogram\" with \"lo\", \"hi\" and non-negative "
			"\"counts\"");
	choose_params(lo, hi, q->qmax, t);
	return 0;
}

/* Is node "name" forced to float by the profile's "precision" object?
 * Its values are "float" or "int8". */
static int forced_float(struct ein_onnx_quant *q, const char *name, int *f)
{
	json_object *p, *v;
	const char *s;

	*f = 0;
	if (!json_object_object_get_ex(q->root, "precision", &p) ||
	    !json_object_object_get_ex(p, name, &v))
		return 0;
	s = json_object_get_string(v);
	if (!json_object_is_type(v, json_type_string) ||
	    (strcmp(s, "float") && strcmp(s, "int8")))
		return bad_entry(q, name, "a precision is \"float\" or "
			"\"int8\"");
	*f = !strcmp(s, "float");
	return 0;
}

/* Grow the tensors' states to the graph's tensors. */
static int grow(struct ein_onnx_quant *q, struct ein_onnx_graph *g)
{
	struct qtensor *t = realloc(q->t, (g->n_tensor + 1) * sizeof(*t));

	if (!t)
		return -1;
	memset(t + q->n_tensor, 0, (g->n_tensor + 1 - q->n_tensor) *
		sizeof(*t));
	q->t = t;
	q->n_tensor = g->n_tensor;
	return 0;
}

/* Is there a tensor named "name" in "g"? */
static int has_tensor(const struct ein_onnx_graph *g, const char *name)
{
	int i;

	for (i = 0; i < g->n_tensor; ++i)
		if (!strcmp(g->tensor[i].name, name))
			return 1;
	return 0;
}

/* A new constant of the graph named after "base" and "what" (with a
 * suffix if the model has that name already), with the shape of "like"
 * (like != NULL) or rank 1 and extent d0, of "dtype", taking "data" of
 * "bytes"; its index, -1 when out of memory. */
static int new_const(struct ein_onnx_quant *q, struct ein_onnx_graph *g,
	const char *base, const char *what, const struct ein_onnx_tensor *like,
	enum ein_onnx_dtype dtype, int64_t d0, void *data, size_t bytes)
{
	char name[512];
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	struct ein_onnx_tensor *t;
	int i, k = 1, rank = like ? like->rank : 1;

	/* "like" may be a tensor of g, which adding one moves. */
	if (like)
		memcpy(dim, like->dim, sizeof(dim));
	else
		dim[0] = ein_onnx_dim_const(d0);
	snprintf(name, sizeof(name), "%s_%s", base, what);
	while (has_tensor(g, name))
		snprintf(name, sizeof(name), "%s_%s_%d", base, what, ++k);
	i = ein_onnx_graph_tensor(g, name);
	if (i < 0 || grow(q, g) < 0)
		return (free(data), -1);
	t = &g->tensor[i];
	t->rank = rank;
	memcpy(t->dim, dim, sizeof(t->dim));
	t->dtype = dtype;
	t->known = 1;
	t->role = EIN_ONNX_CONST;
	t->data = data;
	t->bytes = bytes;
	return i;
}

/* M = m / 2^s with m in [2^30, 2^31) (Q31) and s at most 63; a multiplier
 * too small for that gives m = 0. */
static void quantize_multiplier(double mult, int32_t *m, int32_t *s)
{
	int e;
	double f = frexp(mult, &e);
	int64_t r = llround(f * 2147483648.0);

	if (r == INT64_C(2147483648)) {
		r /= 2;
		++e;
	}
	*m = (int32_t) r;
	*s = 31 - e;
	if (*s > 63 || !(mult > 0))
		*m = *s = 0;
}

/* Is "t" a float constant with data? */
static int is_float_const(const struct ein_onnx_tensor *t)
{
	return t && t->role == EIN_ONNX_CONST && t->dtype == EIN_ONNX_FLOAT &&
		t->data && t->known;
}

/* The number of nodes reading tensor "t". */
static int n_readers(const struct ein_onnx_graph *g, int t, int *last)
{
	int i, k, count = 0;

	for (i = 0; i < g->n_node; ++i)
		for (k = 0; k < g->node[i].n_in; ++k)
			if (g->node[i].in[k] == t) {
				++count;
				*last = i;
			}
	return count;
}

/* The output channels of the weights of node kind "kind": weight
 * element "e" of "w" belongs to channel ch(e); the number of channels. */
static int64_t channel_of(const struct ein_onnx_tensor *w, enum qkind kind,
	int tb, int64_t e, int64_t *n_ch)
{
	int64_t per;

	if (kind == Q_CONV) {
		*n_ch = w->dim[0].value;
		per = ein_onnx_tensor_n_elem(w) / *n_ch;
		return e / per;
	}
	*n_ch = w->dim[tb ? 0 : 1].value;
	return tb ? e / w->dim[1].value : e % w->dim[1].value;
}

/* The weights, bias, multipliers and shifts of node "pos" (kind set),
 * reading X with sx, writing Y with sy; "alpha" scales the product. */
static int quantize_weights(struct ein_onnx_quant *q, struct ein_onnx_graph *g,
	int pos, double sx, double sy, double alpha, double beta)
{
	struct ein_onnx_node *n = &g->node[pos];
	struct qnode *qn = &q->n[pos];
	const struct ein_onnx_tensor *w = &g->tensor[n->in[1]];
	int64_t ne = ein_onnx_tensor_n_elem(w), nc, e, c;
	const float *wd = w->data;
	int8_t *wq = malloc(ne + 1);
	double *amax;
	int32_t *mq, *sq, *bq = NULL;
	const char *base = w->name;

	channel_of(w, qn->kind, qn->tb, 0, &nc);
	amax = calloc(nc + 1, sizeof(*amax));
	mq = calloc(nc + 1, sizeof(*mq));
	sq = calloc(nc + 1, sizeof(*sq));
	if (!wq || !amax || !mq || !sq)
		return (free(wq), free(amax), free(mq), free(sq), -1);
	for (e = 0; e < ne; ++e) {
		c = channel_of(w, qn->kind, qn->tb, e, &nc);
		amax[c] = fmax(amax[c], fabs(wd[e]));
	}
	for (c = 0; c < nc; ++c)
		amax[c] = amax[c] > 0 ? amax[c] / 127 : 1;
	for (e = 0; e < ne; ++e) {
		double v = round(wd[e] / amax[channel_of(w, qn->kind, qn->tb,
			e, &nc)]);

		wq[e] = (int8_t) (v < -127 ? -127 : v > 127 ? 127 : v);
	}
	if (qn->bias >= 0) {
		const float *bd = g->tensor[qn->bias].data;

		bq = calloc(nc + 1, sizeof(*bq));
		for (c = 0; bq && c < nc; ++c) {
			double v = round(beta * bd[c] / (alpha * sx * amax[c]));

			bq[c] = (int32_t) (v < -2147483647.0 ? -2147483647.0 :
				v > 2147483647.0 ? 2147483647.0 : v);
		}
	}
	for (c = 0; c < nc; ++c)
		quantize_multiplier(alpha * sx * amax[c] / sy, &mq[c], &sq[c]);
	free(amax);
	qn->wq = new_const(q, g, base, "quantized", w, EIN_ONNX_INT8, 0, wq,
		ne);
	qn->mq = new_const(q, g, base, "multiplier", NULL, EIN_ONNX_INT32, nc,
		mq, nc * 4);
	qn->sq = new_const(q, g, base, "shift", NULL, EIN_ONNX_INT32, nc, sq,
		nc * 4);
	qn->bq = bq ? new_const(q, g, base, "bias_quantized", NULL,
		EIN_ONNX_INT32, nc, bq, nc * 4) : -1;
	if (!bq && qn->bias >= 0)
		return -1;
	return qn->wq < 0 || qn->mq < 0 || qn->sq < 0 ? -1 : 0;
}

/* The shape of a Conv's weights in VNNI's layout, [C/4, k..., M, 4] for
 * weights "w" [M, C, k...], into "v" (a shape only). */
static void vnni_shape(const struct ein_onnx_tensor *w,
	struct ein_onnx_tensor *v)
{
	int d;

	memset(v, 0, sizeof(*v));
	v->rank = w->rank + 1;
	v->dim[0] = ein_onnx_dim_const((w->dim[1].value + 3) / 4);
	for (d = 2; d < w->rank; ++d)
		v->dim[d - 1] = w->dim[d];
	v->dim[w->rank - 1] = w->dim[0];
	v->dim[w->rank] = ein_onnx_dim_const(4);
}

/* The int8 weights "wq" [M, C, K] (K the window's elements) in VNNI's
 * layout [C/4, K, M, 4], zeros past C; NULL when out of memory. */
static int8_t *vnni_reorder(const int8_t *wq, int64_t m, int64_t c,
	int64_t k, int64_t c4)
{
	int8_t *v = calloc(c4 * k * m * 4 + 1, 1);
	int64_t i, j, e;

	for (i = 0; v && i < m; ++i)
		for (j = 0; j < c; ++j)
			for (e = 0; e < k; ++e)
				v[((j / 4 * k + e) * m + i) * 4 + j % 4] =
					wq[(i * c + j) * k + e];
	return v;
}

/* The bias of the dot-product form: b_q[m] - Z_x sum W_q[m] (b_q 0 where
 * "bq" is NULL), wrapped to int32 as the accumulation wraps, so that
 * acc + bias is what the subtracting form computes, exactly.  The sums
 * are read from the weights in VNNI's layout "v", [outer, m, 4] (their
 * zeros past the reduction add nothing). */
static int32_t *lowered_bias(const int8_t *v, const int32_t *bq, int64_t m,
	int64_t outer, int zx)
{
	int64_t *sum = calloc(m + 1, sizeof(*sum));
	int32_t *b = calloc(m + 1, sizeof(*b));
	int64_t i, o, e;

	for (o = 0; sum && b && o < outer; ++o)
		for (i = 0; i < m; ++i)
			for (e = 0; e < 4; ++e)
				sum[i] += v[(o * m + i) * 4 + e];
	for (i = 0; sum && b && i < m; ++i)
		b[i] = (int32_t) (uint32_t) ((bq ? bq[i] : 0) -
			(int64_t) zx * sum[i]);
	if (!sum)
		return (free(b), NULL);
	free(sum);
	return b;
}

/* Record the weights "v" in VNNI's layout (of shape "shape", [..., m,
 * 4]; NULL when out of memory) and their bias lowered for the input's
 * zero point "zx" (lowered_bias), per output channel (m), for node "pos"
 * of weights "base": its plan computes four-term dot products. */
static int set_dot4(struct ein_onnx_quant *q, struct ein_onnx_graph *g,
	int pos, const char *base, const struct ein_onnx_tensor *shape,
	int8_t *v, int64_t m, int zx)
{
	struct qnode *qn = &q->n[pos];
	size_t bytes = ein_onnx_tensor_n_elem(shape);
	int32_t *b = v ? lowered_bias(v, qn->bq >= 0 ? g->tensor[qn->bq].data :
		NULL, m, bytes / (m * 4), zx) : NULL;

	if (!v || !b)
		return (free(v), free(b), -1);
	qn->wv = new_const(q, g, base, "vnni", shape, EIN_ONNX_INT8, 0, v,
		bytes);
	qn->bv = new_const(q, g, base, "bias_vnni", NULL, EIN_ONNX_INT32, m,
		b, m * 4);
	if (qn->wv < 0 || qn->bv < 0)
		return -1;
	qn->dot4 = 1;
	return 0;
}

/* Conv node "pos" (its weights quantised) as four-term dot products of
 * uint8 by int8, the form that vpdpbusd computes (docs/quantization.md):
 * where it has one group, its weights in VNNI's layout and its bias
 * lowered by Z_x sum W for the input's zero point "zx", which then also
 * pads the input (ein_onnx_print_qconv_dot4).  Grouped (depthwise)
 * convolutions keep the subtracting form: each output channel reads its
 * own few input channels, no dot product over four of them. */
static int vnni_weights(struct ein_onnx_quant *q, struct ein_onnx_graph *g,
	int pos, int zx)
{
	struct qnode *qn = &q->n[pos];
	const struct ein_onnx_tensor *w = &g->tensor[qn->wq];
	struct ein_onnx_tensor shape;
	int64_t m = w->dim[0].value, c = w->dim[1].value, k, c4 = (c + 3) / 4;
	const char *base = g->tensor[g->node[pos].in[1]].name;
	int8_t *v;

	if (ein_onnx_node_int(&g->node[pos], "group", 1) != 1 || m < 1 ||
	    c < 1)
		return 0;
	k = ein_onnx_tensor_n_elem(w) / (m * c);
	vnni_shape(w, &shape);
	v = vnni_reorder(w->data, m, c, k, c4);
	return set_dot4(q, g, pos, base, &shape, v, m, zx);
}

/* The int8 weights "wq" of a matrix product, [k, n] ([n, k] with "tb"),
 * in VNNI's layout [k/4, n, 4] (k a multiple of 4); NULL when out of
 * memory. */
static int8_t *vnni_matrix(const int8_t *wq, int64_t k, int64_t n, int tb)
{
	int8_t *v = malloc(k * n + 1);
	int64_t r, j;

	for (r = 0; v && r < k; ++r)
		for (j = 0; j < n; ++j)
			v[(r / 4 * n + j) * 4 + r % 4] =
				wq[tb ? j * k + r : r * n + j];
	return v;
}

/* MatMul or Gemm node "pos" (its weights quantised) as four-term dot
 * products of uint8 by int8, as a Conv (vnni_weights): its weights in
 * VNNI's layout [K/4, N, 4], its bias lowered by Z_x sum W for the input's
 * zero point "zx".  Only where K is a multiple of 4: the uint8 input is
 * then read in place, four consecutive bytes a term, with nothing to pad
 * (else the subtracting form). */
static int vnni_matrix_weights(struct ein_onnx_quant *q,
	struct ein_onnx_graph *g, int pos, int zx)
{
	struct qnode *qn = &q->n[pos];
	const struct ein_onnx_tensor *w = &g->tensor[qn->wq];
	struct ein_onnx_tensor shape;
	int64_t k = w->dim[qn->tb ? 1 : 0].value, n = w->dim[qn->tb ? 0 : 1].value;
	const char *base = g->tensor[g->node[pos].in[1]].name;
	int8_t *v;

	if (k < 4 || k % 4 || n < 1)
		return 0;
	memset(&shape, 0, sizeof(shape));
	shape.rank = 3;
	shape.dim[0] = ein_onnx_dim_const(k / 4);
	shape.dim[1] = ein_onnx_dim_const(n);
	shape.dim[2] = ein_onnx_dim_const(4);
	v = vnni_matrix(w->data, k, n, qn->tb);
	return set_dot4(q, g, pos, base, &shape, v, n, zx);
}

/* Is "b" a float constant with one value per output channel (nc), along
 * its last dimension? */
static int is_bias(const struct ein_onnx_tensor *b, int64_t nc)
{
	return is_float_const(b) && b->rank >= 1 &&
		ein_onnx_tensor_n_elem(b) == nc &&
		b->dim[b->rank - 1].value == nc;
}

/* Does the bias input of node "n" fit: absent, or a float constant with
 * one value per output channel (nc)? */
static int bias_fits(const struct ein_onnx_graph *g,
	const struct ein_onnx_node *n, int64_t nc)
{
	return n->n_in < 3 || n->in[2] < 0 || is_bias(&g->tensor[n->in[2]], nc);
}

/* The kind node "n" can have in int8 (Q_FLOAT if none), with *tb. */
static enum qkind int8_kind(const struct ein_onnx_graph *g,
	const struct ein_onnx_node *n, int *tb)
{
	const struct ein_onnx_tensor *w;

	*tb = 0;
	if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out < 1 ||
	    n->out[0] < 0)
		return Q_FLOAT;
	w = &g->tensor[n->in[1]];
	if (!is_float_const(w) || ein_onnx_tensor_n_elem(w) <= 0)
		return Q_FLOAT;
	if (!strcmp(n->op, "Conv") && w->rank >= 3 &&
	    bias_fits(g, n, w->dim[0].value))
		return Q_CONV;
	if (w->rank != 2)
		return Q_FLOAT;
	if (!strcmp(n->op, "MatMul") && n->n_in == 2)
		return Q_MATMUL;
	*tb = ein_onnx_node_int(n, "transB", 0) != 0;
	if (!strcmp(n->op, "Gemm") && !ein_onnx_node_int(n, "transA", 0) &&
	    ein_onnx_node_float(n, "alpha", 1) > 0 &&
	    bias_fits(g, n, w->dim[*tb ? 0 : 1].value))
		return Q_GEMM;
	return Q_FLOAT;
}

/* The node that alone reads tensor "t", if it is an "op" (Relu, or an
 * Add of a bias of nc values, whose index goes to *bias) that the
 * profile does not force to float and "t" is no graph output: its index,
 * its output in *out; else 0. */
static int fusable(struct ein_onnx_quant *q, const struct ein_onnx_graph *g,
	int t, const char *op, int *out, int64_t nc, int *bias)
{
	const struct ein_onnx_node *m;
	int last = -1, forced, b;

	if (g->tensor[t].output || n_readers(g, t, &last) != 1 ||
	    strcmp(g->node[last].op, op))
		return 0;
	m = &g->node[last];
	if (m->n_out < 1 || m->out[0] < 0 ||
	    forced_float(q, m->name, &forced) < 0 || forced)
		return 0;
	if (bias) {
		if (m->n_in != 2 || m->in[0] < 0 || m->in[1] < 0)
			return 0;
		b = m->in[0] == t ? m->in[1] : m->in[0];
		if (*bias >= 0 || !is_bias(&g->tensor[b], nc))
			return 0;
		*bias = b;
	}
	*out = m->out[0];
	return last;
}

/* The kind of node "n" among those int8 computes without weights (Add
 * of two computed tensors, the pools), Q_FLOAT if none. */
static enum qkind weightless_kind(const struct ein_onnx_graph *g,
	const struct ein_onnx_node *n)
{
	const char *op = n->op;

	if (n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0 ||
	    (n->n_out > 1 && n->out[1] >= 0))
		return Q_FLOAT;
	if (!strcmp(op, "MaxPool") || !strcmp(op, "GlobalMaxPool"))
		return Q_MAXPOOL;
	if (!strcmp(op, "AveragePool") || !strcmp(op, "GlobalAveragePool"))
		return Q_AVGPOOL;
	if (strcmp(op, "Add") || n->n_in != 2 || n->in[1] < 0 ||
	    g->tensor[n->in[0]].role == EIN_ONNX_CONST ||
	    g->tensor[n->in[1]].role == EIN_ONNX_CONST)
		return Q_FLOAT;
	return Q_ADD;
}

/* Does a node that int8 can compute read tensor "t"?  (An Add whose
 * result only float operators read stays in float: requantising the sum
 * before a layer normalisation only adds an error.) */
static int int8_reader(const struct ein_onnx_graph *g, int t)
{
	int i, k, tb;

	for (i = 0; i < g->n_node; ++i)
		for (k = 0; k < g->node[i].n_in; ++k)
			if (g->node[i].in[k] == t &&
			    (int8_kind(g, &g->node[i], &tb) != Q_FLOAT ||
				weightless_kind(g, &g->node[i]) != Q_FLOAT))
				return 1;
	return 0;
}

/* Plan node "pos" of a kind without weights: int8 if its inputs and
 * output (or its Relu's, for an Add) have ranges and, for an Add, an int8
 * node reads its result.  A max pool's output
 * takes its input's scale and zero point (the profile's range of it is
 * within the input's), which makes it exact on the uint8 values. */
static int plan_weightless(struct ein_onnx_quant *q, struct ein_onnx_graph *g,
	int pos, enum qkind kind)
{
	struct ein_onnx_node *n = &g->node[pos];
	struct qnode *qn = &q->n[pos];
	int x = n->in[0];

	qn->out = n->out[0];
	if (kind == Q_MAXPOOL && q->t[x].qp) {
		q->t[qn->out].qp = 1;
		q->t[qn->out].scale = q->t[x].scale;
		q->t[qn->out].zp = q->t[x].zp;
	}
	if (kind == Q_ADD)
		qn->relu = fusable(q, g, qn->out, "Relu", &qn->out, 0, NULL);
	if (!q->t[x].qp || !q->t[qn->out].qp ||
	    (kind == Q_ADD && (!q->t[n->in[1]].qp ||
		!int8_reader(g, qn->out)))) {
		qn->relu = 0;
		return 0;
	}
	qn->kind = kind;
	if (qn->relu)
		q->n[qn->relu].kind = Q_FUSED;
	return 0;
}

/* Plan node "pos": int8 if it can be, its input and output (or its
 * Relu's) have ranges, and the profile does not force it to float. */
static int plan_node(struct ein_onnx_quant *q, struct ein_onnx_graph *g,
	int pos)
{
	struct ein_onnx_node *n = &g->node[pos];
	struct qnode *qn = &q->n[pos];
	int forced, tb, x;
	enum qkind kind = qn->kind == Q_FUSED ? Q_FUSED : int8_kind(g, n, &tb);

	if (forced_float(q, n->name, &forced) < 0)
		return -1;
	if (kind == Q_FUSED || forced)
		return 0;
	if (kind == Q_FLOAT) {
		kind = weightless_kind(g, n);
		return kind == Q_FLOAT ? 0 : plan_weightless(q, g, pos, kind);
	}
	x = n->in[0];
	qn->out = n->out[0];
	qn->bias = n->n_in > 2 ? n->in[2] : -1;
	if (kind == Q_MATMUL)
		qn->add = fusable(q, g, qn->out, "Add", &qn->out,
			g->tensor[n->in[1]].dim[1].value, &qn->bias);
	qn->relu = fusable(q, g, qn->out, "Relu", &qn->out, 0, NULL);
	if (!q->t[x].qp || !q->t[qn->out].qp) {
		qn->relu = qn->add = 0;
		return 0;
	}
	qn->kind = kind;
	qn->tb = tb;
	if (qn->add)
		q->n[qn->add].kind = Q_FUSED;
	if (qn->relu)
		q->n[qn->relu].kind = Q_FUSED;
	if (quantize_weights(q, g, pos, q->t[x].scale, q->t[qn->out].scale,
			kind == Q_GEMM ? ein_onnx_node_float(n, "alpha", 1) : 1,
			kind == Q_GEMM ? ein_onnx_node_float(n, "beta", 1) : 1)
			< 0)
		return -1;
	return kind == Q_CONV ? vnni_weights(q, g, pos, q->t[x].zp) :
		vnni_matrix_weights(q, g, pos, q->t[x].zp);
}

/* Read the profile and the activations' parameters. */
static int read_profile(struct ein_onnx_quant *q, struct ein_onnx_graph *g)
{
	json_object *tensors;
	int i;

	q->root = json_object_from_file(q->profile);
	if (!q->root) {
		ein_error(q->ctx, EIN_ERROR_IO, "%s: cannot read the profile "
			"(%s)", q->profile, json_util_get_last_err() ?
			json_util_get_last_err() : "not JSON");
		return -1;
	}
	if (!json_object_object_get_ex(q->root, "tensors", &tensors) ||
	    !json_object_is_type(tensors, json_type_object)) {
		ein_error(q->ctx, EIN_ERROR_INVALID, "%s: the profile has no "
			"\"tensors\" object (ein profile writes one)",
			q->profile);
		return -1;
	}
	for (i = 0; i < g->n_tensor; ++i) {
		if (read_tensor(q, tensors, g->tensor[i].name, &q->t[i]) < 0)
			return -1;
		q->t[i].has_float = g->tensor[i].role != EIN_ONNX_TEMP;
	}
	return 0;
}

struct ein_onnx_quant *ein_onnx_quant_plan(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const char *profile,
	ein_calibration calibration, int bits)
{
	struct ein_onnx_quant *q = calloc(1, sizeof(*q));
	int i, ok;

	if (calibration != EIN_CALIBRATION_MINMAX &&
	    calibration != EIN_CALIBRATION_PERCENTILE &&
	    calibration != EIN_CALIBRATION_KL) {
		ein_error(ctx, EIN_ERROR_INVALID, "unknown calibration %d",
			(int) calibration);
		return (free(q), NULL);
	}
	if (bits != 7 && bits != 8) {
		ein_error(ctx, EIN_ERROR_INVALID, "activations of %d bits: "
			"7 or 8 are supported", bits);
		return (free(q), NULL);
	}
	if (!q)
		return NULL;
	q->qmax = (1 << bits) - 1;
	q->ctx = ctx;
	q->path = path;
	q->profile = profile;
	q->cal = calibration;
	q->n = calloc(g->n_node + 1, sizeof(*q->n));
	ok = q->n && grow(q, g) == 0 && read_profile(q, g) == 0;
	for (i = 0; ok && i < g->n_node; ++i)
		ok = plan_node(q, g, i) == 0;
	if (ok)
		return q;
	if (ein_diag_n_error(ctx) == 0)
		ein_error(ctx, EIN_ERROR_NOMEM, "out of memory");
	ein_onnx_quant_free(q);
	return NULL;
}

/* The float32 value "v" as a literal whose decimal value is exactly it
 * (%.17g), so that the reference interpreter, which reads literals in
 * double precision, computes with the value the compiled code does. */
static void print_exact(struct ein_onnx_lower *l, float v)
{
	char buf[64];

	ein_onnx_exact_float(v, buf, sizeof(buf));
	fputs(buf, l->out);
}

void ein_onnx_exact_float(float v, char *buf, size_t size)
{
	snprintf(buf, size, "%.17g", (double) v);
	if (!strpbrk(buf, ".en") && strlen(buf) + 3 <= size)
		strcat(buf, ".0");
}

/* "ID(i0, ..., i{rank-1})" into buf. */
static void access_text(const char *id, int rank, char *buf, size_t size)
{
	size_t len = snprintf(buf, size, "%s(", id);
	int d;

	for (d = 0; d < rank && len < size; ++d)
		len += snprintf(buf + len, size - len, "%si%d", d ? ", " : "",
			d);
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

/* The uint8 view of tensor "t": a copy named by its qid. */
static struct ein_onnx_tensor q_view(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *t)
{
	struct ein_onnx_tensor v = *t;

	v.id = l->quant->t[t - l->g->tensor].qid;
	v.dtype = EIN_ONNX_UINT8;
	return v;
}

/* Name the uint8 values of "t" (once). */
static int name_q(struct ein_onnx_lower *l, const struct ein_onnx_tensor *t)
{
	struct qtensor *qt = &l->quant->t[t - l->g->tensor];
	char name[256];

	if (qt->qid)
		return 0;
	ein_onnx_aux_name(l, t, "q", name, sizeof(name));
	qt->qid = strdup(name);
	return qt->qid ? 0 : -1;
}

int ein_onnx_print_quantize(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *out, const char *x, const char *s,
	int mul, const char *zp, int lo, int hi)
{
	struct ein_onnx_tensor v = *out;
	char name[256], a[512], r[1200];

	ein_onnx_aux_name(l, out, "scaled", name, sizeof(name));
	v.id = name;
	v.dtype = EIN_ONNX_FLOAT;
	ein_onnx_print_lhs(l, &v, "=");
	fprintf(l->out, "%s %s %s", x, mul ? "*" : "/", s);
	ein_onnx_print_where(l, &v, 0);
	access_text(name, out->rank, a, sizeof(a));
	if (mul)
		snprintf(r, sizeof(r), "fma(%s, %s, -(floor(%s) + 0.5))", x, s,
			a);
	else
		snprintf(r, sizeof(r), "fma(-(floor(%s) + 0.5), %s, %s)", a, s,
			x);
	ein_onnx_print_lhs(l, out, "=");
	fprintf(l->out, "%s(clamp((%s > 0 ? floor(%s) + 1 : %s < 0 ? "
		"floor(%s) : 2 * floor((floor(%s) + 1) * 0.5)) + %s, %d, %d))",
		ein_onnx_dtype_ein(out->dtype), r, a, r, a, a, zp, lo, hi);
	ein_onnx_print_where(l, out, 0);
	return 0;
}

/* Make the uint8 values of "t" exist (quantize.h's rounding). */
static int need_q(struct ein_onnx_lower *l, struct ein_onnx_tensor *t)
{
	struct qtensor *qt = &l->quant->t[t - l->g->tensor];
	struct ein_onnx_tensor tq;
	char x[512], s[64], zp[16];
	FILE *out = l->out;

	if (qt->qid)
		return 0;
	if (name_q(l, t) < 0)
		return -1;
	access_text(t->id, t->rank, x, sizeof(x));
	l->out = fmemopen(s, sizeof(s), "w");
	if (!l->out)
		return (l->out = out, -1);
	print_exact(l, (float) qt->scale);
	fclose(l->out);
	l->out = out;
	snprintf(zp, sizeof(zp), "%d", qt->zp);
	tq = q_view(l, t);
	return ein_onnx_print_quantize(l, &tq, x, s, 0, zp, 0, l->quant->qmax);
}

/* Make the float values of "t" exist: (q - Z) S. */
static int need_float(struct ein_onnx_lower *l, struct ein_onnx_tensor *t)
{
	struct qtensor *qt = &l->quant->t[t - l->g->tensor];
	char a[512];

	if (qt->has_float || !qt->qid)
		return 0;
	access_text(qt->qid, t->rank, a, sizeof(a));
	ein_onnx_print_lhs(l, t, "=");
	fprintf(l->out, "(%s - %d) * ", a, qt->zp);
	print_exact(l, (float) qt->scale);
	ein_onnx_print_where(l, t, 0);
	qt->has_float = 1;
	return 0;
}

/* "Y_q = uint8(clamp(qmul(ACC + b_q, mult, shift) + Z_y, lo, Q))" for
 * the node's output "o" of shape "y", the channel index "ch", the bias
 * b_q the constant "bias" (-1: none). */
static int print_requant(struct ein_onnx_lower *l, const struct qnode *qn,
	struct ein_onnx_tensor *y, const char *acc, const char *ch, int bias)
{
	struct ein_onnx_graph *g = l->g;
	struct ein_onnx_tensor *o = &g->tensor[qn->out], oq = *y;
	struct qtensor *qo = &l->quant->t[qn->out];
	char a[512];

	if (name_q(l, o) < 0)
		return -1;
	oq.id = qo->qid;
	oq.dtype = EIN_ONNX_UINT8;
	access_text(acc, y->rank, a, sizeof(a));
	ein_onnx_print_lhs(l, &oq, "=");
	fprintf(l->out, "uint8(clamp(qmul(%s", a);
	if (bias >= 0) {
		fprintf(l->out, " + %s(%s)", g->tensor[bias].id, ch);
		g->tensor[bias].used = 1;
	}
	fprintf(l->out, ", %s(%s), %s(%s)) + %d, %d, %d))",
		g->tensor[qn->mq].id, ch, g->tensor[qn->sq].id, ch, qo->zp,
		qn->relu ? qo->zp : 0, l->quant->qmax);
	g->tensor[qn->mq].used = g->tensor[qn->sq].used = 1;
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Print the first indices of A's access, "i0, i1, ..., " (r - 1 of them). */
static void print_rows(struct ein_onnx_lower *l, int r)
{
	int d;

	for (d = 0; d + 1 < r; ++d)
		fprintf(l->out, "i%d, ", d);
}

/* "(A_q(i..., r0) - Z_a) * W_q(r0, j)" (W_q(j, r0) with transB). */
static void print_matrix_sub(struct ein_onnx_lower *l,
	const struct qnode *qn, const char *aq, int r, int za,
	struct ein_onnx_tensor *w, const char *ch)
{
	fprintf(l->out, "(%s(", aq);
	print_rows(l, r);
	fprintf(l->out, "r0) - %d) * %s(%s%s%s)", za, w->id,
		qn->tb ? ch : "r0, ", qn->tb ? ", r0" : "", qn->tb ? "" : ch);
}

/* "A_q(i..., 4 * r0) * WV(r0, j, 0) + ... + A_q(i..., 4 * r0 + 3) *
 * WV(r0, j, 3)": four-term dot products over A's uint8 values in place
 * and the weights in VNNI's layout "wv" (vnni_matrix_weights). */
static void print_matrix_dot4(struct ein_onnx_lower *l, const char *aq, int r,
	struct ein_onnx_tensor *wv, const char *ch)
{
	int q;

	for (q = 0; q < 4; ++q) {
		fprintf(l->out, "%s%s(", q ? " + " : "", aq);
		print_rows(l, r);
		fputs("4 * r0", l->out);
		if (q)
			fprintf(l->out, " + %d", q);
		fprintf(l->out, ") * %s(r0, %s, %d)", wv->id, ch, q);
	}
}

/* Gemm and MatMul on A (a matrix; for MatMul also a batch of them, its
 * leading dimensions kept): acc(i..., j) +=! (A_q(i..., r0) - Z_a) *
 * W_q(r0, j), W_q(j, r0) with transB, or the same as four-term dot
 * products where the plan says so (qn->dot4).  0 if done, 1 if A is not
 * a float tensor of such a shape (then the node stays in float). */
static int lower_int8_matrix(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct qnode *qn)
{
	struct ein_onnx_graph *g = l->g;
	struct ein_onnx_tensor *a = &g->tensor[n->in[0]];
	struct ein_onnx_tensor *w = &g->tensor[qn->wq], aq;
	struct ein_onnx_tensor *y = &g->tensor[n->out[0]], acc;
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char name[256], ch[16];
	int r = a->rank;

	if (r < 2 || (qn->kind == Q_GEMM && r != 2) ||
	    a->dtype != EIN_ONNX_FLOAT ||
	    !ein_onnx_dim_eq(a->dim[r - 1], w->dim[qn->tb ? 1 : 0]))
		return 1;
	if (need_q(l, a) < 0)
		return -1;
	memcpy(dim, a->dim, sizeof(dim));
	dim[r - 1] = w->dim[qn->tb ? 0 : 1];
	ein_onnx_set_shape(y, EIN_ONNX_FLOAT, r, dim);
	aq = q_view(l, a);
	acc = *y;
	ein_onnx_aux_name(l, y, "acc", name, sizeof(name));
	acc.id = name;
	snprintf(ch, sizeof(ch), "i%d", r - 1);
	ein_onnx_print_lhs(l, &acc, "+=!");
	if (qn->dot4) {
		print_matrix_dot4(l, aq.id, r, &g->tensor[qn->wv], ch);
		g->tensor[qn->wv].used = 1;
		ein_onnx_print_where(l, y, 1);
		fprintf(l->out, "r0 in 0:%lld\n", (long long)
			(w->dim[qn->tb ? 1 : 0].value / 4));
	} else {
		print_matrix_sub(l, qn, aq.id, r, l->quant->t[n->in[0]].zp, w,
			ch);
		w->used = 1;
		ein_onnx_print_where(l, y, 0);
	}
	return print_requant(l, qn, y, name, ch, qn->dot4 ? qn->bv : qn->bq);
}

/* Conv: the accumulation of ops_nn.c, as four-term dot products over
 * the input padded with its zero point where the plan says so (qn->dot4),
 * else subtracting the zero point; then the requantisation. */
static int lower_int8_conv(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct qnode *qn)
{
	struct ein_onnx_graph *g = l->g;
	struct ein_onnx_tensor *x = &g->tensor[n->in[0]];
	struct ein_onnx_tensor *w = &g->tensor[n->in[1]];
	struct ein_onnx_tensor *y = &g->tensor[n->out[0]], xq;
	int zp = l->quant->t[n->in[0]].zp;
	char name[256], pad[256], zx[16];

	if (x->dtype != EIN_ONNX_FLOAT)
		return 1;
	if (need_q(l, x) < 0)
		return -1;
	xq = q_view(l, x);
	snprintf(zx, sizeof(zx), "%d", zp);
	if (qn->dot4)
		ein_onnx_aux_name(l, y, "xpad", pad, sizeof(pad));
	ein_onnx_aux_name(l, y, "acc", name, sizeof(name));
	if (qn->dot4 && ein_onnx_print_qconv_dot4(l, n, x, w, &xq, zp,
			&g->tensor[qn->wv], y, pad, name) < 0)
		return -1;
	if (!qn->dot4 && ein_onnx_print_qconv_acc(l, n, x, w, &xq, zx,
			&g->tensor[qn->wq], NULL, y, name) < 0)
		return -1;
	return print_requant(l, qn, y, name, "i1", qn->dot4 ? qn->bv : qn->bq);
}

/* Forget the uint8 name of "t" given before nothing was written. */
static void unname_q(struct ein_onnx_lower *l, const struct ein_onnx_tensor *t)
{
	struct qtensor *qt = &l->quant->t[t - l->g->tensor];

	free(qt->qid);
	qt->qid = NULL;
}

/* "Y_q(i...) = uint8(clamp(qmul(EXPR, m, s) + Z_y, lo, Q))" for the
 * node's output (qn->out) of shape "y", with EXPR the text "expr" in y's
 * indices and m, s literals. */
static int print_requant_lit(struct ein_onnx_lower *l, const struct qnode *qn,
	struct ein_onnx_tensor *y, const char *expr, int32_t m, int32_t s)
{
	struct ein_onnx_tensor oq = *y;
	struct qtensor *qo = &l->quant->t[qn->out];

	if (name_q(l, &l->g->tensor[qn->out]) < 0)
		return -1;
	oq.id = qo->qid;
	oq.dtype = EIN_ONNX_UINT8;
	ein_onnx_print_lhs(l, &oq, "=");
	fprintf(l->out, "uint8(clamp(qmul(%s, %d, %d) + %d, %d, %d))", expr,
		(int) m, (int) s, qo->zp, qn->relu ? qo->zp : 0,
		l->quant->qmax);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* A pool on uint8 values (ein_onnx_print_qpool_acc): a max pool writes
 * the output's uint8 values directly (it has the input's scale and zero
 * point); an average pool sums X_q - Z_x in int32 and requantises with
 * M = S_x / (S_y count). */
static int lower_int8_pool(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct qnode *qn)
{
	struct ein_onnx_graph *g = l->g;
	struct ein_onnx_tensor *x = &g->tensor[n->in[0]];
	struct ein_onnx_tensor *y = &g->tensor[n->out[0]], xq;
	struct qtensor *qx = &l->quant->t[n->in[0]], *qy = &l->quant->t[qn->out];
	char name[256], a[512];
	int64_t count;
	int32_t m, s;
	int r;

	if (x->dtype != EIN_ONNX_FLOAT || x->rank < 3)
		return 1;
	if (need_q(l, x) < 0 || (qn->kind == Q_MAXPOOL && name_q(l, y) < 0))
		return -1;
	xq = q_view(l, x);
	if (qn->kind == Q_MAXPOOL)
		snprintf(name, sizeof(name), "%s", qy->qid);
	else
		ein_onnx_aux_name(l, y, "sum", name, sizeof(name));
	r = ein_onnx_print_qpool_acc(l, n, x, &xq, qx->zp, y, name, &count);
	if (r == 1 && qn->kind == Q_MAXPOOL)
		unname_q(l, y);
	if (r != 0 || qn->kind == Q_MAXPOOL)
		return r;
	quantize_multiplier(qx->scale / (qy->scale * count), &m, &s);
	access_text(name, y->rank, a, sizeof(a));
	return print_requant_lit(l, qn, y, a, m, s);
}

/* The multipliers of an int8 Add: ma / 2^s and mb / 2^s are S_a / S_y
 * and S_b / S_y, the larger in [2^21, 2^22], so that (A_q - Z_a) ma +
 * (B_q - Z_b) mb (at most 2 * 255 * 2^22 < 2^31) is exact in int32 and
 * rounded once by qmul.  -1 if the ratios do not fit (s outside 1..63). */
static int add_multipliers(double ra, double rb, int32_t *ma, int32_t *mb,
	int32_t *s)
{
	int e;

	frexp(ra > rb ? ra : rb, &e);
	*s = 22 - e;
	if (*s < 1 || *s > 63)
		return -1;
	*ma = (int32_t) llround(ldexp(ra, *s));
	*mb = (int32_t) llround(ldexp(rb, *s));
	return 0;
}

/* Add of two tensors of the same shape, both rescaled to the output's
 * scale: Y_q = clamp(qmul((A_q - Z_a) ma + (B_q - Z_b) mb, 1, s) + Z_y),
 * the Relu fused as for the other nodes.  1 if the shapes differ (a
 * broadcast) or the scales are too far apart. */
static int lower_int8_add(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct qnode *qn)
{
	struct ein_onnx_graph *g = l->g;
	struct ein_onnx_tensor *a = &g->tensor[n->in[0]];
	struct ein_onnx_tensor *b = &g->tensor[n->in[1]];
	struct ein_onnx_tensor *y = &g->tensor[n->out[0]];
	struct qtensor *qa = &l->quant->t[n->in[0]], *qb = &l->quant->t[n->in[1]];
	double sy = l->quant->t[qn->out].scale;
	char ta[512], tb[512], expr[1200];
	int32_t ma, mb, s;
	int d;

	if (a->dtype != EIN_ONNX_FLOAT || b->dtype != EIN_ONNX_FLOAT ||
	    a->rank != b->rank || a->rank < 1)
		return 1;
	for (d = 0; d < a->rank; ++d)
		if (!ein_onnx_dim_eq(a->dim[d], b->dim[d]))
			return 1;
	if (add_multipliers(qa->scale / sy, qb->scale / sy, &ma, &mb, &s) < 0)
		return 1;
	if (need_q(l, a) < 0 || need_q(l, b) < 0)
		return -1;
	ein_onnx_set_shape(y, EIN_ONNX_FLOAT, a->rank, a->dim);
	access_text(qa->qid, a->rank, ta, sizeof(ta));
	access_text(qb->qid, b->rank, tb, sizeof(tb));
	snprintf(expr, sizeof(expr), "(%s - %d) * %d + (%s - %d) * %d", ta,
		qa->zp, (int) ma, tb, qb->zp, (int) mb);
	return print_requant_lit(l, qn, y, expr, 1, s);
}

/* The node in float: its inputs dequantised first. */
static int lower_float(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_op *op)
{
	int i;

	for (i = 0; i < n->n_in; ++i)
		if (n->in[i] >= 0 && need_float(l, &l->g->tensor[n->in[i]]) < 0)
			return -1;
	if (op->lower(l, n) < 0)
		return -1;
	for (i = 0; i < n->n_out; ++i)
		if (n->out[i] >= 0)
			l->quant->t[n->out[i]].has_float = 1;
	return 0;
}

/* A node fused into the int8 node before it: its output gets the shape
 * of the input it computes with (the int8 node's result, not a
 * constant); the int8 statements wrote its values. */
static int fused(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *o = &l->g->tensor[n->out[0]];
	const struct ein_onnx_tensor *in = &l->g->tensor[n->in[0]];

	if (in->role == EIN_ONNX_CONST && n->n_in > 1)
		in = &l->g->tensor[n->in[1]];
	ein_onnx_set_shape(o, EIN_ONNX_FLOAT, in->rank, in->dim);
	return 0;
}

int ein_onnx_quant_lower_node(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_op *op)
{
	struct ein_onnx_quant *q = l->quant;
	struct qnode *qn = &q->n[n - l->g->node];
	int r = 1;

	if (qn->kind == Q_FUSED)
		return fused(l, n);
	if (qn->kind == Q_CONV)
		r = lower_int8_conv(l, n, qn);
	else if (qn->kind == Q_GEMM || qn->kind == Q_MATMUL)
		r = lower_int8_matrix(l, n, qn);
	else if (qn->kind == Q_MAXPOOL || qn->kind == Q_AVGPOOL)
		r = lower_int8_pool(l, n, qn);
	else if (qn->kind == Q_ADD)
		r = lower_int8_add(l, n, qn);
	if (r <= 0)
		return r;
	/* Not in int8 after all: the shapes seen are not those it takes. */
	qn->kind = Q_FLOAT;
	if (qn->relu)
		q->n[qn->relu].kind = Q_FLOAT;
	if (qn->add)
		q->n[qn->add].kind = Q_FLOAT;
	return lower_float(l, n, op);
}

int ein_onnx_quant_finish(struct ein_onnx_lower *l)
{
	int i;

	for (i = 0; i < l->g->n_output; ++i)
		if (need_float(l, &l->g->tensor[l->g->output[i]]) < 0)
			return -1;
	return 0;
}
