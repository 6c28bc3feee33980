/*
 * graph.c: the importer's graph (graph.h): allocation, lookup, attributes.
 */
#include <stdlib.h>
#include <string.h>
#include "onnx/graph.h"

struct ein_onnx_graph *ein_onnx_graph_alloc(void)
{
	return calloc(1, sizeof(struct ein_onnx_graph));
}

static void node_clear(struct ein_onnx_node *n)
{
	int i;

	for (i = 0; i < n->n_attr; ++i) {
		free(n->attr[i].name);
		free(n->attr[i].s);
		free(n->attr[i].floats);
		free(n->attr[i].ints);
	}
	free(n->attr);
	free(n->name);
	free(n->op);
	free(n->in);
	free(n->out);
}

void ein_onnx_graph_free(struct ein_onnx_graph *g)
{
	int i;

	if (!g)
		return;
	for (i = 0; i < g->n_node; ++i)
		node_clear(&g->node[i]);
	for (i = 0; i < g->n_tensor; ++i) {
		free(g->tensor[i].name);
		free(g->tensor[i].id);
		free(g->tensor[i].out_id);
		free(g->tensor[i].data);
		free(g->tensor[i].sval);
	}
	for (i = 0; i < g->n_size; ++i)
		free(g->size[i]);
	free(g->size);
	free(g->node);
	free(g->tensor);
	free(g->input);
	free(g->output);
	free(g->name);
	free(g);
}

int ein_onnx_graph_tensor(struct ein_onnx_graph *g, const char *name)
{
	struct ein_onnx_tensor *t;
	int i;

	for (i = 0; i < g->n_tensor; ++i)
		if (!strcmp(g->tensor[i].name, name))
			return i;
	t = realloc(g->tensor, (g->n_tensor + 1) * sizeof(*t));
	if (!t)
		return -1;
	g->tensor = t;
	t = &g->tensor[g->n_tensor];
	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
	if (!t->name)
		return -1;
	return g->n_tensor++;
}

int ein_onnx_graph_size(struct ein_onnx_graph *g, const char *name)
{
	char **s;
	int i;

	for (i = 0; i < g->n_size; ++i)
		if (!strcmp(g->size[i], name))
			return i;
	s = realloc(g->size, (g->n_size + 1) * sizeof(*s));
	if (!s)
		return -1;
	g->size = s;
	s[g->n_size] = strdup(name);
	return s[g->n_size] ? g->n_size++ : -1;
}

size_t ein_onnx_dtype_size(enum ein_onnx_dtype dtype)
{
	switch (dtype) {
	case EIN_ONNX_FLOAT: return 4;
	case EIN_ONNX_DOUBLE: return 8;
	case EIN_ONNX_INT32: return 4;
	case EIN_ONNX_INT64: return 8;
	case EIN_ONNX_INT8: return 1;
	case EIN_ONNX_UINT8: return 1;
	case EIN_ONNX_BOOL: return 1;
	default: return 0;
	}
}

const char *ein_onnx_dtype_name(int dtype)
{
	static const char *names[] = { "UNDEFINED", "FLOAT", "UINT8", "INT8",
		"UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
		"FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64",
		"COMPLEX128", "BFLOAT16" };

	if (dtype < 0 || dtype >= (int) (sizeof(names) / sizeof(names[0])))
		return "an unknown type";
	return names[dtype];
}

const char *ein_onnx_dtype_ein(enum ein_onnx_dtype dtype)
{
	switch (dtype) {
	case EIN_ONNX_FLOAT: return "float32";
	case EIN_ONNX_DOUBLE: return "float64";
	case EIN_ONNX_INT32: return "int32";
	case EIN_ONNX_INT8: return "int8";
	case EIN_ONNX_UINT8: return "uint8";
	case EIN_ONNX_BOOL: return "bool";
	default: return NULL;
	}
}

int64_t ein_onnx_const_product(const struct ein_onnx_dim *dim, int rank)
{
	int64_t n = 1;
	int d, zero = 0;

	for (d = 0; d < rank; ++d) {
		if (dim[d].sym >= 0)
			continue;
		if (dim[d].value == 0)
			zero = 1;
		else if (dim[d].value < 0 ||
			 n > EIN_ONNX_MAX_ELEM / dim[d].value)
			return EIN_ONNX_MAX_ELEM + 1;
		else
			n *= dim[d].value;
	}
	return zero ? 0 : n;
}

int64_t ein_onnx_tensor_n_elem(const struct ein_onnx_tensor *t)
{
	int d;

	for (d = 0; d < t->rank; ++d)
		if (t->dim[d].sym >= 0)
			return -1;
	return ein_onnx_const_product(t->dim, t->rank);
}

int ein_onnx_dim_eq(struct ein_onnx_dim a, struct ein_onnx_dim b)
{
	if (a.sym >= 0 || b.sym >= 0)
		return a.sym == b.sym;
	return a.value == b.value;
}

struct ein_onnx_dim ein_onnx_dim_const(int64_t v)
{
	struct ein_onnx_dim d = { v, -1 };

	return d;
}

const struct ein_onnx_attr *ein_onnx_node_attr(const struct ein_onnx_node *n,
	const char *name)
{
	int i;

	for (i = 0; i < n->n_attr; ++i)
		if (!strcmp(n->attr[i].name, name))
			return &n->attr[i];
	return NULL;
}

int64_t ein_onnx_node_int(const struct ein_onnx_node *n, const char *name,
	int64_t def)
{
	const struct ein_onnx_attr *a = ein_onnx_node_attr(n, name);

	return a && a->kind == EIN_ONNX_ATTR_INT ? a->i : def;
}

float ein_onnx_node_float(const struct ein_onnx_node *n, const char *name,
	float def)
{
	const struct ein_onnx_attr *a = ein_onnx_node_attr(n, name);

	return a && a->kind == EIN_ONNX_ATTR_FLOAT ? a->f : def;
}

const char *ein_onnx_node_string(const struct ein_onnx_node *n,
	const char *name, const char *def)
{
	const struct ein_onnx_attr *a = ein_onnx_node_attr(n, name);

	return a && a->kind == EIN_ONNX_ATTR_STRING ? a->s : def;
}

void ein_onnx_graph_remove_node(struct ein_onnx_graph *g, int pos)
{
	node_clear(&g->node[pos]);
	memmove(g->node + pos, g->node + pos + 1,
		(g->n_node - pos - 1) * sizeof(*g->node));
	g->n_node--;
}
