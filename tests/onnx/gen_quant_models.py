#!/usr/bin/python3
"""Write the ONNX models of tests/onnx_qops.test: ONNX's quantised operators
(QuantizeLinear, DequantizeLinear, MatMulInteger, QLinearMatMul,
ConvInteger, QLinearConv), with inputs and the outputs numpy computes.

Usage: gen_quant_models.py DIR

For each model NAME: DIR/NAME.onnx, its inputs DIR/NAME.in.X.npy, the
expected outputs DIR/NAME.ref.Y.npy, and a line "NAME X... : Y..." in
DIR/models.txt.  The expected outputs follow the operators' definitions in
the ONNX specification, with the rounding of the exact quotient or product
to nearest, ties to even (computed in float64 or exact integers here).
The inputs hold exact ties and values beyond the output type's range.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
RNG = np.random.default_rng(25)
LIST = []
TYPES = {np.float32: TensorProto.FLOAT, np.uint8: TensorProto.UINT8,
         np.int8: TensorProto.INT8, np.int32: TensorProto.INT32}


def vinfo(name, arr):
    return helper.make_tensor_value_info(name, TYPES[arr.dtype.type],
                                         list(arr.shape))


def save(name, nodes, inputs, outputs, inits=()):
    """inputs, outputs: [(name, array)]; inits: [(name, array)]."""
    for iname, arr in inputs:
        np.save(os.path.join(OUT, "%s.in.%s.npy" % (name, iname)), arr)
    for oname, arr in outputs:
        np.save(os.path.join(OUT, "%s.ref.%s.npy" % (name, oname)), arr)
    graph = helper.make_graph(
        nodes, name, [vinfo(n, a) for n, a in inputs],
        [vinfo(n, a) for n, a in outputs],
        initializer=[numpy_helper.from_array(np.asarray(a), n)
                     for n, a in inits])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    LIST.append("%s %s : %s" % (name, " ".join(n for n, _ in inputs),
                                " ".join(n for n, _ in outputs)))


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=op.lower() + "_0", **attrs)


def saturate(v, dtype):
    info = np.iinfo(dtype)
    return np.clip(v, info.min, info.max).astype(dtype)


def quantize(v, zp, dtype):
    """round(v) to nearest, ties to even (v exact or float64), + zp."""
    return saturate(np.rint(v) + zp.astype(np.int64), dtype)


def conv(x, w, pads, strides):
    """The int64 convolution of integer NCHW x by MCKK w."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    oh, ow = (h - kh) // strides[0] + 1, (wd - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), dtype=np.int64)
    for r in range(kh):
        for s in range(kw):
            patch = x[:, :, r:r + strides[0] * oh:strides[0],
                      s:s + strides[1] * ow:strides[1]]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, r, s])
    return y


def quantize_linear():
    # Per tensor, uint8: scale 0.5, so that x = (k + 0.5) * 0.5 / ... gives
    # exact ties of x / s; some beyond 0..255.
    x = (RNG.integers(-300, 300, size=(2, 3, 4, 5)) * 0.25).astype(np.float32)
    s, z = np.float32(0.5), np.uint8(128)
    y = quantize(x.astype(np.float64) / s, np.array(z), np.uint8)
    save("quantize_linear", [node("QuantizeLinear", ["x", "s", "z"], ["y"])],
         [("x", x)], [("y", y)], inits=[("s", s), ("z", z)])
    # Per axis (1), int8, a scale that is not a power of two.
    s = np.array([0.25, 0.1, 0.125], dtype=np.float32)
    z = np.array([-3, 0, 5], dtype=np.int8)
    v = x.astype(np.float64) / s.astype(np.float64)[None, :, None, None]
    y = quantize(v, z[None, :, None, None], np.int8)
    save("quantize_linear_axis",
         [node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1)],
         [("x", x)], [("y", y)], inits=[("s", s), ("z", z)])
    # No zero point: uint8; the scale an input of the graph.
    s = np.array(0.75, dtype=np.float32)
    y = quantize(x.astype(np.float64) / np.float64(s), np.array(0), np.uint8)
    save("quantize_linear_noz", [node("QuantizeLinear", ["x", "s"], ["y"])],
         [("x", x), ("s", s)], [("y", y)])


