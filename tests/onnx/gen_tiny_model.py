#!/usr/bin/python3
"""Write a tiny model for tests/onnx_tune.test and tests/onnx_progress.test.

Usage: gen_tiny_model.py DIR

DIR/tiny.onnx is a dense layer and a softmax with a symbolic batch N
(MatMul, Add, Relu, Softmax: two fused kernels); DIR/tiny.in.x.npy an input
at N=4 and DIR/tiny.ref.y.npy the output numpy computes for it.  Fixed
seed: the files are the same on every run.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(24)
w = rng.uniform(-1, 1, (16, 8)).astype(np.float32)
b = rng.uniform(-1, 1, (8,)).astype(np.float32)
x = rng.uniform(-1, 1, (4, 16)).astype(np.float32)
nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
         helper.make_node("Add", ["m", "b"], ["a"], name="add"),
         helper.make_node("Relu", ["a"], ["r"], name="relu"),
         helper.make_node("Softmax", ["r"], ["y"], name="sm", axis=1)]
graph = helper.make_graph(
    nodes, "tiny",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])],
    initializer=[numpy_helper.from_array(w, "w"),
                 numpy_helper.from_array(b, "b")])
model = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "tiny.onnx"))
r = np.maximum(x.astype(np.float64) @ w + b, 0)
e = np.exp(r - r.max(axis=1, keepdims=True))
np.save(os.path.join(out, "tiny.in.x.npy"), x)
np.save(os.path.join(out, "tiny.ref.y.npy"),
        (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
