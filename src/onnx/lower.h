/*
 * lower.h: the importer's graph as one ein definition.
 */
#ifndef EIN_ONNX_LOWER_H
#define EIN_ONNX_LOWER_H

#include "graph/ein_graph.h"
#include "onnx/graph.h"

/* Write graph "g" (read from "path") as the ein source of one definition
 * named "def": the graph's inputs, then the constants ein computes with
 * (the weights, marked "used" in g), as its inputs; the graph's outputs
 * as its outputs; every other tensor a temporary.  Sizes fixed in "opts"
 * (ein_options_fix_size, by the size's ein name or its ONNX dim_param)
 * replace the symbolic dimensions they name.  Returns the text (the
 * caller frees it), or NULL after an error naming the node, its op type
 * and what is not supported.  Unless "graph" is NULL, *graph is also the
 * graph level's view of the model (each node with its statements,
 * onnx/tograph.h), owned by the caller. */
char *ein_onnx_lower(ein_ctx *ctx, const char *path, struct ein_onnx_graph *g,
	const char *def, const ein_options *opts, struct ein_graph **graph);
/* As ein_onnx_lower; with "expose", every intermediate tensor the nodes
 * compute is an output of the definition too (after the graph's
 * outputs, by its ein name), so that a run can see it (ein profile); with
 * "quant" (quantize.h), the nodes are written as its plan chooses, in
 * int8 or in float. */
struct ein_onnx_quant;
char *ein_onnx_lower_with(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const char *def, const ein_options *opts,
	int expose, struct ein_onnx_quant *quant, struct ein_graph **graph);

#endif
