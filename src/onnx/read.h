/*
 * read.h: an ONNX model file into the importer's graph (graph.h).
 */
#ifndef EIN_ONNX_READ_H
#define EIN_ONNX_READ_H

#include "onnx/graph.h"

/* Decode the model in "path" with the parser protoc-c generated from
 * onnx.proto, and copy what the importer needs into a new graph: tensors
 * with their types and shapes (initializers with their data), nodes with
 * their attributes, the inputs and outputs.  Returns NULL after an
 * EIN_ERROR_IO error (unreadable file, not a model) or an
 * EIN_ERROR_UNSUPPORTED one (external data, an element type ein has no
 * use for, an input whose shape is unknown), each naming the file and
 * what it concerns. */
struct ein_onnx_graph *ein_onnx_read(ein_ctx *ctx, const char *path);

#endif
