#!/usr/bin/python3
"""Run the node tests that gen_node_tests.py wrote through ein.

Usage: run_node_tests.py EIN DIR

Each test model is imported ("ein import", whose header comment maps the
ONNX names of the inputs and outputs to ein's), then run by "ein run" on
the test's inputs (the default schedule, checked against ein's reference
interpreter), and its outputs compared with the test's within onnx's own
tolerances (rtol 1e-3, atol 1e-7) and exactly for integer and bool outputs.

A test is "unsupported" when ein rejects it with its error for an
operator, attribute, type or dynamic shape it does not support (the
messages of docs/onnx.md's errors); any other error, a crash, a sanitizer's
report, or a wrong or missing output fails the run.  Prints one line per
test that is not a pass, and the counts.
"""
import os
import re
import subprocess
import sys

import numpy as np

ein, d = sys.argv[1], sys.argv[2]
UNSUPPORTED = re.compile(
    r"not supported|the importer supports|"
    r"which ein does not compute with|needs a constant|"
    r"must be a constant|unsupported|dynamic shape")

passed, unsupported, failed = [], [], []
for line in open(os.path.join(d, "tests.txt")):
    name, n_in, n_out = line.split()
    model = os.path.join(d, name + ".onnx")
    imp = subprocess.run([ein, "import", model], capture_output=True,
                         text=True)
    if imp.returncode < 0 or "Sanitizer" in imp.stderr or (
            imp.returncode and not UNSUPPORTED.search(imp.stderr)):
        failed.append((name, "ein import: status %d: %s" %
                       (imp.returncode, imp.stderr.strip())))
        continue
    if imp.returncode:
        unsupported.append((name, imp.stderr.strip().splitlines()[0]))
        continue
    ins = re.findall(r"^# input (\S+): ONNX", imp.stdout, re.M)
    outs = re.findall(r"^# output (\S+): ONNX", imp.stdout, re.M)
    if len(ins) != int(n_in) or len(outs) != int(n_out):
        failed.append((name, "%d inputs and %d outputs in the header, "
                       "not %s and %s" % (len(ins), len(outs), n_in, n_out)))
        continue
    odir = os.path.join(d, name + ".out")
    os.mkdir(odir)
    args = [ein, "run", model, "--no-auto", "--repeat", "1", "--output",
            odir]
    for k, i in enumerate(ins):
        args += ["--input", "%s=%s/%s.in.%d.npy" % (i, d, name, k)]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode == 0 and "Sanitizer" in run.stderr:
        failed.append((name, "ein run: %s" % run.stderr.strip()))
        continue
    if run.returncode:
        why = (run.stderr + run.stdout).strip()
        if run.returncode > 0 and UNSUPPORTED.search(why) and \
                "Sanitizer" not in why:
            unsupported.append((name, why.splitlines()[0]))
        else:
            failed.append((name, "ein run: status %d: %s" %
                           (run.returncode, why)))
        continue
    bad = []
    for k, o in enumerate(outs):
        ref = np.load("%s/%s.ref.%d.npy" % (d, name, k))
        path = os.path.join(odir, o + ".npy")
        if not os.path.exists(path):
            bad.append("no output %s" % o)
            continue
        got = np.load(path)
        if got.shape != ref.shape:
            bad.append("%s: shape %s, expected %s" % (o, got.shape,
                                                      ref.shape))
        elif ref.dtype.kind in "fc":
            if not np.allclose(got, ref, rtol=1e-3, atol=1e-7,
                               equal_nan=True):
                err = np.abs(got.astype(np.float64) - ref).max()
                bad.append("%s: max |error| %.3g" % (o, err))
        elif not np.array_equal(got, ref.astype(got.dtype)) or \
                got.dtype.kind != ref.dtype.kind:
            bad.append("%s: differs (%s, expected %s)" %
                       (o, got.dtype, ref.dtype))
    if bad:
        failed.append((name, "; ".join(bad)))
    else:
        passed.append(name)

for name, why in unsupported:
    print("unsupported %s: %s" % (name, why))
for name, why in failed:
    print("FAIL %s: %s" % (name, why))
print("node tests: %d passed, %d unsupported, %d failed"
      % (len(passed), len(unsupported), len(failed)))
sys.exit(1 if failed else 0)
