/*
 * ops.h: ONNX operators written as ein statements (private to src/onnx/).
 *
 * Each operator is one row of the table in ops.c: its op type and the
 * function that infers the shapes of its outputs and writes it as ein
 * source, statement by statement, into the definition that lower.c builds.
 * The statements index every tensor with i0, i1, ... for the dimensions of
 * what they write and r0, r1, ... for reductions, and bound each written
 * index with "where" so that the inferred shape of a temporary is exactly
 * ONNX's.
 */
#ifndef EIN_ONNX_OPS_H
#define EIN_ONNX_OPS_H

#include <stdio.h>
#include "onnx/graph.h"

/* The room for one index expression of an access ("(i3 * 64 + i4) / 8
 * % 4"); a longer one is an error, never cut. */
#define EIN_ONNX_IDX 160

/* The state of one lowering.
 * ctx, path: for messages; g: the graph;
 * out: the statements written so far (a memory stream);
 * size_id: the ein name of each size of g;
 * n_aux: the number of auxiliary temporaries named so far;
 * expose: write every intermediate tensor as an output of the definition
 *	(for ein profile), not as a temporary;
 * quant: the quantisation plan (quantize.h) that chooses, node by node,
 *	int8 or float statements; NULL for the float model. */
struct ein_onnx_quant;
struct ein_onnx_lower {
	ein_ctx *ctx;
	const char *path;
	struct ein_onnx_graph *g;
	FILE *out;
	char **size_id;
	int n_aux;
	int expose;
	struct ein_onnx_quant *quant;
};

/* An operator: its ONNX op type and its lowering, which returns -1 after
 * an error naming the node. */
struct ein_onnx_op {
	const char *name;
	int (*lower)(struct ein_onnx_lower *l, const struct ein_onnx_node *n);
};

/* The row of op type "name", NULL if the importer has none. */
const struct ein_onnx_op *ein_onnx_op_find(const char *name);

/* Report that node "n" cannot be imported: "PATH: node 'NAME' (OP):
 * MESSAGE".  Returns -1. */
