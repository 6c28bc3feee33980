#!/usr/bin/python3
"""Fuzz the ONNX importer: mutated test models must give an error or
import, never a crash, a hang or a sanitizer's report.

Usage: fuzz_import.py EIN DIR CASES MODEL...

Each case takes one of the models (DIR/MODEL.onnx, written by
gen_models.py) and mutates it: half the cases its bytes (1 to 4 of: a
random byte, a flipped bit, a byte set to 0 or 0xff, a cut, a deleted or a
duplicated range, a varint made large), which mostly gives a protobuf that
does not decode; the other half one field of the decoded model (a
dimension, an attribute's value or type, a node's input, output or op
type, an initializer's shape, type or data, the order of the nodes, a
graph input, output or initializer removed, the opset), which reaches the
importer's checks and lowerings, a fifth of those with bytes mutated too.
It writes it as DIR/fuzz.onnx and runs "ein import"
on it.  Pass: exit status 0 with a source on stdout, or 1 with a line
"error: ..." on stderr; anything else (a signal, another status, no
message, a sanitizer's report, more than 60 s) fails, and the failing
model is kept as DIR/fuzz_fail_K.onnx.  The seed is fixed: every run
tries the same cases.
"""
import random
import subprocess
import sys

import onnx

ein, d, cases = sys.argv[1], sys.argv[2], int(sys.argv[3])
models = [open("%s/%s.onnx" % (d, m), "rb").read() for m in sys.argv[4:]]
rng = random.Random(24)


def mutate(b):
    b = bytearray(b)
    for _ in range(rng.randint(1, 4)):
        if len(b) < 2:
            break
        k = rng.randrange(len(b))
        kind = rng.randrange(7)
        if kind == 0:
            b[k] = rng.randrange(256)
        elif kind == 1:
            b[k] ^= 1 << rng.randrange(8)
        elif kind == 2:
            b[k] = rng.choice([0, 0xff, 0x7f, 0x80])
        elif kind == 3:
            del b[k:]
        elif kind == 4:
            del b[k:k + rng.randint(1, 16)]
        elif kind == 5:
            j = rng.randrange(len(b))
            b[j:j] = b[k:k + rng.randint(1, 32)]
        else:
            # A varint (a length, a dimension, an attribute's integer)
            # made large or negative.
            b[k:k + 1] = bytes([0xff] * rng.randint(1, 9) + [0x01])
    return bytes(b)


BIG = [0, 1, -1, 2, 3, 7, 1 << 31, -(1 << 31), (1 << 62), -(1 << 40)]
OPS = ["Conv", "Gemm", "MatMul", "Reshape", "Slice", "Resize", "Concat",
       "Split", "Transpose", "Gather", "ConvTranspose", "MaxPool", "Pad",
       "Softmax", "LayerNormalization", "Add", "Gelu", "Squeeze", "Cast"]


def mutate_structure(b):
    """Change one field of the decoded model: what a byte mutation that
    keeps the protobuf valid would reach."""
    m = onnx.ModelProto()
    m.ParseFromString(b)
    g = m.graph
    kind = rng.randrange(10)
    if kind == 0:
        vis = list(g.input) + list(g.output) + list(g.value_info)
        dims = [dd for vi in vis for dd in vi.type.tensor_type.shape.dim]
        if dims:
            dd = rng.choice(dims)
            if rng.randrange(3):
                dd.dim_value = rng.choice(BIG[:7]) & ((1 << 62) - 1)
            else:
                dd.dim_param = rng.choice(["N", "", "x", "3"])
    elif kind in (1, 2):
        attrs = [a for n in g.node for a in n.attribute]
        if attrs:
            a = rng.choice(attrs)
            if a.ints and rng.randrange(2):
                if rng.randrange(2):
                    a.ints[rng.randrange(len(a.ints))] = rng.choice(BIG)
                elif rng.randrange(2):
                    del a.ints[rng.randrange(len(a.ints)):]
                else:
                    a.ints.append(rng.choice(BIG))
            elif rng.randrange(2):
                a.i = rng.choice(BIG)
                a.type = onnx.AttributeProto.INT
            elif rng.randrange(2):
                a.f = rng.choice([0.0, -1.0, 1e30, float("nan"),
                                  float("inf")])
                a.type = onnx.AttributeProto.FLOAT
            else:
                a.type = rng.randrange(15)
    elif kind == 3 and g.node:
        n = rng.choice(g.node)
        names = [t for nn in g.node for t in list(nn.input) +
                 list(nn.output)] + [""]
        if n.input:
            n.input[rng.randrange(len(n.input))] = rng.choice(names)
        if rng.randrange(2) and n.input:
            del n.input[rng.randrange(len(n.input)):]
    elif kind == 4 and g.node:
        n = rng.choice(g.node)
        names = [t for nn in g.node for t in list(nn.input) + list(nn.output)]
        if n.output:
            n.output[rng.randrange(len(n.output))] = rng.choice(names)
    elif kind == 5 and g.node:
        rng.choice(g.node).op_type = rng.choice(OPS)
    elif kind == 6 and g.initializer:
        t = rng.choice(g.initializer)
        r = rng.randrange(4)
        if r == 0 and t.dims:
            t.dims[rng.randrange(len(t.dims))] = rng.choice(BIG[:7])
        elif r == 1:
            t.data_type = rng.randrange(17)
        elif r == 2 and t.raw_data:
            t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data))]
        else:
            t.dims.append(rng.choice([1, 2, 0]))
    elif kind == 7 and len(g.node) > 1:
        nodes = list(g.node)
        rng.shuffle(nodes)
        del g.node[:]
        g.node.extend(nodes)
    elif kind == 8:
        lst = rng.choice([g.input, g.output, g.initializer])
        if len(lst):
            del lst[rng.randrange(len(lst))]
    else:
        m.opset_import[0].version = rng.choice([1, 6, 9, 10, 11, 20, 99])
    return m.SerializeToString()


counts = {"imported": 0, "error": 0}
failed = 0
for case in range(cases):
    data = models[case % len(models)]
    # Half the cases change the decoded model's fields, the others (and
    # a fifth of those) its bytes.
    if case % 2:
        data = mutate_structure(data)
    if case % 2 == 0 or rng.randrange(5) == 0:
        data = mutate(data)
    path = "%s/fuzz.onnx" % d
    with open(path, "wb") as f:
        f.write(data)
    try:
        r = subprocess.run([ein, "import", path], capture_output=True,
                           timeout=60)
        out, err, status = r.stdout, r.stderr.decode("utf-8", "replace"), \
            r.returncode
    except subprocess.TimeoutExpired:
        out, err, status = b"", "(no answer in 60 s)", None
    ok = "Sanitizer" not in err and "runtime error" not in err and (
        (status == 0 and out.startswith(b"# Imported")) or
        (status == 1 and err.startswith("error: ")))
    if ok:
        counts["imported" if status == 0 else "error"] += 1
        continue
    failed += 1
    keep = "%s/fuzz_fail_%d.onnx" % (d, case)
    with open(keep, "wb") as f:
        f.write(data)
    print("FAIL case %d (%s): status %s: %s" % (case, keep, status,
                                                err.strip()[:2000]))
print("fuzz: %d cases, %d imported, %d errors, %d failed"
      % (cases, counts["imported"], counts["error"], failed))
sys.exit(1 if failed else 0)
