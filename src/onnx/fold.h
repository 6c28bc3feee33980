/*
 * fold.h: nodes computed at import time.
 */
#ifndef EIN_ONNX_FOLD_H
#define EIN_ONNX_FOLD_H

#include "onnx/ops.h"

/* If node "n" can be computed now (a Constant; a Shape or Size of a
 * tensor whose shape is known; Gather, Concat, Squeeze, Unsqueeze, Slice,
 * Cast, Identity and integer arithmetic on the constant INT64 vectors of
 * shape computations; ConstantOfShape of a constant shape; Range of
 * constant scalars), make its outputs constants and return 1; return 0
 * if it must be computed by ein, -1 after an error naming the node. */
int ein_onnx_fold(struct ein_onnx_lower *l, const struct ein_onnx_node *n);

#endif
