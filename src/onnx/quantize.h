/*
 * quantize.h: an ONNX graph written as an int8 definition, from a
 * profile of its tensors' values (docs/quantization.md).
 *
 * ein_onnx_quant_plan reads the profile (ein profile's JSON), chooses a
 * scale and zero point for every activation it has a range for (uint8,
 * affine) and, for each Conv, Gemm and MatMul with constant weights
 * whose input and output have them, quantises the weights ahead of time
 * (int8, symmetric, one scale per output channel) with the int32 bias and
 * the requantisation multipliers and shifts: new constant tensors of the
 * graph.  lower.c then calls ein_onnx_quant_lower_node for each node
 * instead of its operator, and ein_onnx_quant_finish before the outputs.
 */
#ifndef EIN_ONNX_QUANTIZE_H
#define EIN_ONNX_QUANTIZE_H

#include "onnx/graph.h"
#include "onnx/ops.h"

struct ein_onnx_quant;

/* The plan for graph "g" (of model "path") from the profile file
 * "profile" with "calibration", activations of "bits" bits (8: 0..255;
 * 7: 0..127); NULL after an error (EIN_ERROR_IO: the profile cannot be
 * read; EIN_ERROR_INVALID: a bad entry, bits not 7 or 8). */
struct ein_onnx_quant *ein_onnx_quant_plan(ein_ctx *ctx, const char *path,
	struct ein_onnx_graph *g, const char *profile,
	ein_calibration calibration, int bits);
void ein_onnx_quant_free(struct ein_onnx_quant *q);

/* Write node "n" (whose operator is "op") as the plan says: int8
 * statements, nothing (a Relu fused into the node before it), or the
 * operator's float statements after dequantising the inputs it reads. */
int ein_onnx_quant_lower_node(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_op *op);
/* Quantisation as ONNX's QuantizeLinear defines it: "out" (whose id, type
 * and shape the statements write, indices i0, ...) = saturate(round(x /
 * s) + zp) to lo..hi (with "mul", round(x * s)), rounding the exact
 * quotient (product) to nearest, ties to even, with x, s and zp the
 * texts of expressions in those indices (x and s floats, s positive and
 * a value, not a computation; zp an integer).  The quotient is computed
 * into a temporary v (by a division, which a vector loop may compute by
 * the reciprocal, within an ulp); with f = floor(v), the exact sign of
 * x - (f + 0.5) s (x s - (f + 0.5)), from fma (one rounding, which keeps
 * the sign), decides between f and f + 1, so that the compiled code
 * (float32) and the reference interpreter (double) agree exactly. */
int ein_onnx_print_quantize(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *out, const char *x, const char *s,
	int mul, const char *zp, int lo, int hi);
/* Float32 "v" as a literal whose decimal value is exactly v (the
 * reference interpreter reads literals in double), into buf. */
void ein_onnx_exact_float(float v, char *buf, size_t size);
/* The name of the uint8 values of tensor "t" once the lowering wrote
 * them (or named them), else NULL; NULL for a NULL plan. */
const char *ein_onnx_quant_qid(const struct ein_onnx_quant *q, int t);
/* Dequantise the graph's outputs that only exist in int8. */
int ein_onnx_quant_finish(struct ein_onnx_lower *l);

#endif
