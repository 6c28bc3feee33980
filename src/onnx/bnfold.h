/*
 * bnfold.h: batch normalisations folded into the convolutions before
 * them.
 */
#ifndef EIN_ONNX_BNFOLD_H
#define EIN_ONNX_BNFOLD_H

#include "onnx/graph.h"

/* Fold every inference BatchNormalization whose input is the output of
 * a Conv that nothing else reads, and whose parameters and the Conv's
 * weights (and bias) are FLOAT constants, into the Conv: its weights
 * scaled by scale / sqrt(var + epsilon) per output channel, its bias
 * (b - mean) * that + B; the Conv then writes the BatchNormalization's
 * output, and the BatchNormalization node is removed.  Returns the number
 * of nodes folded, -1 when out of memory. */
int ein_onnx_fold_batchnorm(struct ein_onnx_graph *g);

#endif
