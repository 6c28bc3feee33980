/*
 * graph.h: the importer's graph, between an ONNX model and ein source.
 *
 * read.c fills it from the protobuf (the only file that sees protobuf-c's
 * types); fold.c computes constant tensors (Constant nodes, shape
 * computations); lower.c and the ops_*.c files write each node as ein
 * statements.  The graph is plain data: nodes in topological order, each
 * naming its input and output tensors by index.
 */
#ifndef EIN_ONNX_GRAPH_H
#define EIN_ONNX_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include "ein.h"

/* The most dimensions of a tensor the importer handles. */
#define EIN_ONNX_MAX_RANK 8

/* Element types, ONNX's TensorProto.DataType numbers. */
enum ein_onnx_dtype {
	EIN_ONNX_UNDEFINED = 0,
	EIN_ONNX_FLOAT = 1,
	EIN_ONNX_UINT8 = 2,
	EIN_ONNX_INT8 = 3,
	EIN_ONNX_INT32 = 6,
	EIN_ONNX_INT64 = 7,
	EIN_ONNX_BOOL = 9,
	EIN_ONNX_DOUBLE = 11
};

/* One dimension: a constant "value", or size "sym" of the graph (an ONNX
 * dim_param) when sym >= 0. */
struct ein_onnx_dim {
	int64_t value;
	int sym;
};

/* What a tensor is to the definition written for the graph. */
enum ein_onnx_role {
	EIN_ONNX_TEMP,		/* computed by a node */
	EIN_ONNX_INPUT,		/* a graph input without data */
	EIN_ONNX_CONST		/* data known at import: an initializer or folded */
};

/* A tensor.
 * name: its ONNX name; id: its ein identifier (NULL until lower.c names
 *	it); out_id: for a graph output, the name of the definition's output
 *	(id is then the temporary the statements write, copied into it);
 * dtype, rank, dim: its element type and shape (known: 1 once inferred);
 * role: as above; output: a graph output;
 * data, bytes: the elements of a constant, little-endian in ONNX's layout
 *	(int64 for INT64), owned;
 * sval: for an INT64 constant computed from shapes, its values as
 *	dimensions (symbolic where a shape was), owned; NULL otherwise;
 * used: read by a node that ein computes (a constant then becomes an input
 *	of the definition). */
struct ein_onnx_tensor {
	char *name;
	char *id;
	char *out_id;
	enum ein_onnx_dtype dtype;
	int known;
	int rank;
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	enum ein_onnx_role role;
	int output;
	void *data;
	size_t bytes;
	struct ein_onnx_dim *sval;
	int used;
};

/* The kinds of attribute values the importer reads. */
enum ein_onnx_attr_kind {
	EIN_ONNX_ATTR_FLOAT,
	EIN_ONNX_ATTR_INT,
	EIN_ONNX_ATTR_STRING,
	EIN_ONNX_ATTR_TENSOR,
	EIN_ONNX_ATTR_FLOATS,
	EIN_ONNX_ATTR_INTS,
	EIN_ONNX_ATTR_OTHER
};

/* A node's attribute: its name and kind, and the value of that kind
 * (s: a NUL-terminated string; tensor: the index of a constant tensor the
 * reader made of it; n values in floats or ints).  Owned by the node. */
struct ein_onnx_attr {
	char *name;
	enum ein_onnx_attr_kind kind;
	float f;
	int64_t i;
	char *s;
	int tensor;
	int n;
	float *floats;
	int64_t *ints;
};

/* A node: name (ONNX's, or "" when it has none) and op type; its inputs and
 * outputs as tensor indices (-1 for an omitted optional input); its
 * attributes. */
struct ein_onnx_node {
	char *name;
	char *op;
	int n_in;
	int *in;
	int n_out;
	int *out;
	int n_attr;
	struct ein_onnx_attr *attr;
};

/* The graph: its name; the opset of the default domain; the sizes
 * (dim_params, by name); the tensors; the nodes in topological order; the
 * graph's inputs and outputs as tensor indices. */
struct ein_onnx_graph {
	char *name;
	int64_t opset;
	int n_size;
	char **size;
	int n_tensor;
	struct ein_onnx_tensor *tensor;
	int n_node;
	struct ein_onnx_node *node;
	int n_input;
	int *input;
	int n_output;
	int *output;
};

struct ein_onnx_graph *ein_onnx_graph_alloc(void);
void ein_onnx_graph_free(struct ein_onnx_graph *g);
/* The index of the tensor named "name", created (untyped, a temporary) if
 * there is none; -1 when out of memory. */
int ein_onnx_graph_tensor(struct ein_onnx_graph *g, const char *name);
/* Remove node "pos" (the others keep their order). */
void ein_onnx_graph_remove_node(struct ein_onnx_graph *g, int pos);
/* The index of size "name", added if new; -1 when out of memory. */
int ein_onnx_graph_size(struct ein_onnx_graph *g, const char *name);

/* The bytes of one element of "dtype", 0 if the importer has no such
 * type. */
size_t ein_onnx_dtype_size(enum ein_onnx_dtype dtype);
/* ONNX's name of "dtype" ("FLOAT", "INT64", ...). */
const char *ein_onnx_dtype_name(int dtype);
/* ein's name of "dtype" ("float32", ...), NULL for INT64 and others ein
 * does not compute with. */
const char *ein_onnx_dtype_ein(enum ein_onnx_dtype dtype);

/* The most elements a tensor may have: its bytes (8 per element at
 * most) and sums of a few such stay far from int64_t's limit.  The
 * constants' check in read.c uses the same bound. */
#define EIN_ONNX_MAX_ELEM (INT64_MAX / 16)

/* The number of elements of a tensor of known constant shape, -1 if a
 * dimension is symbolic; EIN_ONNX_MAX_ELEM + 1 if there are more than
 * EIN_ONNX_MAX_ELEM. */
int64_t ein_onnx_tensor_n_elem(const struct ein_onnx_tensor *t);
/* The product of the constant dimensions among dim[0..rank) (symbolic
 * ones are left out), EIN_ONNX_MAX_ELEM + 1 if the product of the
 * nonzero ones is larger: a tensor with a zero dimension still has
 * strides that are products of the others. */
int64_t ein_onnx_const_product(const struct ein_onnx_dim *dim, int rank);
/* Are two dimensions equal for every value of the sizes? */
int ein_onnx_dim_eq(struct ein_onnx_dim a, struct ein_onnx_dim b);
/* A constant dimension. */
struct ein_onnx_dim ein_onnx_dim_const(int64_t v);

/* The attribute "name" of node "n", NULL if it has none. */
const struct ein_onnx_attr *ein_onnx_node_attr(const struct ein_onnx_node *n,
	const char *name);
/* The integer attribute "name", or "def" when absent. */
int64_t ein_onnx_node_int(const struct ein_onnx_node *n, const char *name,
	int64_t def);
/* The float attribute "name", or "def" when absent. */
float ein_onnx_node_float(const struct ein_onnx_node *n, const char *name,
	float def);
/* The string attribute "name", or "def" when absent. */
const char *ein_onnx_node_string(const struct ein_onnx_node *n,
	const char *name, const char *def);

#endif
