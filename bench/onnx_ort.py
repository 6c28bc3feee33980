"""Run a model with onnxruntime: the peer of bench/onnx_models.sh.

Usage: python onnx_ort.py MODEL.onnx X.npy THREADS REPEAT OUT.npy

Runs on THREADS intra-op threads (one inter-op thread, sequential
execution, all graph optimisations), once to warm up and then REPEAT
times, writes the output to OUT.npy and prints "median SECONDS" and
"peak_rss BYTES" (the process's peak resident set, which bounds
onnxruntime's memory from above: it holds the weights and the
interpreter too).
"""
import resource
import sys
import time

import numpy as np
import onnxruntime as ort

model, xfile, threads, repeat, out = sys.argv[1:6]
opts = ort.SessionOptions()
opts.intra_op_num_threads = int(threads)
opts.inter_op_num_threads = 1
opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
x = np.load(xfile)
y = sess.run(None, {"x": x})[0]
times = []
for _ in range(int(repeat)):
    t0 = time.perf_counter()
    sess.run(None, {"x": x})
    times.append(time.perf_counter() - t0)
np.save(out, y)
print("median %.6f" % float(np.median(times)))
print("peak_rss %d" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                       * 1024))
