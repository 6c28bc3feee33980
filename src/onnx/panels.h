/*
 * panels.h: constant matrix-product weights laid out in column panels at
 * import, the layout the product's register tile reads.
 */
#ifndef EIN_ONNX_PANELS_H
#define EIN_ONNX_PANELS_H

#include "onnx/graph.h"

/* The width of a panel: one row of the AVX-512 register tile of a
 * contraction, 4 vectors of 16 floats (src/sched/auto.c). */
#define EIN_ONNX_PANEL 64

/* For every MatMul whose B is a FLOAT constant matrix (K, N) with N a
 * multiple of EIN_ONNX_PANEL and more than one panel, give it instead a
 * constant of shape (N / EIN_ONNX_PANEL, K, EIN_ONNX_PANEL) holding the
 * same elements, B'(j / P, k, j % P) = B(k, j), marked with "panel"; the
 * MatMul's lowering (ops_nn.c) then writes the product over those panels.
 * A weight that several MatMuls read is laid out once; the original stays
 * (another node may read it).  Returns the number of MatMuls changed, -1
 * when out of memory. */
int ein_onnx_panel_weights(struct ein_onnx_graph *g);

#endif
