"""onnxruntime's int8 model: the peer of bench/quant_models.sh.

Usage: python quant_ort.py MODEL.onnx X.npy ACC.npy SAMPLES REPEAT DIR

Quantises MODEL.onnx with onnxruntime's quantize_static (QDQ format,
uint8 activations, int8 weights per channel, MinMax calibration on
SAMPLES random inputs uniform in [-1, 1), as ein profile draws them),
writes it to DIR/model.q.onnx, times the float and the int8 model on one
thread (one warm-up, REPEAT runs each, interleaved) on X.npy, and runs
both on each of the inputs of ACC.npy (a batch; the model takes one at
a time).  Prints "float_median S", "int8_median S", "top1 K N" (the
int8 model's top-1 class agreeing with the float one's), "maxerr E rmserr
R" (the largest and the root-mean-square difference of the outputs,
relative to the largest float output) and writes the
float and int8 outputs on ACC.npy to DIR/ort_float.npy, DIR/ort_int8.npy.
"""
import os
import sys
import time

import numpy as np
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_static)

model, xfile, accfile, samples, repeat, out = sys.argv[1:7]
x = np.load(xfile)


class Reader(CalibrationDataReader):
    def __init__(self, n):
        r = np.random.RandomState(42)
        self.data = iter([{"x": r.uniform(-1, 1, x.shape).astype(np.float32)}
                          for _ in range(n)])

    def get_next(self):
        return next(self.data, None)


qmodel = os.path.join(out, "model.q.onnx")
quantize_static(model, qmodel, Reader(int(samples)),
                quant_format=QuantFormat.QDQ, per_channel=True,
                activation_type=QuantType.QUInt8,
                weight_type=QuantType.QInt8)


def session(path):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, opts,
                                providers=["CPUExecutionProvider"])


sf, sq = session(model), session(qmodel)
times = {"float": [], "int8": []}
for s in (sf, sq):
    s.run(None, {"x": x})
for _ in range(int(repeat)):
    for name, s in (("float", sf), ("int8", sq)):
        t0 = time.perf_counter()
        s.run(None, {"x": x})
        times[name].append(time.perf_counter() - t0)
for name in ("float", "int8"):
    print("%s_median %.6f" % (name, float(np.median(times[name]))))
acc = np.load(accfile)
yf = np.concatenate([sf.run(None, {"x": acc[i:i + 1]})[0]
                     for i in range(acc.shape[0])])
yq = np.concatenate([sq.run(None, {"x": acc[i:i + 1]})[0]
                     for i in range(acc.shape[0])])
np.save(os.path.join(out, "ort_float.npy"), yf)
np.save(os.path.join(out, "ort_int8.npy"), yq)
print("top1 %d %d" % ((yf.argmax(1) == yq.argmax(1)).sum(), acc.shape[0]))
big = np.abs(yf).max()
print("maxerr %.4f rmserr %.5f" % (np.abs(yq - yf).max() / big,
                                   np.sqrt(np.mean((yq - yf) ** 2)) / big))
