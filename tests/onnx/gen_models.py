#!/usr/bin/python3
"""Write the ONNX models of tests/onnx.test, with inputs and expected outputs.

Usage: gen_models.py DIR

For each model NAME it writes DIR/NAME.onnx, its inputs as DIR/NAME.in.X.npy
and the outputs numpy computes as DIR/NAME.ref.Y.npy, and a line
"NAME SIZES X Y..." in DIR/models.txt (SIZES: "-" or N=2,... for the
symbolic dimensions; X: the inputs; Y: the outputs after a ':').  The bad
models of the error tests are DIR/bad_*.onnx.  onnx 1.12 has no reference
evaluator, so every expected output is computed here with numpy, from the
operators' definitions in the ONNX specification.  Weights and inputs come
from a fixed seed: the files are the same on every run.
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
RNG = np.random.default_rng(24)
LIST = []


def rand(*shape, rng=None):
    return (rng or RNG).uniform(-1, 1, size=shape).astype(np.float32)


def save(name, nodes, inputs, outputs, inits=(), sizes=None, opset=13,
         domains=()):
    """inputs: [(name, array, onnx shape or None)]; outputs: [(name, ref)].
    domains: other (domain, version) opsets; onnx 1.12's checker knows
    neither them nor opsets after 17, so such models go unchecked."""
    vin = []
    for iname, arr, shape in inputs:
        vin.append(helper.make_tensor_value_info(
            iname, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[arr.dtype],
            shape if shape else list(arr.shape)))
        np.save(os.path.join(OUT, "%s.in.%s.npy" % (name, iname)), arr)
    vout = [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(r.shape))
            for o, r in outputs]
    init = [numpy_helper.from_array(np.asarray(a), n) for n, a in inits]
    graph = helper.make_graph(nodes, name, vin, vout, initializer=init)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)] +
        [helper.make_opsetid(d, v) for d, v in domains])
    if not domains and opset <= 17:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    for o, ref in outputs:
        np.save(os.path.join(OUT, "%s.ref.%s.npy" % (name, o)),
                ref.astype(np.float32))
    LIST.append("%s %s %s : %s" % (name, sizes or "-",
                                   " ".join(i[0] for i in inputs),
                                   " ".join(o for o, _ in outputs)))


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=op.lower() + "_0", **attrs)


# ---- numpy references ------------------------------------------------------
def pad_nchw(x, pads, value):
    s = x.ndim - 2
    width = [(0, 0), (0, 0)] + [(pads[d], pads[s + d]) for d in range(s)]
    return np.pad(x, width, constant_values=value)


def conv(x, w, b, strides, pads, dil, group):
    x = pad_nchw(x, pads, 0).astype(np.float64)
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    oh = (h - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd - dil[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for o in range(m):
        g = o // mg
        for r in range(kh):
            for s in range(kw):
                patch = x[:, g * cg:(g + 1) * cg,
                          r * dil[0]:r * dil[0] + strides[0] * (oh - 1) + 1:
                          strides[0],
                          s * dil[1]:s * dil[1] + strides[1] * (ow - 1) + 1:
                          strides[1]]
                y[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, r, s])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def conv_transpose(x, w, b, strides, pads, dil, group, out_pad):
    """Each input element scattered into the output (the definition),
    then the padding cropped: independent of ein's gather form."""
    x = x.astype(np.float64)
    n, c, h, wd = x.shape
    _, mg, kh, kw = w.shape
    cg = c // group
    full = [strides[0] * (h - 1) + out_pad[0] + (kh - 1) * dil[0] + 1,
            strides[1] * (wd - 1) + out_pad[1] + (kw - 1) * dil[1] + 1]
    y = np.zeros((n, mg * group, full[0], full[1]))
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        for r in range(kh):
            for s in range(kw):
                y[:, g * mg:(g + 1) * mg,
                  r * dil[0]:r * dil[0] + strides[0] * (h - 1) + 1:
                  strides[0],
                  s * dil[1]:s * dil[1] + strides[1] * (wd - 1) + 1:
                  strides[1]] += np.einsum(
                      "nchw,cm->nmhw", xs, w[g * cg:(g + 1) * cg, :, r, s])
    y = y[:, :, pads[0]:full[0] - pads[2], pads[1]:full[1] - pads[3]]
    return y + b.reshape(1, -1, 1, 1) if b is not None else y