int ein_onnx_node_error(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Input "i" of "n" as a tensor, NULL if it is omitted; an error if it is
 * required ("what" names it in the message). */
struct ein_onnx_tensor *ein_onnx_in(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, int i, const char *what);
/* Output "i" of "n", NULL if there is none. */
struct ein_onnx_tensor *ein_onnx_out(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, int i);
/* Check that "t" is a float tensor (float32 or float64) for "n". */
int ein_onnx_need_float(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *t);
/* Check that "t" is a tensor ein computes with (not INT64) for "n". */
int ein_onnx_need_ein_type(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t);
/* Give output "o" the type "dtype" and shape dim[0 .. rank-1]. */
void ein_onnx_set_shape(struct ein_onnx_tensor *o, enum ein_onnx_dtype dtype,
	int rank, const struct ein_onnx_dim *dim);
/* Require every dimension of "t" to be constant; else an error for "n"
 * naming the symbolic dimension and "what" needs it. */
int ein_onnx_need_const_shape(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t,
	const char *what);
/* The integer values of constant tensor "t" (INT64 or INT32) into
 * v[0 .. *n-1] (at most max); -1 after an error for "n" if "t" is not a
 * constant ("what" names it) or holds a symbolic value. */
int ein_onnx_const_ints(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t,
	const char *what, int64_t *v, int *count, int max);
/* The value of the scalar float constant "t" in *v. */
int ein_onnx_const_float(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *t,
	const char *what, double *v);
/* The ints attribute "name" of "n" into v[0 .. *count-1] (at most max);
 * *count = 0 if absent. */
int ein_onnx_attr_ints(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const char *name, int64_t *v, int *count, int max);
/* Normalise axis "a" of a tensor of rank "rank" (negative counts from
 * the end); -1 after an error if it is out of range. */
int ein_onnx_axis(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	int64_t a, int rank);

/* Printing statements.  Dimension "d" as ein text (an integer or a size
 * name). */
void ein_onnx_print_dim(struct ein_onnx_lower *l, struct ein_onnx_dim d);
/* "T(i0, ..., i{rank-1}) OP " for the tensor written, which the
 * statement now writes (it gets its name). */
void ein_onnx_print_lhs(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *t, const char *op);
/* "NAME(e0, ..., e{rank-1})" for a tensor read with index texts "idx";
 * the tensor is marked used. */
void ein_onnx_print_access(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *t, char idx[][EIN_ONNX_IDX]);
/* "T(i...)" for a tensor read with the indices of a tensor of rank
 * "rank" and shape "dim" that it broadcasts to (numpy's rules: aligned
 * from the last dimension, 1 stretched). */
void ein_onnx_print_bcast(struct ein_onnx_lower *l, struct ein_onnx_tensor *t,
	int rank, const struct ein_onnx_dim *dim);
/* " where i0 in 0:D0, ..." for the written tensor "t" (nothing for
 * rank 0), then a newline unless "more" (then the caller adds ranges
 * after a comma and ends the line). */
void ein_onnx_print_where(struct ein_onnx_lower *l,
	const struct ein_onnx_tensor *t, int more);
/* A float literal that ein reads as one. */
void ein_onnx_print_float(struct ein_onnx_lower *l, double v);
/* A fresh name for an auxiliary temporary of output "o" with suffix
 * "what", into buf; the caller writes it as a tensor of its own. */
void ein_onnx_aux_name(struct ein_onnx_lower *l, const struct ein_onnx_tensor *o,
	const char *what, char *buf, size_t size);

/* The numpy broadcast of the shapes of a and b into dim; -1 after an
 * error for "n" if they do not broadcast. */
int ein_onnx_broadcast(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *a, const struct ein_onnx_tensor *b,
	int *rank, struct ein_onnx_dim *dim);

/* The operators of each file, for the table in ops.c. */
int ein_onnx_lower_conv(struct ein_onnx_lower *l, const struct ein_onnx_node *n);
/* The int32 accumulation of a quantised Conv "n" (quantize.c,
 * ops_quant.c): y's shape set from x and the weights wt (float views
 * of them, for the checks Conv makes), then "ACC(...) +=! guard ?
 * (XQ(...) - ZX) * (WQ(...) - ZW) : 0" (zw NULL: no "- ZW"), the padding
 * reading nothing (the input's zero point, which subtracts to zero). */
int ein_onnx_print_qconv_acc(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *wt, struct ein_onnx_tensor *xq, const char *zx,
	struct ein_onnx_tensor *wq, const char *zw,
	struct ein_onnx_tensor *y, const char *acc);
/* The same accumulation as four-term dot products of uint8 by int8,
 * the form VNNI's vpdpbusd computes (quantize.c chooses it for a Conv of
 * one group): first "PAD(...) = ..." copies the uint8 input "xq" to
 * [N, C/4, span..., 4] (span: the extent the window reads, padding
 * included) with its zero point "zx" in the padding and in the channels
 * past C, then "ACC(...) +=! PAD(i0, r0, pos..., 0) * WV(r0, r..., i1, 0)
 * + ... (four terms)" with the weights "wv" in VNNI's layout [C/4, k...,
 * M, 4], no guard and no subtraction: the padding then adds Z_x W, which
 * the caller's bias takes away (ZX sum W). */
int ein_onnx_print_qconv_dot4(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *wt, struct ein_onnx_tensor *xq, int zx,
	struct ein_onnx_tensor *wv, struct ein_onnx_tensor *y, const char *pad,
	const char *acc);
int ein_onnx_lower_convtranspose(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_maxpool(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_avgpool(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_global_pool(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
/* The reduction of a quantised pool (MaxPool, AveragePool and their
 * Global forms) on the uint8 view "xq" (zero point zx) of x into "acc",
 * y's shape set; *count: the divisor of an average.  1 (nothing
 * written) where int8 does not compute it exactly (quantize.c then keeps
 * the node in float). */
int ein_onnx_print_qpool_acc(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *xq, int zx, struct ein_onnx_tensor *y,
	const char *acc, int64_t *count);
int ein_onnx_lower_batchnorm(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_gemm(struct ein_onnx_lower *l, const struct ein_onnx_node *n);
int ein_onnx_lower_matmul(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_softmax(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_reduce(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_reshape(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_flatten(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_squeeze(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_transpose(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_concat(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_identity(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_slice(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_split(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_gather(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_pad(struct ein_onnx_lower *l, const struct ein_onnx_node *n);
int ein_onnx_lower_resize(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_layernorm(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
/* ops_quant.c: the quantised operators. */
int ein_onnx_lower_quantize_linear(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_dequantize_linear(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_matmul_integer(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_qlinear_matmul(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_conv_integer(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);
int ein_onnx_lower_qlinear_conv(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n);

#endif
