#!/usr/bin/python3
"""Write the ONNX models of bench/onnx_models.sh, with random weights.

Usage: onnx_models.py DIR [MODEL...]   (MODEL: bert_layer, mobilenetv2,
resnet50; default all three)

Writes DIR/MODEL.onnx and its input DIR/MODEL.in.x.npy.  The models are
built here with onnx's helpers, layer by layer as the published
architectures are (ResNet-50 v1.5: the stride on the 3x3 convolution of
a bottleneck; MobileNetV2 with width 1.0; one encoder layer of
BERT-base: hidden 768, 12 heads, feed-forward 3072, sequence 128, GELU
in the Erf form exporters write), with weights drawn from a fixed seed:
nothing is downloaded, and every run writes the same files.  Weights
are scaled by 1/sqrt(fan-in) so that activations stay of order one
through fifty layers and a relative comparison of outputs means
something.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
RNG = np.random.default_rng(24)


class Builder:
    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.inits = []
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return "%s_%d" % (stem, self.count)

    def weight(self, stem, arr):
        name = self.fresh(stem)
        self.inits.append(numpy_helper.from_array(
            np.asarray(arr, dtype=np.float32), name))
        return name

    def const_i64(self, stem, values):
        name = self.fresh(stem)
        self.inits.append(numpy_helper.from_array(
            np.asarray(values, dtype=np.int64), name))
        return name

    def op(self, op_type, ins, **attrs):
        out = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, ins, [out], name=out,
                                           **attrs))
        return out

    def conv_bn(self, x, cin, cout, k, stride=1, group=1):
        fan_in = cin // group * k * k
        w = RNG.normal(0, 1 / np.sqrt(fan_in),
                       size=(cout, cin // group, k, k))
        y = self.op("Conv", [x, self.weight("w", w)], kernel_shape=[k, k],
                    strides=[stride, stride], pads=[k // 2] * 4,
                    group=group)
        scale = RNG.uniform(0.5, 1.5, cout)
        bias = RNG.uniform(-0.2, 0.2, cout)
        mean = RNG.uniform(-0.2, 0.2, cout)
        var = RNG.uniform(0.5, 1.5, cout)
        return self.op("BatchNormalization",
                       [y, self.weight("scale", scale),
                        self.weight("bias", bias), self.weight("mean", mean),
                        self.weight("var", var)], epsilon=1e-5)

    def relu6(self, x):
        lo = self.weight("lo", np.float32(0))
        hi = self.weight("hi", np.float32(6))
        return self.op("Clip", [x, lo, hi])

    def dense(self, x, k, n):
        w = RNG.normal(0, 1 / np.sqrt(k), size=(k, n))
        y = self.op("MatMul", [x, self.weight("w", w)])
        return self.op("Add", [y, self.weight("b",
                                              RNG.uniform(-0.1, 0.1, n))])

    def classifier(self, x, c):
        y = self.op("GlobalAveragePool", [x])
        y = self.op("Flatten", [y], axis=1)
        w = RNG.normal(0, 1 / np.sqrt(c), size=(1000, c))
        return self.op("Gemm", [y, self.weight("fc", w),
                                self.weight("fcb",
                                            RNG.uniform(-0.1, 0.1, 1000))],
                       transB=1)

    def save(self, x_shape, y, y_shape, opset):
        vin = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                             x_shape)]
        self.nodes.append(helper.make_node("Identity", [y], ["y"],
                                           name="output"))
        vout = [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                              y_shape)]
        graph = helper.make_graph(self.nodes, self.name, vin, vout,
                                  initializer=self.inits)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8  # onnxruntime's from PyPI reads IR 8
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(OUT, self.name + ".onnx"))
        x = RNG.uniform(-1, 1, size=x_shape).astype(np.float32)
        np.save(os.path.join(OUT, self.name + ".in.x.npy"), x)


def resnet50():
    b = Builder("resnet50")
    y = b.op("Relu", [b.conv_bn("x", 3, 64, 7, 2)])
    y = b.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1])
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2),
                                  (512, 3, 2)):
        for i in range(blocks):
            s = stride if i == 0 else 1
            t = b.op("Relu", [b.conv_bn(y, cin, width, 1)])
            t = b.op("Relu", [b.conv_bn(t, width, width, 3, s)])
            t = b.conv_bn(t, width, width * 4, 1)
            short = y
            if i == 0:
                short = b.conv_bn(y, cin, width * 4, 1, s)
            y = b.op("Relu", [b.op("Add", [t, short])])
            cin = width * 4
    b.save([1, 3, 224, 224], b.classifier(y, cin), [1, 1000], 13)


def mobilenetv2():
    b = Builder("mobilenetv2")
    y = b.relu6(b.conv_bn("x", 3, 32, 3, 2))
    cin = 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
                       (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)):
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            h = y
            if t != 1:
                h = b.relu6(b.conv_bn(h, cin, hidden, 1))
            h = b.relu6(b.conv_bn(h, hidden, hidden, 3, stride, hidden))
            h = b.conv_bn(h, hidden, c, 1)
            if stride == 1 and cin == c:
                h = b.op("Add", [y, h])
            y = h
            cin = c
    y = b.relu6(b.conv_bn(y, cin, 1280, 1))
    b.save([1, 3, 224, 224], b.classifier(y, 1280), [1, 1000], 13)


def bert_layer(seq=128, hidden=768, heads=12, ffn=3072):
    b = Builder("bert_layer")
    dh = hidden // heads

    def split_heads(t, perm):
        t = b.op("Reshape", [t, b.const_i64("shape", [1, seq, heads, dh])])
        return b.op("Transpose", [t], perm=perm)

    def layernorm(t):
        return b.op("LayerNormalization",
                    [t, b.weight("gamma", RNG.uniform(0.5, 1.5, hidden)),
                     b.weight("beta", RNG.uniform(-0.1, 0.1, hidden))],
                    axis=-1, epsilon=1e-12)

    q = split_heads(b.dense("x", hidden, hidden), [0, 2, 1, 3])
    k = split_heads(b.dense("x", hidden, hidden), [0, 2, 3, 1])
    v = split_heads(b.dense("x", hidden, hidden), [0, 2, 1, 3])
    s = b.op("MatMul", [q, k])
    s = b.op("Div", [s, b.weight("sqrt_dh", np.float32(np.sqrt(dh)))])
    p = b.op("Softmax", [s], axis=-1)
    a = b.op("Transpose", [b.op("MatMul", [p, v])], perm=[0, 2, 1, 3])
    a = b.op("Reshape", [a, b.const_i64("shape", [1, seq, hidden])])
    y = layernorm(b.op("Add", [b.dense(a, hidden, hidden), "x"]))
    h = b.dense(y, hidden, ffn)
    # GELU as exporters write it: x * 0.5 * (1 + erf(x / sqrt(2))).
    e = b.op("Erf", [b.op("Div", [h, b.weight("sqrt2",
                                              np.float32(np.sqrt(2)))])])
    e = b.op("Add", [e, b.weight("one", np.float32(1))])
    h = b.op("Mul", [b.op("Mul", [h, e]), b.weight("half",
                                                   np.float32(0.5))])
    y = layernorm(b.op("Add", [b.dense(h, ffn, hidden), y]))
    b.save([1, seq, hidden], y, [1, seq, hidden], 17)


MODELS = {"bert_layer": bert_layer, "mobilenetv2": mobilenetv2,
          "resnet50": resnet50}
for m in sys.argv[2:] or MODELS:
    MODELS[m]()