def resize_axis(x, axis, scale, out, mode, coord, rounding):
    """One axis of Resize, in float64 from the specification's formulas
    (positions outside the input read its edge)."""
    n = x.shape[axis]
    o = np.arange(out, dtype=np.float64)
    if coord == "align_corners":
        v = o * (n - 1) / (n * scale - 1) if n * scale != 1 else o * 0
    elif coord == "asymmetric":
        v = o / scale
    else:
        v = (o + 0.5) / scale - 0.5
    if mode == "nearest":
        i = {"round_prefer_floor": np.ceil(v - 0.5),
             "round_prefer_ceil": np.floor(v + 0.5),
             "floor": np.floor(v), "ceil": np.ceil(v)}[rounding]
        return np.take(x, np.clip(i, 0, n - 1).astype(int), axis=axis)
    f = np.floor(v)
    r = (v - f).reshape([-1 if d == axis else 1 for d in range(x.ndim)])
    x0 = np.take(x, np.clip(f, 0, n - 1).astype(int), axis=axis)
    x1 = np.take(x, np.clip(f + 1, 0, n - 1).astype(int), axis=axis)
    return x0 * (1 - r) + x1 * r


def resize(x, scales, out, mode, coord="half_pixel",
           rounding="round_prefer_floor"):
    y = x.astype(np.float64)
    for d in range(x.ndim):
        y = resize_axis(y, d, scales[d], out[d], mode, coord, rounding)
    return y


def pool(x, k, strides, pads, kind, include_pad=0):
    valid = pad_nchw(np.ones_like(x), pads, 0)
    xp = pad_nchw(x.astype(np.float64), pads,
                  -np.inf if kind == "max" else 0)
    n, c, h, w = xp.shape
    oh = (h - k[0]) // strides[0] + 1
    ow = (w - k[1]) // strides[1] + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * strides[0]:i * strides[0] + k[0],
                     j * strides[1]:j * strides[1] + k[1]]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = k[0] * k[1] if include_pad else valid[
                    :, :, i * strides[0]:i * strides[0] + k[0],
                    j * strides[1]:j * strides[1] + k[1]].sum(axis=(2, 3))
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def batchnorm(x, scale, bias, mean, var, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return ((x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) *
            scale.reshape(shape) + bias.reshape(shape))


# ---- elementwise -----------------------------------------------------------
def elementwise():
    # The unary operators as the outputs of one model (one compile).
    x = rand(2, 3, 4) * 3
    xd = x.astype(np.float64)
    lo, hi = np.float32(-0.5), np.float32(1.5)
    nodes, outs = [node("Abs", ["x"], ["abs_out"])], [("abs_out", np.abs(xd))]
    for op, f in [("Relu", lambda v: np.maximum(v, 0)),
                  ("Sigmoid", lambda v: 1 / (1 + np.exp(-v))),
                  ("Tanh", np.tanh), ("Neg", np.negative),
                  ("Exp", np.exp), ("Erf", np.vectorize(math.erf))]:
        nodes.append(helper.make_node(op, ["x"], [op.lower() + "_out"],
                                      name=op.lower() + "_0"))
        outs.append((op.lower() + "_out", f(xd)))
    nodes += [helper.make_node("Sqrt", ["abs_out"], ["sqrt_out"],
                               name="sqrt_0"),
              helper.make_node("Log", ["abs_out"], ["log_out"], name="log_0"),
              helper.make_node("LeakyRelu", ["x"], ["leaky_relu_out"],
                               name="leaky_relu_0", alpha=0.1),
              helper.make_node("HardSwish", ["x"], ["hard_swish_out"],
                               name="hard_swish_0"),
              helper.make_node("HardSigmoid", ["x"], ["hard_sigmoid_out"],
                               name="hard_sigmoid_0", alpha=0.3, beta=0.4),
              helper.make_node("Clip", ["x", "lo", "hi"], ["clip_out"],
                               name="clip_0")]
    outs += [("sqrt_out", np.sqrt(np.abs(xd))),
             ("log_out", np.log(np.abs(xd))),
             ("leaky_relu_out", np.where(x >= 0, xd, 0.1 * xd)),
             ("hard_swish_out", xd * np.clip(xd / 6 + 0.5, 0, 1)),
             ("hard_sigmoid_out", np.clip(0.3 * xd + 0.4, 0, 1)),
             ("clip_out", np.clip(x, lo, hi))]
    save("unary", nodes, [("x", x, None)], outs,
         inits=[("lo", lo), ("hi", hi)], opset=14)
    # Broadcasting: a weight vector along the last axis, an input with
    # a dimension of 1, a scalar.
    a, b = rand(2, 3, 4), rand(4)
    save("add_bcast", [node("Add", ["a", "b"], ["y"])], [("a", a, None)],
         [("y", a + b)], inits=[("b", b)])
    c = rand(2, 1, 4)
    save("mul_bcast", [node("Mul", ["a", "c"], ["y"])],
         [("a", a, None), ("c", c, None)], [("y", a * c)])
    s = np.float32(0.75)
    save("sub_div", [node("Sub", ["a", "c"], ["t"]),
                     node("Div", ["t", "s"], ["y"])],
         [("a", a, None), ("c", c, None)], [("y", (a - c) / s)],
         inits=[("s", s)])

    # GELU: ONNX's operator (opset 20), exact and with tanh; Microsoft's
    # contrib Gelu and FastGelu (with a bias), as exporters wrote them
    # before; and the Erf pattern that PyTorch exports at lower opsets
    # (x * 0.5 * (1 + erf(x / sqrt 2))), operator by operator.
    g = rand(2, 3, 8) * 4
    gd = g.astype(np.float64)
    gb = rand(8)
    erf = np.vectorize(math.erf)

    def tanh_gelu(v):
        return 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                      (v + 0.044715 * v ** 3)))
    sqrt2 = np.float32(math.sqrt(2))
    save("gelu", [
        node("Gelu", ["x"], ["exact"]),
        helper.make_node("Gelu", ["x"], ["approx"], name="gelu_tanh",
                         approximate="tanh"),
        helper.make_node("Gelu", ["x"], ["ms"], name="gelu_ms",
                         domain="com.microsoft"),
        helper.make_node("FastGelu", ["x", "b"], ["fast"], name="fast_ms",
                         domain="com.microsoft"),
        helper.make_node("Div", ["x", "sqrt2"], ["e1"], name="div_e"),
        helper.make_node("Erf", ["e1"], ["e2"], name="erf_e"),
        helper.make_node("Add", ["e2", "one"], ["e3"], name="add_e"),
        helper.make_node("Mul", ["x", "e3"], ["e4"], name="mul_e"),
        helper.make_node("Mul", ["e4", "half"], ["pattern"], name="mul_h")],
        [("x", g, None)],
        [("exact", 0.5 * gd * (1 + erf(gd / math.sqrt(2)))),
         ("approx", tanh_gelu(gd)),
         ("ms", 0.5 * gd * (1 + erf(gd / math.sqrt(2)))),
         ("fast", tanh_gelu(gd + gb)),
         ("pattern", 0.5 * gd * (1 + erf(gd / math.sqrt(2))))],
        inits=[("b", gb), ("sqrt2", sqrt2), ("one", np.float32(1)),
               ("half", np.float32(0.5))],
        opset=20, domains=[("com.microsoft", 1)])


