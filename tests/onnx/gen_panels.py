"""Models for tests/onnx_panels.test: MatMuls by constant weights, which
src/onnx/panels.c lays out in panels of 64 columns at import.

Usage: python3 gen_panels.py DIR

Writes DIR/NAME.onnx, DIR/NAME.in.x.npy, DIR/NAME.ref.y.npy (numpy's
product, in float64, of the same data) and DIR/models.txt, one line per
model: "NAME PANELS", PANELS the number of weights laid out in panels
that "ein import" must show (the others keep their ONNX layout).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

d = sys.argv[1]
rng = np.random.default_rng(24)
listing = []


def rand(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def save(name, x, nodes, weights, ref, panels):
    inits = [numpy_helper.from_array(v, k) for k, v in weights.items()]
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(ref.shape))],
        inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, name + ".onnx"))
    np.save(os.path.join(d, name + ".in.x.npy"), x)
    np.save(os.path.join(d, name + ".ref.y.npy"), ref)
    x.tofile(os.path.join(d, name + ".in.x.bin"))
    listing.append("%s %d" % (name, panels))


def f64(a):
    return a.astype(np.float64)


def product(name, xshape, k, n, panels, bias=True):
    """y = x @ w (+ b): one MatMul by a (k, n) weight."""
    x, w, b = rand(*xshape), rand(k, n), rand(n)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m" if bias else "y"])]
    weights = {"w": w}
    ref = f64(x) @ f64(w)
    if bias:
        nodes.append(helper.make_node("Add", ["m", "b"], ["y"]))
        weights["b"] = b
        ref = ref + f64(b)
    save(name, x, nodes, weights, ref, panels)


# A BERT-base projection at sequence 128: twelve panels of 768 x 64.
product("bert_proj", (1, 128, 768), 768, 768, 1)
# Odd sizes: 7 rows (a partial tile of 6), a reduction of 13, 3 panels.
product("odd", (7, 13), 13, 192, 1)
# A batch of matrices (2 x 5 rows) and a vector (a rank-1 A).
product("batched", (2, 5, 33), 33, 128, 1)
product("vector", (40,), 40, 128, 1, bias=False)
# Widths that are not several whole panels keep their layout (and pack).
product("fallback", (9, 31), 31, 100, 0)
product("one_panel", (9, 31), 31, 64, 0)

# One weight read by two MatMuls: laid out once.
x, w = rand(3, 50), rand(50, 256)
save("shared", x, [
    helper.make_node("MatMul", ["x", "w"], ["a"]),
    helper.make_node("Relu", ["x"], ["r"]),
    helper.make_node("MatMul", ["r", "w"], ["c"]),
    helper.make_node("Add", ["a", "c"], ["y"])], {"w": w},
    f64(x) @ f64(w) + np.maximum(f64(x), 0) @ f64(w), 1)

with open(os.path.join(d, "models.txt"), "w") as f:
    f.write("\n".join(listing) + "\n")
