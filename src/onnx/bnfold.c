/*
 * bnfold.c: BatchNormalization folded into the preceding Conv.
 *
 *     c = Conv(x, W, b)                  y = Conv(x, W', b')
 *     y = BatchNormalization(c, s,   =>  W'[m] = W[m] * k[m]
 *             B, mean, var)              b'[m] = (b[m] - mean[m]) * k[m] + B[m]
 *                                        k[m] = s[m] / sqrt(var[m] + eps)
 *
 * This is what exporters leave for inference engines to do (ResNet and
 * MobileNet have one after every convolution): the network then does no
 * per-element normalisation work at all.  The new weights are computed
 * here in double precision and rounded once to float; the originals stay
 * (another node may read them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "onnx/bnfold.h"

/* The number of nodes reading tensor "t" (as any input). */
static int n_readers(const struct ein_onnx_graph *g, int t)
{
	int i, k, n = 0;

	for (i = 0; i < g->n_node; ++i)
		for (k = 0; k < g->node[i].n_in; ++k)
			n += g->node[i].in[k] == t;
	return n;
}

/* The node writing tensor "t", -1 if none. */
static int producer(const struct ein_onnx_graph *g, int t)
{
	int i, k;

	for (i = 0; i < g->n_node; ++i)
		for (k = 0; k < g->node[i].n_out; ++k)
			if (g->node[i].out[k] == t)
				return i;
	return -1;
}

/* Is tensor "t" a FLOAT constant vector of "m" elements? */
static int float_vector(const struct ein_onnx_graph *g, int t, int64_t m)
{
	const struct ein_onnx_tensor *v = t >= 0 ? &g->tensor[t] : NULL;

	return v && v->role == EIN_ONNX_CONST && v->dtype == EIN_ONNX_FLOAT &&
		v->rank == 1 && v->dim[0].value == m;
}

/* A new FLOAT constant named "name" with the shape of "like" and
 * "bytes" bytes of data (uninitialised); its index, -1 if out of
 * memory. */
static int new_const(struct ein_onnx_graph *g, const char *name, int like)
{
	int k = ein_onnx_graph_tensor(g, name);
	struct ein_onnx_tensor *t;

	if (k < 0)
		return -1;
	t = &g->tensor[k];
	t->dtype = EIN_ONNX_FLOAT;
	t->rank = g->tensor[like].rank;
	memcpy(t->dim, g->tensor[like].dim, sizeof(t->dim));
	t->known = 1;
	t->role = EIN_ONNX_CONST;
	t->bytes = g->tensor[like].bytes;
	t->data = malloc(t->bytes + 1);
	return t->data ? k : -1;
}

/* Can node "bn" be folded into the Conv "conv" writing its input? */
static int foldable(const struct ein_onnx_graph *g,
	const struct ein_onnx_node *conv, const struct ein_onnx_node *bn)
{
	const struct ein_onnx_tensor *w;
	int64_t m;
	int i;

	if (strcmp(conv->op, "Conv") || conv->n_in < 2 || conv->n_out != 1 ||
	    bn->n_in != 5 || bn->n_out < 1 ||
	    (bn->n_out > 1 && bn->out[1] >= 0) ||
	    ein_onnx_node_int(bn, "training_mode", 0) ||
	    g->tensor[conv->out[0]].output ||
	    n_readers(g, conv->out[0]) != 1 || conv->in[1] < 0)
		return 0;
	w = &g->tensor[conv->in[1]];
	if (w->role != EIN_ONNX_CONST || w->dtype != EIN_ONNX_FLOAT ||
	    w->rank < 3 || w->dim[0].value < 1)
		return 0;
	m = w->dim[0].value;
	for (i = 1; i < 5; ++i)
		if (!float_vector(g, bn->in[i], m))
			return 0;
	return conv->n_in < 3 || conv->in[2] < 0 ||
		float_vector(g, conv->in[2], m);
}

/* Fold node g->node[b] into g->node[c]. */
static int fold_one(struct ein_onnx_graph *g, int c, int b)
{
	struct ein_onnx_node *conv = &g->node[c], *bn = &g->node[b];
	const struct ein_onnx_tensor *w = &g->tensor[conv->in[1]];
	const float *s = g->tensor[bn->in[1]].data;
	const float *beta = g->tensor[bn->in[2]].data;
	const float *mean = g->tensor[bn->in[3]].data;
	const float *var = g->tensor[bn->in[4]].data;
	const float *bias = conv->n_in > 2 && conv->in[2] >= 0 ?
		g->tensor[conv->in[2]].data : NULL;
	double eps = ein_onnx_node_float(bn, "epsilon", 1e-5f);
	int64_t m = w->dim[0].value, per = w->bytes / 4 / m, i, j;
	char name[600];
	int nw, nb, *in;

	snprintf(name, sizeof(name), "%s/folded_W", bn->name);
	nw = new_const(g, name, conv->in[1]);
	snprintf(name, sizeof(name), "%s/folded_B", bn->name);
	nb = nw < 0 ? -1 : new_const(g, name, bn->in[1]);
	if (nb < 0)
		return -1;
	conv = &g->node[c];
	bn = &g->node[b];
	w = &g->tensor[conv->in[1]];
	for (i = 0; i < m; ++i) {
		double k = s[i] / sqrt((double) var[i] + eps);

		for (j = 0; j < per; ++j)
			((float *) g->tensor[nw].data)[i * per + j] =
				((const float *) w->data)[i * per + j] * k;
		((float *) g->tensor[nb].data)[i] =
			((bias ? bias[i] : 0) - mean[i]) * k + beta[i];
	}
	if (conv->n_in < 3) {
		if (!(in = realloc(conv->in, 3 * sizeof(*in))))
			return -1;
		conv->in = in;
		conv->n_in = 3;
	}
	conv->in[1] = nw;
	conv->in[2] = nb;
	conv->out[0] = bn->out[0];
	ein_onnx_graph_remove_node(g, b);
	return 0;
}

int ein_onnx_fold_batchnorm(struct ein_onnx_graph *g)
{
	int i, c, n = 0;

	for (i = 0; i < g->n_node; ++i) {
		if (strcmp(g->node[i].op, "BatchNormalization") ||
		    g->node[i].n_in < 1 || g->node[i].in[0] < 0)
			continue;
		c = producer(g, g->node[i].in[0]);
		if (c < 0 || c >= i || !foldable(g, &g->node[c], &g->node[i]))
			continue;
		if (fold_one(g, c, i) < 0)
			return -1;
		--i;
		++n;
	}
	return n;
}