# ---- convolution, pooling, normalisation -----------------------------------
def convolutions():
    x = rand(2, 4, 9, 9)
    w, b = rand(6, 4, 3, 3), rand(6)
    save("conv_pad", [node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1])],
         [("x", x, None)], [("y", conv(x, w, b, [1, 1], [1, 1, 1, 1], [1, 1],
                                       1))], inits=[("w", w), ("b", b)])
    save("conv_stride_dilation",
         [node("Conv", ["x", "w"], ["y"], strides=[2, 2], dilations=[2, 1],
               pads=[2, 0, 1, 1])], [("x", x, None)],
         [("y", conv(x, w, None, [2, 2], [2, 0, 1, 1], [2, 1], 1))],
         inits=[("w", w)])
    wg = rand(6, 2, 3, 3)
    save("conv_group",
         [node("Conv", ["x", "w", "b"], ["y"], group=2, pads=[1, 1, 1, 1],
               strides=[2, 2])], [("x", x, None)],
         [("y", conv(x, wg, b, [2, 2], [1, 1, 1, 1], [1, 1], 2))],
         inits=[("w", wg), ("b", b)])
    # A strided 1 x 1 window (ResNet's downsampling shortcut): the
    # importer subsamples the input first; rows and columns at different
    # strides, each leaving the last input row or column unread.
    w1 = rand(6, 4, 1, 1)
    save("conv_1x1_stride",
         [node("Conv", ["x", "w", "b"], ["y"], strides=[2, 3])],
         [("x", x, None)],
         [("y", conv(x, w1, b, [2, 3], [0, 0, 0, 0], [1, 1], 1))],
         inits=[("w", w1), ("b", b)])
    wd = rand(4, 1, 3, 3)
    save("conv_depthwise",
         [node("Conv", ["x", "w"], ["y"], group=4, auto_pad="SAME_UPPER")],
         [("x", x, None)],
         [("y", conv(x, wd, None, [1, 1], [1, 1, 1, 1], [1, 1], 4))],
         inits=[("w", wd)])
    # ConvTranspose: 2 groups of 2 input and 3 output channels, strides,
    # asymmetric pads, output_padding and dilations all at once.
    wt, bt = rand(4, 3, 3, 2), rand(6)
    save("conv_transpose",
         [node("ConvTranspose", ["x", "w", "b"], ["y"], group=2,
               strides=[2, 3], pads=[1, 0, 0, 2], output_padding=[1, 2],
               dilations=[1, 2])], [("x", x, None)],
         [("y", conv_transpose(x, wt, bt, [2, 3], [1, 0, 0, 2], [1, 2], 2,
                               [1, 2]))], inits=[("w", wt), ("b", bt)])
    save("conv_transpose_same",
         [node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2],
               auto_pad="SAME_UPPER")], [("x", x, ["N", 4, 9, 9])],
         [("y", conv_transpose(x, wd.reshape(4, 1, 3, 3), None, [2, 2],
                               [0, 0, 1, 1], [1, 1], 1, [0, 0]))],
         inits=[("w", wd.reshape(4, 1, 3, 3))], sizes="N=2")
    # Resize: nearest with scales (up by 2 and 1.5, the default
    # half_pixel and round_prefer_floor), linear with sizes (up along H,
    # down along W), linear with align_corners, nearest with asymmetric
    # and floor (Upsample's), each against numpy's float64 formulas.
    empty = np.zeros(0, np.float32)
    sc = np.array([1, 1, 2, 1.5], np.float32)
    save("resize_nearest",
         [node("Resize", ["x", "", "sc"], ["y"], mode="nearest")],
         [("x", x, ["N", 4, 9, 9])],
         [("y", resize(x, sc, [2, 4, 18, 13], "nearest"))],
         inits=[("sc", sc)], sizes="N=2")
    sz = np.array([2, 4, 13, 5], np.int64)
    save("resize_linear",
         [node("Resize", ["x", "roi", "sc", "sz"], ["y"], mode="linear")],
         [("x", x, None)],
         [("y", resize(x, sz / np.array(x.shape), sz, "linear"))],
         inits=[("roi", empty), ("sc", empty), ("sz", sz)])
    sc2 = np.array([1, 1, 0.75, 1.75], np.float32)
    save("resize_linear_align_corners",
         [node("Resize", ["x", "", "sc"], ["y"], mode="linear",
               coordinate_transformation_mode="align_corners")],
         [("x", x, None)],
         [("y", resize(x, sc2.astype(np.float64), [2, 4, 6, 15], "linear",
                       "align_corners"))], inits=[("sc", sc2)])
    save("resize_nearest_floor",
         [node("Resize", ["x", "", "sc"], ["y"], mode="nearest",
               coordinate_transformation_mode="asymmetric",
               nearest_mode="floor")],
         [("x", x, None)],
         [("y", resize(x, sc2.astype(np.float64), [2, 4, 6, 15], "nearest",
                       "asymmetric", "floor"))], inits=[("sc", sc2)])
    scale, bias = rand(4) + 2, rand(4)
    mean, var = rand(4), rand(4) + 1.5
    save("batchnorm",
         [node("BatchNormalization", ["x", "s", "bi", "m", "v"], ["y"],
               epsilon=1e-3)], [("x", x, None)],
         [("y", batchnorm(x, scale, bias, mean, var, 1e-3))],
         inits=[("s", scale), ("bi", bias), ("m", mean), ("v", var)])
    save("maxpool", [node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3],
                          strides=[2, 2], pads=[1, 1, 1, 1])],
         [("x", x, None)],
         [("y", pool(x, [3, 3], [2, 2], [1, 1, 1, 1], "max"))])
    save("avgpool", [node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                          strides=[2, 2], pads=[1, 1, 1, 1])],
         [("x", x, None)],
         [("y", pool(x, [3, 3], [2, 2], [1, 1, 1, 1], "avg"))])
    save("avgpool_include_pad",
         [node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
               pads=[1, 0, 0, 1], count_include_pad=1)], [("x", x, None)],
         [("y", pool(x, [2, 2], [1, 1], [1, 0, 0, 1], "avg", 1))])
    save("global_avgpool", [node("GlobalAveragePool", ["x"], ["y"])],
         [("x", x, None)], [("y", x.mean(axis=(2, 3), keepdims=True))])


