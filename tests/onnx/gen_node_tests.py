#!/usr/bin/python3
"""Write the ONNX backend node tests of some operators, as models and .npy.

Usage: gen_node_tests.py DIR [--per-module=N] MODULE...

MODULE: a module of onnx.backend.test.case.node (e.g. "conv", "resize"),
whose export functions build one-node models with their inputs and the
outputs that onnx's own numpy reference computes.  For each test NAME it
writes DIR/NAME.onnx, DIR/NAME.in.K.npy (the K-th graph input),
DIR/NAME.ref.K.npy (the K-th graph output) and a line "NAME N_IN N_OUT" in
DIR/tests.txt.  The installed onnx package ships the test cases but not
their data (Debian's python3-onnx); generating them is what onnx's own
"cmd_tools generate-data" does, for the operators named only (and at
most N tests of each with --per-module=N).
"""
import importlib
import os
import sys
import warnings

import numpy as np

# onnx 1.12's test cases use the aliases that numpy 1.24 removed.
warnings.simplefilter("ignore")
for alias, typ in (("float", float), ("int", int), ("bool", bool),
                   ("object", object)):
    if alias not in np.__dict__:
        setattr(np, alias, typ)

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402
import onnx.backend.test.case.node as node_cases  # noqa: E402

out = sys.argv[1]
args = sys.argv[2:]
per_module = 0
if args and args[0].startswith("--per-module="):
    per_module = int(args.pop(0).split("=")[1])
cases = []
for mod in args:
    first = len(node_cases._NodeTestCases)
    importlib.import_module(node_cases.__name__ + "." + mod)
    mine = node_cases._NodeTestCases[first:]
    # At most per_module of a module's tests, spread evenly over the
    # order in which it exports them (its variants of attributes come
    # in groups).
    if per_module and len(mine) > per_module:
        mine = [mine[k * len(mine) // per_module]
                for k in range(per_module)]
    cases += mine

# The inputs that give an operator's parameters (a shape, axes, bounds,
# scales) rather than data, by position: the node tests pass them as graph
# inputs, computed at run time, where exporters write constants; the
# importer needs them constant, so they become initializers.  Data
# inputs (Gather's indices among them) stay inputs.
PARAMS = {
    "Reshape": [1], "Slice": [1, 2, 3, 4], "Squeeze": [1], "Unsqueeze": [1],
    "Split": [1], "ReduceSum": [1], "ReduceMean": [1], "ReduceMax": [1],
    "ReduceMin": [1], "Pad": [1, 2, 3], "Clip": [1, 2],
    "Resize": [1, 2, 3], "Upsample": [1],
}


def constant_params(model, inputs):
    """Move the parameter inputs of the model's nodes into initializers;
    the inputs that remain."""
    graph = model.graph
    names = [i.name for i in graph.input]
    moved = set()
    for n in graph.node:
        for k in PARAMS.get(n.op_type, []):
            if k < len(n.input) and n.input[k] in names:
                moved.add(n.input[k])
    keep_vi, keep = [], []
    for vi, arr in zip(list(graph.input), inputs):
        if vi.name in moved:
            graph.initializer.append(numpy_helper.from_array(arr, vi.name))
        else:
            keep_vi.append(vi)
            keep.append(arr)
    del graph.input[:]
    graph.input.extend(keep_vi)
    return keep


lines = []
seen = set()
for case in cases:
    # onnx 1.12 exports one name twice (the second overwrites the first).
    if case.name in seen:
        continue
    seen.add(case.name)
    # Sequences, optionals and strings are outside ein's types: only
    # tests whose inputs and outputs are all arrays are written.
    inputs, outputs = case.data_sets[0]
    if not all(isinstance(a, np.ndarray) and a.dtype != object
               for a in list(inputs) + list(outputs)):
        continue
    inputs = constant_params(case.model, list(inputs))
    onnx.save(case.model, os.path.join(out, case.name + ".onnx"))
    for k, a in enumerate(inputs):
        np.save(os.path.join(out, "%s.in.%d.npy" % (case.name, k)), a)
    for k, a in enumerate(outputs):
        np.save(os.path.join(out, "%s.ref.%d.npy" % (case.name, k)), a)
    lines.append("%s %d %d\n" % (case.name, len(inputs), len(outputs)))
with open(os.path.join(out, "tests.txt"), "w") as f:
    f.writelines(lines)
