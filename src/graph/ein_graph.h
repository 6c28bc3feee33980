/*
 * ein_graph.h: the graph level, between a model importer and the kernel
 * pipeline (docs/onnx.md, "The graph level").
 *
 * An importer (src/onnx/) builds a graph: tensors, and nodes in
 * topological order, each node carrying the ein statements that compute
 * its outputs from its inputs.  The graph level then
 *
 *     partitions the nodes into fused kernels      ein_graph_partition
 *     writes each kernel as one ein definition     ein_graph_print_source
 *     plans the tensors between kernels in one     ein_graph_plan_memory
 *         arena, by liveness
 *
 * and model.c (the ein_model_* API of ein.h) compiles each kernel with the
 * normal pipeline and runs them in order over the arena.
 *
 * A kernel is a run of consecutive nodes: a node that starts a kernel (an
 * "anchor": a convolution, a matrix product, a pool, or any operator the
 * fusion table does not know) followed by the elementwise, index-mapping
 * and (where no anchor is in the kernel) reduction nodes that read what
 * the kernel computes.  Tensors that cross kernels are the kernels'
 * parameters; the others stay temporaries of one definition, which the
 * kernel pipeline schedules (and contracts) as it does any definition.
 */
#ifndef EIN_GRAPH_EIN_GRAPH_H
#define EIN_GRAPH_EIN_GRAPH_H

#include <stdint.h>
#include <stdio.h>
#include <isl/ctx.h>
#include "ein.h"

/* What a tensor is to the model. */
enum ein_graph_role {
	EIN_GRAPH_INPUT = 0,	/* a model input, given by the caller */
	EIN_GRAPH_WEIGHT = 1,	/* a constant the importer holds */
	EIN_GRAPH_TEMP = 2,	/* computed by a node */
	EIN_GRAPH_OUTPUT = 3	/* computed, and given to the caller */
};

struct ein_graph;

/* A graph named "name" (the model's definition name, the prefix of its
 * kernels' names), empty; NULL when out of memory. */
__isl_give struct ein_graph *ein_graph_alloc(const char *name);
void ein_graph_free(__isl_take struct ein_graph *g);

/* Add a tensor: its ein identifier "id", element type "type" ("float32",
 * ...), the text of its shape ("N, 8, 12, 12", "" for a scalar), its
 * size in bytes (-1 while a dimension is symbolic) and its role.
 * Returns its index, -1 when out of memory. */
int ein_graph_add_tensor(__isl_keep struct ein_graph *g, const char *id,
	const char *type, const char *shape, int64_t bytes,
	enum ein_graph_role role);
/* Add a node: its name and op type (for messages and the fusion table),
 * the text of its statements (whole lines), the tensors it reads
 * in[0 .. n_in-1] (only those its statements read) and writes
 * out[0 .. n_out-1].  Nodes are added in topological order.  Returns its
 * index, -1 when out of memory. */
int ein_graph_add_node(__isl_keep struct ein_graph *g, const char *name,
	const char *op, const char *text, int n_in, const int *in, int n_out,
	const int *out);

int ein_graph_n_tensor(__isl_keep const struct ein_graph *g);
const char *ein_graph_tensor_id(__isl_keep const struct ein_graph *g, int t);
const char *ein_graph_tensor_type(__isl_keep const struct ein_graph *g,
	int t);
const char *ein_graph_tensor_shape(__isl_keep const struct ein_graph *g,
	int t);
int64_t ein_graph_tensor_bytes(__isl_keep const struct ein_graph *g, int t);
enum ein_graph_role ein_graph_tensor_role(__isl_keep const struct ein_graph *g,
	int t);

/* Group the nodes into kernels by the fusion rules (fuse.c).  Returns the
 * number of kernels, -1 when out of memory. */
int ein_graph_partition(__isl_keep struct ein_graph *g);
int ein_graph_n_kernel(__isl_keep const struct ein_graph *g);
/* The name of kernel "k": "MODEL_kK_OP", OP the first node's op type in
 * lower case (the definition's name, under which a schedule is looked
 * up). */
const char *ein_graph_kernel_name(__isl_keep const struct ein_graph *g,
	int k);
/* The nodes of kernel "k" as text: "Conv conv_0 + Relu relu_0". */
void ein_graph_print_kernel_nodes(__isl_keep const struct ein_graph *g,
	int k, FILE *out);
/* The parameters of kernel "k": inputs first, then outputs, in the order
 * of its definition's signature, as tensor indices. */
int ein_graph_kernel_n_param(__isl_keep const struct ein_graph *g, int k);
int ein_graph_kernel_param(__isl_keep const struct ein_graph *g, int k,
	int pos);
/* The number of inputs among the parameters; does the kernel write
 * anything another kernel or the model's outputs read (if not, it is not
 * compiled)? */
int ein_graph_kernel_n_input(__isl_keep const struct ein_graph *g, int k);
int ein_graph_kernel_is_used(__isl_keep const struct ein_graph *g, int k);
/* Every kernel as one definition, in order, into "out" (a source that
 * ein_program_parse reads as one program). */
void ein_graph_print_source(__isl_keep const struct ein_graph *g, FILE *out);

/* A buffer to place: its size, the first and last kernel during which it
 * is alive (inclusive), and the offset the planner gives it. */
struct ein_graph_buf {
	int64_t bytes;
	int first;
	int last;
	int64_t offset;
};

/* Give each of buf[0 .. n-1] an offset, a multiple of "align", such that
 * buffers alive during a common kernel never overlap: the largest first,
 * each in the smallest gap that holds it among those already placed that
 * it meets in time (best fit), else above them.  Returns the arena's
 * size (the largest offset + bytes, 0 for none). */
int64_t ein_graph_plan(struct ein_graph_buf *buf, int n, int64_t align);

/* Plan the tensors that cross kernels (role TEMP, a parameter of a
 * kernel) of partitioned "g" in one arena: their lifetimes run from the
 * kernel writing them to the last kernel reading them.  Returns the
 * arena's size, and gives each tensor's offset in ein_graph_tensor_offset
 * (-1 for tensors outside the arena); -1 when out of memory or a
 * tensor's size is unknown (a symbolic dimension). */
int64_t ein_graph_plan_memory(__isl_keep struct ein_graph *g);
int64_t ein_graph_tensor_offset(__isl_keep const struct ein_graph *g, int t);
/* The plan as a table (tensor, bytes, lifetime in kernels, offset), then
 * the arena's size against the sum of the tensors. */
void ein_graph_print_memory(__isl_keep const struct ein_graph *g, FILE *out);

#endif