# ---- matrices, shapes, softmax ---------------------------------------------
def matrices():
    a, b, c = rand(5, 7), rand(3, 7), rand(3)
    save("gemm", [node("Gemm", ["a", "b", "c"], ["y"], transB=1, alpha=0.5,
                       beta=2.0)], [("a", a, None)],
         [("y", 0.5 * a @ b.T + 2 * c)], inits=[("b", b), ("c", c)])
    m1, m2 = rand(2, 3, 4, 5), rand(5, 6)
    save("matmul_batched", [node("MatMul", ["a", "b"], ["y"])],
         [("a", m1, None), ("b", m2, None)], [("y", m1 @ m2)])
    x = rand(2, 3, 4, 5)
    save("flatten", [node("Flatten", ["x"], ["y"], axis=2)],
         [("x", x, None)], [("y", x.reshape(6, 20))])
    shape = np.array([0, -1, 10], dtype=np.int64)
    save("reshape", [node("Reshape", ["x", "s"], ["y"])], [("x", x, None)],
         [("y", x.reshape(2, 6, 10))], inits=[("s", shape)])
    save("transpose", [node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1])],
         [("x", x, None)], [("y", x.transpose(0, 2, 3, 1))])
    # An attention head split: the transpose joins the product's kernel
    # (the graph level's fusion; tests/onnx.test checks the profile).
    # Its data come from a generator of its own: drawing from RNG would
    # change every later model's weights (tests/quant.test's CNN, whose
    # top-1 agreement is measured on them).
    own = np.random.default_rng(2024)
    q, wq, bq = rand(2, 8, 16, rng=own), rand(16, 32, rng=own), rand(32, rng=own)
    shape = np.array([2, 8, 4, 8], dtype=np.int64)
    save("matmul_transpose",
         [node("MatMul", ["q", "wq"], ["m"]), node("Add", ["m", "bq"], ["a"]),
          node("Reshape", ["a", "s"], ["r"]),
          node("Transpose", ["r"], ["y"], perm=[0, 2, 1, 3])],
         [("q", q, None)],
         [("y", (q @ wq + bq).reshape(2, 8, 4, 8).transpose(0, 2, 1, 3))],
         inits=[("wq", wq), ("bq", bq), ("s", shape)])
    x2 = rand(2, 2, 4, 5)
    save("concat", [node("Concat", ["x", "x2"], ["y"], axis=1)],
         [("x", x, None), ("x2", x2, None)],
         [("y", np.concatenate([x, x2], axis=1))])
    save("softmax", [node("Softmax", ["x"], ["y"])], [("x", x * 4, None)],
         [("y", softmax(x.astype(np.float64) * 4, -1))])
    save("softmax_axis1", [node("Softmax", ["x"], ["y"], axis=1)],
         [("x", x, None)], [("y", softmax(x.astype(np.float64), 1))])
    save("identity_dropout", [node("Identity", ["x"], ["t"]),
                              node("Dropout", ["t"], ["y"])],
         [("x", x, None)], [("y", x)])
    starts, ends = np.array([1, -1], np.int64), np.array([3, -5], np.int64)
    axes, steps = np.array([1, 3], np.int64), np.array([1, -2], np.int64)
    save("slice", [node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
         [("x", x, None)], [("y", x[:, 1:3, :, -1:-5:-2])],
         inits=[("st", starts), ("en", ends), ("ax", axes), ("sp", steps)])
    save("split", [node("Split", ["x", "parts"], ["y1", "y2"], axis=3)],
         [("x", x, None)], [("y1", x[..., :2]), ("y2", x[..., 2:])],
         inits=[("parts", np.array([2, 3], np.int64))])
    save("gather", [node("Gather", ["x", "ix"], ["y"], axis=2)],
         [("x", x, None)], [("y", x[:, :, [3, 1]])],
         inits=[("ix", np.array([3, 1], np.int64))])
    # Gather with indices read at run time: an embedding (a table of 11
    # rows, token ids of shape 2x5, negative ones counting from the
    # end), and a gather along axis 1 of an input.
    table = rand(11, 6)
    ids = RNG.integers(-11, 11, size=(2, 5)).astype(np.int32)
    save("gather_embedding", [node("Gather", ["table", "ids"], ["y"])],
         [("ids", ids, None)], [("y", table[ids])], inits=[("table", table)])
    cols = np.array([2, -1, 0, 2], np.int32)
    save("gather_runtime_axis1", [node("Gather", ["x", "cols"], ["y"],
                                       axis=1)],
         [("x", x, None), ("cols", cols, None)], [("y", x[:, cols])])
    save("pad", [node("Pad", ["x", "pads", "val"], ["y"])],
         [("x", x, None)],
         [("y", np.pad(x, [(0, 0), (1, 0), (0, 2), (1, 1)],
                       constant_values=0.5))],
         inits=[("pads", np.array([0, 1, 0, 1, 0, 0, 2, 1], np.int64)),
                ("val", np.float32(0.5))])
    g, b = rand(4, 5), rand(5)
    mu = x.mean(axis=(2, 3), keepdims=True)
    var = ((x - mu) ** 2).mean(axis=(2, 3), keepdims=True)
    save("layernorm", [node("LayerNormalization", ["x", "g", "b"],
                            ["y", "mean", "isd"], axis=2, epsilon=1e-3)],
         [("x", x, None)],
         [("y", (x - mu) / np.sqrt(var + 1e-3) * g + b), ("mean", mu),
          ("isd", 1 / np.sqrt(var + 1e-3))],
         inits=[("g", g), ("b", b)], opset=17)
    save("reduce_mean", [node("ReduceMean", ["x"], ["y"], axes=[1, 3],
                              keepdims=0)], [("x", x, None)],
         [("y", x.mean(axis=(1, 3)))])


# ---- a small CNN with a symbolic batch --------------------------------------
def cnn():
    """conv-bn-relu-maxpool, a flatten exported as PyTorch does (Shape,
    Gather, Unsqueeze, Concat, Reshape), gemm, softmax; batch N."""
    x = rand(2, 3, 12, 12)
    w, b = rand(8, 3, 3, 3) * 0.5, rand(8) * 0.1
    scale, bias = rand(8) + 2, rand(8)
    mean, var = rand(8), rand(8) + 1.5
    fw, fb = rand(10, 8 * 6 * 6) * 0.2, rand(10)
    nodes = [
        node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c", "s", "bi", "m", "v"], ["n"]),
        node("Relu", ["n"], ["r"]),
        node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Shape", ["p"], ["shp"], name="shape_0"),
        helper.make_node("Constant", [], ["zero"], name="const_0",
                         value=numpy_helper.from_array(
                             np.array(0, dtype=np.int64))),
        helper.make_node("Gather", ["shp", "zero"], ["batch"],
                         name="gather_0", axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"],
                         name="unsqueeze_0"),
        helper.make_node("Concat", ["batch1", "minus1"], ["newshape"],
                         name="concat_0", axis=0),
        node("Reshape", ["p", "newshape"], ["f"]),
        node("Gemm", ["f", "fw", "fb"], ["g"], transB=1),
        node("Softmax", ["g"], ["y"], axis=1),
    ]
    y = conv(x, w, b, [1, 1], [1, 1, 1, 1], [1, 1], 1)
    y = np.maximum(batchnorm(y, scale, bias, mean, var, 1e-5), 0)
    y = pool(y, [2, 2], [2, 2], [0, 0, 0, 0], "max")
    y = softmax(y.reshape(2, -1) @ fw.T + fb, 1)
    save("cnn", nodes, [("x", x, ["N", 3, 12, 12])], [("y", y)],
         inits=[("w", w), ("b", b), ("s", scale), ("bi", bias), ("m", mean),
                ("v", var), ("fw", fw), ("fb", fb),
                ("axes", np.array([0], dtype=np.int64)),
                ("minus1", np.array([-1], dtype=np.int64))], sizes="N=2")


def shape_folding():
    """The shape computations exporters write, all folded at import with
    the batch N symbolic through them: PyTorch's flatten (Shape, Gather,
    Unsqueeze, Concat with Neg(1) for -1, Reshape), a reshape back by an
    INT64 Range, the expanded LayerNormalization's reduced shape (Size of a
    Shape, Sub, ConstantOfShape of INT64 ones, Concat), Size of a weight,
    and data made by ConstantOfShape (FLOAT 1.5) and a FLOAT Range."""
    x = rand(2, 3, 4)
    def k(name, op, ins, **attrs):
        return helper.make_node(op, ins, [name], name=name + "_node", **attrs)
    def i64(*v):
        return np.array(v, dtype=np.int64)
    def scalar(v, dtype):
        return numpy_helper.from_array(np.array(v, dtype=dtype))
    nodes = [
        k("shp", "Shape", ["x"]),
        k("batch", "Gather", ["shp", "zero"], axis=0),
        k("batch1", "Unsqueeze", ["batch", "axes0"]),
        k("minus1", "Neg", ["one1"]),
        k("flat_shape", "Concat", ["batch1", "minus1"], axis=0),
        k("flat", "Reshape", ["x", "flat_shape"]),
        k("inner", "Range", ["three", "five", "step"]),
        k("back_shape", "Concat", ["batch1", "inner"], axis=0),
        k("back", "Reshape", ["flat", "back_shape"]),
        k("inner_shape", "Slice", ["shp", "one1", "three1"]),
        k("ones", "ConstantOfShape", ["inner_shape"],
          value=scalar([1.5], np.float32)),
        k("ramp", "Range", ["half", "four_half", "fstep"]),
        k("s", "Add", ["back", "ones"]),
        k("y", "Add", ["s", "ramp"]),
        k("rank", "Size", ["shp"]),
        k("n_reduced", "Sub", ["rank", "one1"]),
        k("suffix", "ConstantOfShape", ["n_reduced"],
          value=scalar([1], np.int64)),
        k("reduced_shape", "Concat", ["batch1", "suffix"], axis=0),
        k("mean", "ReduceMean", ["x"], axes=[1, 2], keepdims=0),
        k("z", "Reshape", ["mean", "reduced_shape"]),
        k("wsize", "Size", ["w"]),
        k("wsize1", "Unsqueeze", ["wsize", "axes0"]),
        k("w_shape", "Concat", ["batch1", "wsize1"], axis=0),
        k("v", "Reshape", ["x", "w_shape"]),
    ]
    y = x + np.float32(1.5) + np.arange(0.5, 4.5, 1.0, dtype=np.float32)
    save("shape_folding", nodes, [("x", x, ["N", 3, 4])],
         [("y", y), ("z", x.mean(axis=(1, 2)).reshape(2, 1, 1)),
          ("v", x.reshape(2, 12))],
         inits=[("zero", np.array(0, dtype=np.int64)), ("axes0", i64(0)),
                ("one1", i64(1)), ("three1", i64(3)),
                ("three", np.array(3, dtype=np.int64)),
                ("five", np.array(5, dtype=np.int64)),
                ("step", np.array(1, dtype=np.int64)),
                ("half", np.array(0.5, dtype=np.float32)),
                ("four_half", np.array(4.5, dtype=np.float32)),
                ("fstep", np.array(1.0, dtype=np.float32)),
                ("w", rand(3, 4))], sizes="N=2")


def bn_params(c):
    return rand(c) * 0.2 + 1, rand(c) * 0.1, rand(c) * 0.1, rand(c) * 0.2 + 1


def mobilenet_block():
    """An inverted residual block of MobileNetV2 (1x1 expand, BN, ReLU6 as
    Clip; 3x3 depthwise, BN, ReLU6; 1x1 project, BN; residual add), then
    global pooling, flatten, a dense layer and softmax."""
    x = rand(2, 8, 10, 10)
    w1, w2, w3 = rand(16, 8, 1, 1), rand(16, 1, 3, 3), rand(8, 16, 1, 1)
    p1, p2, p3 = bn_params(16), bn_params(16), bn_params(8)
    fw, fb = rand(5, 8), rand(5)
    nodes, inits = [], [("w1", w1), ("w2", w2), ("w3", w3), ("fw", fw),
                        ("fb", fb), ("zero", np.float32(0)),
                        ("six", np.float32(6))]
    for k, p in enumerate([p1, p2, p3]):
        inits += [("s%d" % k, p[0]), ("b%d" % k, p[1]), ("m%d" % k, p[2]),
                  ("v%d" % k, p[3])]

    def bn(k, i, o):
        return helper.make_node(
            "BatchNormalization", [i, "s%d" % k, "b%d" % k, "m%d" % k,
                                   "v%d" % k], [o], name="bn%d" % k)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="expand"),
        bn(0, "c1", "n1"),
        helper.make_node("Clip", ["n1", "zero", "six"], ["a1"], name="r1"),
        helper.make_node("Conv", ["a1", "w2"], ["c2"], name="depthwise",
                         group=16, pads=[1, 1, 1, 1]),
        bn(1, "c2", "n2"),
        helper.make_node("Clip", ["n2", "zero", "six"], ["a2"], name="r2"),
        helper.make_node("Conv", ["a2", "w3"], ["c3"], name="project"),
        bn(2, "c3", "n3"),
        helper.make_node("Add", ["n3", "x"], ["res"], name="residual"),
        helper.make_node("GlobalAveragePool", ["res"], ["gp"], name="pool"),
        helper.make_node("Flatten", ["gp"], ["fl"], name="flatten"),
        helper.make_node("Gemm", ["fl", "fw", "fb"], ["g"], name="fc",
                         transB=1),
        helper.make_node("Softmax", ["g"], ["y"], name="softmax"),
    ]
    one = [1, 1]
    h = np.clip(batchnorm(conv(x, w1, None, one, [0] * 4, one, 1), *p1,
                          1e-5), 0, 6)
    h = np.clip(batchnorm(conv(h, w2, None, one, [1] * 4, one, 16), *p2,
                          1e-5), 0, 6)
    h = batchnorm(conv(h, w3, None, one, [0] * 4, one, 1), *p3, 1e-5) + x
    y = softmax(h.mean(axis=(2, 3)) @ fw.T + fb, 1)
    save("mobilenet_block", nodes, [("x", x, ["N", 8, 10, 10])], [("y", y)],
         inits=inits, sizes="N=2")


