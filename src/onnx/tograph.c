/*
 * tograph.c: the imported model as the graph level's graph.
 *
 * lower.c writes every node as statements into one body and notes where
 * each node's statements end; here each node with statements becomes a
 * node of the graph level with its text, and each tensor those
 * statements exchange a tensor with its ein name, type, shape and bytes.
 * The graph level then decides which nodes share a kernel
 * (src/graph/fuse.c); the importer only describes the model.
 */
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "onnx/tograph.h"

/* The state of the translation: the lowering, the graph built, and the
 * graph's index of each ONNX tensor (-1: not yet added). */
struct tograph {
	struct ein_onnx_lower *l;
	struct ein_graph *graph;
	int *index;
};

/* Is "c" a character of an identifier? */
static int id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_';
}

/* Does "text" name identifier "id" (as a whole word)? */
static int names(const char *text, const char *id)
{
	size_t len = strlen(id);
	const char *p;

	for (p = strstr(text, id); p; p = strstr(p + 1, id))
		if ((p == text || !id_char(p[-1])) && !id_char(p[len]))
			return 1;
	return 0;
}

/* The text of the shape of "t" ("N, 8, 12, 12"); the caller frees it. */
static char *shape_text(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *t)
{
	FILE *out = l->out;
	char *text = NULL;
	size_t len;
	int d;

	l->out = open_memstream(&text, &len);
	if (!l->out)
		return (l->out = out, NULL);
	for (d = 0; d < t->rank; ++d) {
		fputs(d ? ", " : "", l->out);
		ein_onnx_print_dim(l, t->dim[d]);
	}
	fclose(l->out);
	l->out = out;
	return text;
}

/* The bytes of "t", -1 while a dimension is symbolic. */
static int64_t tensor_bytes(const struct ein_onnx_tensor *t)
{
	int64_t n = ein_onnx_tensor_n_elem(t);

	return n < 0 ? -1 : n * (int64_t) ein_onnx_dtype_size(t->dtype);
}

/* Add "t" as "id" with "role" to the graph; its index, -1 when out of
 * memory. */
static int add_tensor(struct tograph *tg, const struct ein_onnx_tensor *t,
	const char *id, enum ein_graph_role role)
{
	char *shape = shape_text(tg->l, t);
	int i;

	if (!shape)
		return -1;
	i = ein_graph_add_tensor(tg->graph, id, ein_onnx_dtype_ein(t->dtype),
		shape, tensor_bytes(t), role);
	free(shape);
	return i;
}

/* The graph's index of ONNX tensor "i", added on first use. */
static int tensor(struct tograph *tg, int i)
{
	const struct ein_onnx_tensor *t = &tg->l->g->tensor[i];
	enum ein_graph_role role = t->role == EIN_ONNX_INPUT ?
		EIN_GRAPH_INPUT : t->role == EIN_ONNX_CONST ? EIN_GRAPH_WEIGHT :
		EIN_GRAPH_TEMP;

	if (tg->index[i] < 0)
		tg->index[i] = add_tensor(tg, t, t->id, role);
	return tg->index[i];
}

/* Add node "n" with statements "text": the inputs its text names, and
 * its outputs. */
static int add_node(struct tograph *tg, const struct ein_onnx_node *n,
	const char *text)
{
	int in[n->n_in + 1], out[n->n_out + 1], n_in = 0, n_out = 0, i;

	for (i = 0; i < n->n_in; ++i)
		if (n->in[i] >= 0 &&
		    names(text, tg->l->g->tensor[n->in[i]].id) &&
		    (in[n_in++] = tensor(tg, n->in[i])) < 0)
			return -1;
	for (i = 0; i < n->n_out; ++i)
		if (n->out[i] >= 0 && tg->l->g->tensor[n->out[i]].id &&
		    names(text, tg->l->g->tensor[n->out[i]].id) &&
		    (out[n_out++] = tensor(tg, n->out[i])) < 0)
			return -1;
	return ein_graph_add_node(tg->graph, n->name[0] ? n->name : "-",
		n->op, text, n_in, in, n_out, out);
}

/* Add the copy "text" of the graph's output "i" into its output tensor. */
static int add_output(struct tograph *tg, int i, const char *text)
{
	int t = tg->l->g->output[i];
	const struct ein_onnx_tensor *o = &tg->l->g->tensor[t];
	int in = tensor(tg, t), out;

	out = add_tensor(tg, o, o->out_id, EIN_GRAPH_OUTPUT);
	if (in < 0 || out < 0)
		return -1;
	return ein_graph_add_node(tg->graph, o->out_id, "Output", text, 1,
		&in, 1, &out);
}

/* Add the node or output copy "i" whose statements are body[start ..
 * stop), unless it has none. */
static int add_span(struct tograph *tg, int i, const char *body, long start,
	long stop)
{
	struct ein_onnx_graph *g = tg->l->g;
	char *text;
	int r;

	if (stop <= start)
		return 0;
	text = strndup(body + start, stop - start);
	if (!text)
		return -1;
	r = i < g->n_node ? add_node(tg, &g->node[i], text) :
		add_output(tg, i - g->n_node, text);
	free(text);
	return r;
}

__isl_give struct ein_graph *ein_onnx_make_graph(struct ein_onnx_lower *l,
	const char *def, const char *body, const long *end)
{
	struct ein_onnx_graph *g = l->g;
	struct tograph tg = { l, ein_graph_alloc(def), NULL };
	int i, ok = tg.graph != NULL;

	tg.index = malloc((g->n_tensor + 1) * sizeof(*tg.index));
	ok = ok && tg.index;
	for (i = 0; ok && i < g->n_tensor; ++i)
		tg.index[i] = -1;
	for (i = 0; ok && i < g->n_node + g->n_output; ++i)
		ok = add_span(&tg, i, body, i ? end[i - 1] : 0, end[i]) >= 0;
	free(tg.index);
	if (ok)
		return tg.graph;
	ein_graph_free(tg.graph);
	ein_error(l->ctx, EIN_ERROR_NOMEM, "out of memory");
	return NULL;
}