def dequantize_linear():
    x = RNG.integers(0, 256, size=(3, 4, 2)).astype(np.uint8)
    s, z = np.float32(0.037), np.uint8(131)
    y = ((x.astype(np.int32) - np.int32(z)).astype(np.float32) * s)
    save("dequantize_linear",
         [node("DequantizeLinear", ["x", "s", "z"], ["y"])],
         [("x", x)], [("y", y)], inits=[("s", s), ("z", z)])
    x = RNG.integers(-128, 128, size=(3, 4, 2)).astype(np.int8)
    s = np.array([0.5, 0.01, 3.0, 0.3], dtype=np.float32)
    z = np.array([-128, 0, 127, -5], dtype=np.int8)
    y = ((x.astype(np.int32) - z.astype(np.int32)[None, :, None])
         .astype(np.float32) * s[None, :, None])
    save("dequantize_linear_axis",
         [node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=1)],
         [("x", x)], [("y", y)], inits=[("s", s), ("z", z)])
    x = RNG.integers(-100000, 100000, size=(5,)).astype(np.int32)
    s = np.float32(0.001)
    y = x.astype(np.float32) * s
    save("dequantize_linear_int32",
         [node("DequantizeLinear", ["x", "s"], ["y"])],
         [("x", x)], [("y", y)], inits=[("s", s)])


def matrices():
    a = RNG.integers(0, 256, size=(2, 4, 6)).astype(np.uint8)
    b = RNG.integers(-128, 128, size=(6, 5)).astype(np.int8)
    za = np.uint8(3)
    zb = np.array([-2, 0, 1, 127, -128], dtype=np.int8)
    y = ((a.astype(np.int64) - 3) @ (b.astype(np.int64) - zb.astype(np.int64))
         ).astype(np.int32)
    save("matmul_integer",
         [node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])],
         [("a", a), ("b", b)], [("y", y)], inits=[("za", za), ("zb", zb)])
    # QLinearMatMul: uint8 x int8 -> uint8, scales constants.
    a = RNG.integers(0, 256, size=(5, 8)).astype(np.uint8)
    b = RNG.integers(-128, 128, size=(8, 3)).astype(np.int8)
    sa, sb, sy = np.float32(0.02), np.float32(0.01), np.float32(0.037)
    za, zb, zy = np.uint8(128), np.int8(0), np.uint8(10)
    acc = (a.astype(np.int64) - 128) @ b.astype(np.int64)
    m = np.float32(np.float32(sa * sb) / sy)
    y = quantize(acc.astype(np.float64) * np.float64(m), np.array(zy),
                 np.uint8)
    save("qlinear_matmul",
         [node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy",
                                 "zy"], ["y"])],
         [("a", a), ("b", b)], [("y", y)],
         inits=[("sa", sa), ("za", za), ("sb", sb), ("zb", zb), ("sy", sy),
                ("zy", zy)])


def convolutions():
    x = RNG.integers(0, 256, size=(2, 3, 7, 6)).astype(np.uint8)
    w = RNG.integers(0, 256, size=(4, 3, 3, 3)).astype(np.uint8)
    zx, zw = np.uint8(7), np.uint8(120)
    y = conv(x.astype(np.int64) - 7, w.astype(np.int64) - 120,
             [1, 1, 1, 1], [1, 1])
    # The padding is the zero point (ONNX pads x - zx with zeros).
    save("conv_integer",
         [node("ConvInteger", ["x", "w", "zx", "zw"], ["y"],
               pads=[1, 1, 1, 1])],
         [("x", x)], [("y", y.astype(np.int32))],
         inits=[("w", w), ("zx", zx), ("zw", zw)])
    w = RNG.integers(-128, 128, size=(4, 3, 3, 3)).astype(np.int8)
    b = RNG.integers(-5000, 5000, size=(4,)).astype(np.int32)
    sx, sw, sy = np.float32(0.05), np.float32(0.004), np.float32(0.09)
    zx, zw, zy = np.uint8(100), np.int8(0), np.int8(-20)
    acc = conv(x.astype(np.int64) - 100, w.astype(np.int64), [0, 1, 0, 1],
               [2, 1]) + b[None, :, None, None]
    m = np.float32(np.float32(sx * sw) / sy)
    y = quantize(acc.astype(np.float64) * np.float64(m), np.array(zy), np.int8)
    save("qlinear_conv",
         [node("QLinearConv", ["x", "sx", "zx", "w", "sw", "zw", "sy", "zy",
                               "b"], ["y"], pads=[0, 1, 0, 1],
               strides=[2, 1])],
         [("x", x)], [("y", y)],
         inits=[("sx", sx), ("zx", zx), ("w", w), ("sw", sw), ("zw", zw),
                ("sy", sy), ("zy", zy), ("b", b)])