def resnet_block():
    """A basic block of ResNet with a strided projection shortcut: 3x3
    stride-2 conv, BN, ReLU, 3x3 conv, BN, plus a 1x1 stride-2 conv and BN
    of the input, ReLU."""
    x = rand(1, 4, 9, 9)
    w1, w2, ws = rand(8, 4, 3, 3), rand(8, 8, 3, 3), rand(8, 4, 1, 1)
    p1, p2, ps = bn_params(8), bn_params(8), bn_params(8)
    inits = [("w1", w1), ("w2", w2), ("ws", ws)]
    for k, p in enumerate([p1, p2, ps]):
        inits += [("s%d" % k, p[0]), ("b%d" % k, p[1]), ("m%d" % k, p[2]),
                  ("v%d" % k, p[3])]

    def bn(k, i, o):
        return helper.make_node(
            "BatchNormalization", [i, "s%d" % k, "b%d" % k, "m%d" % k,
                                   "v%d" % k], [o], name="bn%d" % k)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1",
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        bn(0, "c1", "n1"),
        helper.make_node("Relu", ["n1"], ["a1"], name="relu1"),
        helper.make_node("Conv", ["a1", "w2"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1]),
        bn(1, "c2", "n2"),
        helper.make_node("Conv", ["x", "ws"], ["cs"], name="shortcut",
                         strides=[2, 2]),
        bn(2, "cs", "ns"),
        helper.make_node("Add", ["n2", "ns"], ["sum"], name="add"),
        helper.make_node("Relu", ["sum"], ["y"], name="relu2"),
    ]
    h = np.maximum(batchnorm(conv(x, w1, None, [2, 2], [1] * 4, [1, 1], 1),
                             *p1, 1e-5), 0)
    h = batchnorm(conv(h, w2, None, [1, 1], [1] * 4, [1, 1], 1), *p2, 1e-5)
    s = batchnorm(conv(x, ws, None, [2, 2], [0] * 4, [1, 1], 1), *ps, 1e-5)
    save("resnet_block", nodes, [("x", x, None)], [("y", np.maximum(h + s, 0))],
         inits=inits)


