/*
 * tograph.h: the imported model as the graph level's graph (graph/ein_graph.h).
 */
#ifndef EIN_ONNX_TOGRAPH_H
#define EIN_ONNX_TOGRAPH_H

#include "graph/ein_graph.h"
#include "onnx/ops.h"

/* The graph of the nodes that lowering "l" wrote into "body": node i's
 * statements end at end[i] (and begin where node i - 1's end), then the
 * copy of the graph's output j ends at end[n_node + j] (a node "Output").
 * Folded nodes, which wrote nothing, are left out; each node reads the
 * tensors its statements name.  "def" names the graph.  NULL when out of
 * memory (reported in l's context). */
__isl_give struct ein_graph *ein_onnx_make_graph(struct ein_onnx_lower *l,
	const char *def, const char *body, const long *end);

/* The graph of an imported model (owned by the model). */
__isl_keep struct ein_graph *ein_onnx_get_graph(const ein_onnx *m);

#endif