def ffn():
    """For tests/quant.test (not in models.txt): a transformer layer's
    feed-forward block in float, batch N of 4 tokens of 16: MatMul 16 -> 32,
    bias, Relu, MatMul 32 -> 16, bias, the residual Add, LayerNormalization.
    """
    w1, b1 = RNG.uniform(-0.5, 0.5, (16, 32)), RNG.uniform(-0.1, 0.1, 32)
    w2, b2 = RNG.uniform(-0.3, 0.3, (32, 16)), RNG.uniform(-0.1, 0.1, 16)
    g, beta = RNG.uniform(0.5, 1.5, 16), RNG.uniform(-0.2, 0.2, 16)
    nodes = [node("MatMul", ["x", "w1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"], name="add_1"),
             node("Relu", ["hb"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["o"], name="matmul_2"),
             helper.make_node("Add", ["o", "b2"], ["ob"], name="add_2"),
             helper.make_node("Add", ["ob", "x"], ["s"], name="add_3"),
             node("LayerNormalization", ["s", "g", "beta"], ["y"], axis=-1)]
    inits = [(n, np.asarray(a, dtype=np.float32)) for n, a in
             (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("g", g),
              ("beta", beta))]
    graph = helper.make_graph(
        nodes, "ffn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 16])],
        initializer=[numpy_helper.from_array(a, n) for n, a in inits])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, "ffn.onnx"))


def resnet_block():
    """For tests/quant.test (not in models.txt): a small ResNet, batch N of
    4 x 12 x 12: conv 3x3 + Relu, max pool 3x3 stride 2 (padded), a basic
    block (conv + Relu, conv, the residual Add, Relu), average pool 2x2, a
    1x1 projection beside a conv, their Add and Relu, global average pool,
    flatten, dense 8 -> 10, softmax."""
    def w(*shape):
        fan = np.prod(shape[1:])
        return RNG.uniform(-1, 1, shape) * np.sqrt(3.0 / fan)
    inits = [("w0", w(8, 4, 3, 3)), ("b0", RNG.uniform(-0.1, 0.1, 8)),
             ("w1", w(8, 8, 3, 3)), ("w2", w(8, 8, 3, 3)),
             ("w3", w(8, 8, 3, 3)), ("w4", w(8, 8, 1, 1)),
             ("fw", w(10, 8)), ("fb", RNG.uniform(-0.1, 0.1, 10))]
    pad = dict(pads=[1, 1, 1, 1])
    nodes = [
        helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], name="conv0",
                         **pad),
        helper.make_node("Relu", ["c0"], ["r0"], name="relu0"),
        helper.make_node("MaxPool", ["r0"], ["p0"], name="maxpool0",
                         kernel_shape=[3, 3], strides=[2, 2], **pad),
        helper.make_node("Conv", ["p0", "w1"], ["c1"], name="conv1", **pad),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", **pad),
        helper.make_node("Add", ["c2", "p0"], ["s1"], name="add1"),
        helper.make_node("Relu", ["s1"], ["r2"], name="relu2"),
        helper.make_node("AveragePool", ["r2"], ["a0"], name="avgpool0",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["a0", "w3"], ["c3"], name="conv3", **pad),
        helper.make_node("Conv", ["a0", "w4"], ["c4"], name="conv4"),
        helper.make_node("Add", ["c3", "c4"], ["s2"], name="add2"),
        helper.make_node("Relu", ["s2"], ["r3"], name="relu3"),
        helper.make_node("GlobalAveragePool", ["r3"], ["g0"], name="gap0"),
        helper.make_node("Flatten", ["g0"], ["f0"], name="flatten0"),
        helper.make_node("Gemm", ["f0", "fw", "fb"], ["d0"], name="gemm0",
                         transB=1),
        helper.make_node("Softmax", ["d0"], ["y"], name="softmax0", axis=1)]
    graph = helper.make_graph(
        nodes, "resnet_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", 4, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        initializer=[numpy_helper.from_array(np.asarray(a, dtype=np.float32),
                                             n) for n, a in inits])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, "resnet_block.onnx"))


ffn()
resnet_block()
quantize_linear()
dequantize_linear()
matrices()
convolutions()
with open(os.path.join(OUT, "models.txt"), "w") as f:
    f.write("\n".join(LIST) + "\n")
