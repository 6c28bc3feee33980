/*
 * panels.c: constant MatMul weights laid out in column panels.
 *
 *     y = MatMul(a, B)             y(.., m, n) = t(.., m, n / 64, n % 64)
 *     B: (K, N) constant     =>    t(.., m, p, c) += a(.., m, k) * B'(p, k, c)
 *                                  B'(p, k, c) = B(k, 64 p + c), (N/64, K, 64)
 *
 * The automatic schedule of a product whose columns are longer than its
 * register tile copies ("packs") each panel of B that a tile reads, K x 64
 * floats, into a buffer where the panel's rows follow each other, and does
 * so on every call: for the weights of a model, which never change, that is
 * work onnxruntime does once when the session is created.  Laid out here,
 * once, when the model is imported, the panels are already contiguous:
 * the product over them spans its last index with one tile (the scheduler's
 * spanning tile, which reads B where it lies, without pack), and the copy
 * of t into y is the identity on memory.  Only MatMul's constant B is laid
 * out: a B computed by the model (attention's products) changes with each
 * call, and a width that is not a multiple of the panel keeps the packed
 * product (a padded last panel would need a guard in the tile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "onnx/panels.h"

/* Is "t" a FLOAT constant matrix of more than one whole panel of
 * columns? */
static int panelable(const struct ein_onnx_tensor *t)
{
	return t->role == EIN_ONNX_CONST && t->dtype == EIN_ONNX_FLOAT &&
		!t->panel && t->rank == 2 && t->dim[0].sym < 0 &&
		t->dim[1].sym < 0 && t->dim[0].value >= 1 &&
		t->dim[1].value > EIN_ONNX_PANEL &&
		t->dim[1].value % EIN_ONNX_PANEL == 0 && t->data &&
		t->bytes == (size_t) (t->dim[0].value * t->dim[1].value) * 4;
}

/* The panels of constant g->tensor[b], made on first use under the name
 * "B/panels"; its index, -1 when out of memory, -2 when the model has a
 * tensor of that name already (the weight then stays as it is). */
static int panels_of(struct ein_onnx_graph *g, int b)
{
	const int64_t p = EIN_ONNX_PANEL;
	const char *old = g->tensor[b].name;
	char *name = malloc(strlen(old) + sizeof("/panels"));
	struct ein_onnx_tensor *t;
	const float *src;
	float *dst;
	int64_t k, n, j, i;
	int x, had = g->n_tensor;

	if (!name)
		return -1;
	sprintf(name, "%s/panels", old);
	x = ein_onnx_graph_tensor(g, name);
	free(name);
	if (x < 0 || g->tensor[x].panel)
		return x;
	if (x < had)
		return -2;
	t = &g->tensor[x];
	k = g->tensor[b].dim[0].value;
	n = g->tensor[b].dim[1].value;
	t->data = malloc(g->tensor[b].bytes + 1);
	if (!t->data)
		return -1;
	t->dtype = EIN_ONNX_FLOAT;
	t->rank = 3;
	t->dim[0] = ein_onnx_dim_const(n / p);
	t->dim[1] = ein_onnx_dim_const(k);
	t->dim[2] = ein_onnx_dim_const(p);
	t->known = 1;
	t->role = EIN_ONNX_CONST;
	t->bytes = g->tensor[b].bytes;
	t->panel = (int) p;
	src = g->tensor[b].data;
	dst = t->data;
	for (j = 0; j < n / p; ++j)
		for (i = 0; i < k; ++i)
			memcpy(dst + (j * k + i) * p, src + i * n + j * p,
				p * sizeof(*dst));
	return x;
}

int ein_onnx_panel_weights(struct ein_onnx_graph *g)
{
	int i, x, changed = 0;

	for (i = 0; i < g->n_node; ++i) {
		struct ein_onnx_node *n = &g->node[i];

		if (strcmp(n->op, "MatMul") || n->n_in != 2 || n->in[1] < 0 ||
		    !panelable(&g->tensor[n->in[1]]))
			continue;
		x = panels_of(g, n->in[1]);
		if (x == -2)
			continue;
		if (x < 0)
			return -1;
		g->node[i].in[1] = x;
		++changed;
	}
	return changed;
}