# ---- bad models: each must be a clear error ---------------------------------
def bad(name, nodes, inputs, inits=(), opset=13):
    vin = [helper.make_tensor_value_info(i, TensorProto.FLOAT, s)
           for i, s in inputs]
    vout = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    init = [numpy_helper.from_array(np.asarray(a), n) for n, a in inits]
    graph = helper.make_graph(nodes, name, vin, vout, initializer=init)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.save(model, os.path.join(OUT, "bad_%s.onnx" % name))


def bad_models():
    bad("unsupported_op", [helper.make_node("LpNormalization", ["x"], ["y"],
                                            name="norm_1")], [("x", [2, 3])])
    bad("training_bn", [helper.make_node(
        "BatchNormalization", ["x", "s", "s", "s", "s"], ["y"], name="bn_1",
        training_mode=1)], [("x", [2, 3])], inits=[("s", rand(3))],
        opset=15)
    bad("dynamic_shape", [helper.make_node("Relu", ["x"], ["y"],
                                           name="relu_1")], [("x", [2, None])])
    bad("missing_initializer",
        [helper.make_node("Add", ["x", "w"], ["y"], name="add_1")],
        [("x", [2, 3])])
    bad("cycle", [helper.make_node("Relu", ["t2"], ["t1"], name="relu_a"),
                  helper.make_node("Relu", ["t1"], ["t2"], name="relu_b"),
                  helper.make_node("Relu", ["t1"], ["y"], name="relu_c")],
        [("x", [2, 3])])
    bad("shape_mismatch",
        [helper.make_node("Add", ["x", "w"], ["y"], name="add_3")],
        [("x", [2, 3])], inits=[("w", rand(4))])
    bad("dynamic_reshape",
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape_1")],
        [("x", [2, 3]), ("s", [2])])
    # Shape computations that cannot be folded: a ConstantOfShape of a
    # symbolic shape, a Range whose limit is read at run time.
    bad("symbolic_constant_of_shape",
        [helper.make_node("Shape", ["x"], ["s"], name="shape_2"),
         helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos_1"),
         helper.make_node("Add", ["x", "c"], ["y"], name="add_4")],
        [("x", ["N", 3])])
    bad("runtime_range",
        [helper.make_node("Range", ["a", "b", "d"], ["r"], name="range_1"),
         helper.make_node("Add", ["x", "r"], ["y"], name="add_5")],
        [("x", [3]), ("b", [])],
        inits=[("a", np.float32(0)), ("d", np.float32(1))])
    # Folds whose sizes overflow 64 bits on the way: an error, never a
    # wrap (UBSan checks the arithmetic under make check-asan).
    bad("huge_range",
        [helper.make_node("Range", ["a", "b", "d"], ["r"], name="range_2"),
         helper.make_node("Add", ["x", "r"], ["y"], name="add_6")],
        [("x", [3])], inits=[("a", np.array(-2**63, dtype=np.int64)),
                             ("b", np.array(2**63 - 1, dtype=np.int64)),
                             ("d", np.array(-1, dtype=np.int64))])
    bad("huge_constant_of_shape",
        [helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos_2"),
         helper.make_node("Add", ["x", "c"], ["y"], name="add_7")],
        [("x", [3])],
        inits=[("s", np.array([2**62, 2**62, 3], dtype=np.int64))])
    # An initializer of shape (3, 4) with 5 floats of data.
    short = numpy_helper.from_array(rand(5), "w")
    del short.dims[:]
    short.dims.extend([3, 4])
    bad("short_weights",
        [helper.make_node("Add", ["x", "w"], ["y"], name="add_2")],
        [("x", [3, 4])], inits=[])
    model = onnx.load(os.path.join(OUT, "bad_short_weights.onnx"))
    model.graph.initializer.append(short)
    onnx.save(model, os.path.join(OUT, "bad_short_weights.onnx"))
    with open(os.path.join(OUT, "bad_not_a_model.onnx"), "wb") as f:
        f.write(b"\x08\x07\x12\xff\xff\xff\xff\x0fnot protobuf")


elementwise()
convolutions()
matrices()
cnn()
shape_folding()
mobilenet_block()
resnet_block()
bad_models()
with open(os.path.join(OUT, "models.txt"), "w") as f:
    f.write("\n".join(LIST) + "\n")
