# The peers of bench/auto_defs.sh (issue 23): the definitions of
# bench/auto_defs.ein written again in numpy (the reference) and in
# Halide's Python front end (PyPI `halide`), scheduled by Halide's
# autoschedulers.
#
#   python auto_halide.py gen DEF SIZES DIR
#       random inputs DIR/NAME.npy (fixed seed) and the numpy reference
#       DIR/ref.npy, computed in float64
#   python auto_halide.py check DIR OUT.npy
#       max |OUT - ref| / max |ref|, and exit 1 above 1e-4
#   python auto_halide.py halide DEF SIZES DIR REPEAT [SCHEDULER...]
#       for each autoscheduler (Adams2019, Mullapudi2016): schedule for the
#       host at one thread, JIT-compile, check one run against ref.npy,
#       then print "SCHEDULER median MS" over REPEAT timed runs after one
#       warm-up; a scheduler that fails prints "SCHEDULER failed: ..."
#   python auto_halide.py blas DEF SIZES DIR REPEAT
#       the chain of sgemm calls through numpy's matmul (its OpenBLAS),
#       checked, then "blas median MS"; nothing for a definition that is
#       not a chain of matrix products
#
# Halide orders dimensions innermost first, numpy outermost first: an
# array of numpy shape (M, K) is A[k, i] here (hl.Buffer reverses the
# axes), so every Halide definition below lists its indices reversed.
import os
import sys
import time

import numpy as np

try:
    import halide as hl
except ImportError:
    hl = None

SEED = 23
F32 = np.float32


def sizes_of(text):
    return {k: int(v) for k, v in (kv.split("=") for kv in text.split(","))}


# Input shapes (numpy order) and the float64 reference of each definition.
def conv_out(h, k, stride):
    return (h - k) // stride + 1


def ref_conv(I, F, stride):
    n, c, h, w = I.shape
    k = F.shape[0]
    ho, wo = conv_out(h, 3, stride), conv_out(w, 3, stride)
    O = np.zeros((n, k, ho, wo))
    for r in range(3):
        for s in range(3):
            win = I[:, :, r:r + stride * (ho - 1) + 1:stride,
                    s:s + stride * (wo - 1) + 1:stride]
            O += np.einsum("nchw,kc->nkhw", win, F[:, :, r, s])
    return O


def ref_pool(I, k, stride, op):
    n, c, h, w = I.shape
    ho, wo = conv_out(h, k, stride), conv_out(w, k, stride)
    wins = [I[:, :, r:r + stride * (ho - 1) + 1:stride,
              s:s + stride * (wo - 1) + 1:stride]
            for r in range(k) for s in range(k)]
    return op(np.stack(wins), axis=0)


def ref_softmax_cols(X):
    e = np.exp(X - X.max(axis=0))
    return e / e.sum(axis=0)


def ref_rms(X, w):
    return X / np.sqrt((X * X).mean(axis=1, keepdims=True) + 1e-6) * w


def ref_lnorm(X):
    m = X.mean(axis=1, keepdims=True)
    v = (X * X).mean(axis=1, keepdims=True) - m * m
    return (X - m) / np.sqrt(v + 1e-5)


def ref_jacobi(A):
    return 0.2 * (A[1:-1, 1:-1] + A[:-2, 1:-1] + A[2:, 1:-1] +
                  A[1:-1, :-2] + A[1:-1, 2:])


def ref_blur(A):
    bx = (A[:, :-2] + A[:, 1:-1] + A[:, 2:]) / 3
    return (bx[:-2] + bx[1:-1] + bx[2:]) / 3


DEFS = {
    "mm_user": (lambda s: {"A": (s["M"], s["K"]), "B": (s["K"], s["N"])},
                lambda A, B: A @ B),
    "tc_abc_acd_db": (lambda s: {"X": (s["A"], s["C"], s["D"]),
                                 "Y": (s["D"], s["B"])},
                      lambda X, Y: np.einsum("acd,db->abc", X, Y)),
    "mm2": (lambda s: {"A": (s["M"], s["K"]), "B": (s["K"], s["N"]),
                       "C": (s["N"], s["L"])},
            lambda A, B, C: (A @ B) @ C),
    "mm3": (lambda s: {"A": (s["M"], s["K"]), "B": (s["K"], s["N"]),
                       "C": (s["N"], s["L"]), "D": (s["L"], s["P"])},
            lambda A, B, C, D: (A @ B) @ (C @ D)),
    "atax": (lambda s: {"A": (s["M"], s["N"]), "x": (s["N"],)},
             lambda A, x: A.T @ (A @ x)),
    "doitgen": (lambda s: {"A": (s["R"], s["Q"], s["S"]),
                           "C4": (s["S"], s["P"])},
                lambda A, C4: A @ C4),
    "dw3x3": (lambda s: {"I": (s["N"], s["C"], s["H"], s["W"]),
                         "F": (s["C"], 3, 3)},
              lambda I, F: sum(I[:, :, r:I.shape[2] - 2 + r,
                                 s:I.shape[3] - 2 + s] *
                               F[None, :, r, s, None, None]
                               for r in range(3) for s in range(3))),
    "conv3x3s2": (lambda s: {"I": (s["N"], s["C"], s["H"], s["W"]),
                             "F": (s["K"], s["C"], 3, 3)},
                  lambda I, F: ref_conv(I, F, 2)),
    "conv3x3_user": (lambda s: {"I": (s["N"], s["C"], s["H"], s["W"]),
                                "F": (s["K"], s["C"], 3, 3)},
                     lambda I, F: ref_conv(I, F, 1)),
    "maxpool_k3s2": (lambda s: {"I": (s["N"], s["C"], s["H"], s["W"])},
                     lambda I: ref_pool(I, 3, 2, np.max)),
    "avgpool_k2s2": (lambda s: {"I": (s["N"], s["C"], s["H"], s["W"])},
                     lambda I: ref_pool(I, 2, 2, np.mean)),
    "softmax_cols": (lambda s: {"X": (s["M"], s["N"])}, ref_softmax_cols),
    "rms_norm_w": (lambda s: {"X": (s["M"], s["N"]), "w": (s["N"],)},
                   ref_rms),
    "lnorm_plain": (lambda s: {"X": (s["M"], s["N"])}, ref_lnorm),
    "jacobi5": (lambda s: {"A": (s["M"], s["N"])}, ref_jacobi),
    "blur3": (lambda s: {"A": (s["M"], s["N"])}, ref_blur),
}


def inputs_of(name, sizes):
    return DEFS[name][0](sizes_of(sizes))


def load_inputs(name, sizes, d):
    return {k: np.load(os.path.join(d, k + ".npy"))
            for k in inputs_of(name, sizes)}


def gen(name, sizes, d):
    rng = np.random.default_rng(SEED)
    arrays = {}
    for k, shape in inputs_of(name, sizes).items():
        arrays[k] = rng.uniform(-1, 1, shape).astype(F32)
        np.save(os.path.join(d, k + ".npy"), arrays[k])
    ref = DEFS[name][1](*(a.astype(np.float64) for a in arrays.values()))
    np.save(os.path.join(d, "ref.npy"), ref)


def rel_err(out, ref):
    if out.shape != ref.shape:
        return float("inf")
    return float(np.abs(out.astype(np.float64) - ref).max() /
                 max(np.abs(ref).max(), 1e-30))


# ---- Halide -------------------------------------------------------------
# Each builder takes the ImageParams (by input name) and the sizes and
# gives back the output Func and its extents (Halide order).

def rdom(*extents):
    return hl.RDom([(0, e) for e in extents])


def h_mm(A, B, K, name):
    i, j = hl.Var("i"), hl.Var("j")
    k = rdom(K)
    C = hl.Func(name)
    C[j, i] = hl.f32(0)
    C[j, i] += A[k.x, i] * B[j, k.x]
    return C


def h_mm_user(p, s):
    return h_mm(p["A"], p["B"], s["K"], "C"), [s["N"], s["M"]]


def h_tc(p, s):
    a, b, c = hl.Var("a"), hl.Var("b"), hl.Var("c")
    d = rdom(s["D"])
    Z = hl.Func("Z")
    Z[c, b, a] = hl.f32(0)
    Z[c, b, a] += p["X"][d.x, c, a] * p["Y"][b, d.x]
    return Z, [s["C"], s["B"], s["A"]]


def h_mm2(p, s):
    T = h_mm(p["A"], p["B"], s["K"], "T")
    return h_mm(T, p["C"], s["N"], "D"), [s["L"], s["M"]]


def h_mm3(p, s):
    E = h_mm(p["A"], p["B"], s["K"], "E")
    F = h_mm(p["C"], p["D"], s["L"], "F")
    return h_mm(E, F, s["N"], "G"), [s["P"], s["M"]]


def h_atax(p, s):
    i, j = hl.Var("i"), hl.Var("j")
    A, x = p["A"], p["x"]
    rj, ri = rdom(s["N"]), rdom(s["M"])
    t, y = hl.Func("t"), hl.Func("y")
    t[i] = hl.f32(0)
    t[i] += A[rj.x, i] * x[rj.x]
    y[j] = hl.f32(0)
    y[j] += A[j, ri.x] * t[ri.x]
    return y, [s["N"]]


def h_doitgen(p, s):
    r, q, pp = hl.Var("r"), hl.Var("q"), hl.Var("p")
    k = rdom(s["S"])
    O = hl.Func("O")
    O[pp, q, r] = hl.f32(0)
    O[pp, q, r] += p["A"][k.x, q, r] * p["C4"][pp, k.x]
    return O, [s["P"], s["Q"], s["R"]]


def nchw_vars():
    return hl.Var("w"), hl.Var("h"), hl.Var("c"), hl.Var("n")


def h_dw(p, s):
    w, h, c, n = nchw_vars()
    k = rdom(3, 3)
    O = hl.Func("O")
    O[w, h, c, n] = hl.f32(0)
    O[w, h, c, n] += p["I"][w + k.x, h + k.y, c, n] * p["F"][k.x, k.y, c]
    return O, [s["W"] - 2, s["H"] - 2, s["C"], s["N"]]


def h_conv(stride):
    def build(p, s):
        w, h, o, n = nchw_vars()
        k = rdom(3, 3, s["C"])
        O = hl.Func("O")
        O[w, h, o, n] = hl.f32(0)
        O[w, h, o, n] += (p["I"][stride * w + k.x, stride * h + k.y, k.z, n] *
                          p["F"][k.x, k.y, k.z, o])
        return O, [conv_out(s["W"], 3, stride), conv_out(s["H"], 3, stride),
                   s["K"], s["N"]]
    return build


def h_pool(size, stride, is_max):
    def build(p, s):
        w, h, c, n = nchw_vars()
        k = rdom(size, size)
        v = p["I"][stride * w + k.x, stride * h + k.y, c, n]
        O = hl.Func("O")
        if is_max:
            O[w, h, c, n] = hl.maximum(v)
        else:
            O[w, h, c, n] = hl.sum(v) / (size * size)
        return O, [conv_out(s["W"], size, stride),
                   conv_out(s["H"], size, stride), s["C"], s["N"]]
    return build


def h_softmax_cols(p, s):
    i, j = hl.Var("i"), hl.Var("j")
    X = p["X"]
    r = rdom(s["M"])
    mx, e, sm, Y = hl.Func("mx"), hl.Func("e"), hl.Func("s"), hl.Func("Y")
    mx[j] = hl.maximum(X[j, r.x])
    e[j, i] = hl.exp(X[j, i] - mx[j])
    sm[j] = hl.sum(e[j, r.x])
    Y[j, i] = e[j, i] / sm[j]
    return Y, [s["N"], s["M"]]


def h_rms(p, s):
    i, j = hl.Var("i"), hl.Var("j")
    X = p["X"]
    r = rdom(s["N"])
    ms, Y = hl.Func("ms"), hl.Func("Y")
    ms[i] = hl.sum(X[r.x, i] * X[r.x, i]) / s["N"]
    Y[j, i] = X[j, i] * (1 / hl.sqrt(ms[i] + hl.f32(1e-6))) * p["w"][j]
    return Y, [s["N"], s["M"]]


def h_lnorm(p, s):
    i, j = hl.Var("i"), hl.Var("j")
    X = p["X"]
    r = rdom(s["N"])
    mean, sq, Y = hl.Func("mean"), hl.Func("sq"), hl.Func("Y")
    mean[i] = hl.sum(X[r.x, i]) / s["N"]
    sq[i] = hl.sum(X[r.x, i] * X[r.x, i]) / s["N"]
    Y[j, i] = (X[j, i] - mean[i]) * (
        1 / hl.sqrt(sq[i] - mean[i] * mean[i] + hl.f32(1e-5)))
    return Y, [s["N"], s["M"]]


def h_jacobi(p, s):
    i, j = hl.Var("i"), hl.Var("j")
    A = p["A"]
    B = hl.Func("B")
    B[j, i] = hl.f32(0.2) * (A[j + 1, i + 1] + A[j + 1, i] + A[j + 1, i + 2] +
                     A[j, i + 1] + A[j + 2, i + 1])
    return B, [s["N"] - 2, s["M"] - 2]


def h_blur(p, s):
    i, j = hl.Var("i"), hl.Var("j")
    A = p["A"]
    bx, B = hl.Func("bx"), hl.Func("B")
    bx[j, i] = (A[j, i] + A[j + 1, i] + A[j + 2, i]) / 3
    B[j, i] = (bx[j, i] + bx[j, i + 1] + bx[j, i + 2]) / 3
    return B, [s["N"] - 2, s["M"] - 2]


HALIDE = {
    "mm_user": h_mm_user, "tc_abc_acd_db": h_tc, "mm2": h_mm2,
    "mm3": h_mm3, "atax": h_atax, "doitgen": h_doitgen, "dw3x3": h_dw,
    "conv3x3s2": h_conv(2), "conv3x3_user": h_conv(1),
    "maxpool_k3s2": h_pool(3, 2, True), "avgpool_k2s2": h_pool(2, 2, False),
    "softmax_cols": h_softmax_cols, "rms_norm_w": h_rms,
    "lnorm_plain": h_lnorm, "jacobi5": h_jacobi, "blur3": h_blur,
}

# The autoschedulers' parameters: one thread, as ein runs here; the
# machine parameters left at each autoscheduler's defaults.
SCHEDULERS = {
    "Adams2019": ("adams2019", {"parallelism": "1"}),
    "Mullapudi2016": ("mullapudi2016", {"parallelism": "1"}),
}


def load_plugins():
    lib = os.path.join(os.path.dirname(hl.__file__), "lib64")
    for plugin, _ in SCHEDULERS.values():
        hl.load_plugin(os.path.join(lib, "libautoschedule_%s.so" % plugin))


def median_ms(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def halide_one(name, s, arrays, ref, repeat, scheduler):
    params, bufs = {}, []
    for k, a in arrays.items():
        params[k] = hl.ImageParam(hl.Float(32), a.ndim, k)
        params[k].set_estimates([(0, e) for e in reversed(a.shape)])
        bufs.append(hl.Buffer(a))
    out, extents = HALIDE[name](params, s)
    out.set_estimates([(0, e) for e in extents])
    target = hl.get_host_target()
    pipe = hl.Pipeline(out)
    plugin, opts = SCHEDULERS[scheduler]
    t0 = time.perf_counter()
    pipe.apply_autoscheduler(target, hl.AutoschedulerParams(scheduler, opts))
    # A Callable: the lightest way to call a JIT-ed pipeline from Python
    # (about 9 us a call here, against 13 for Pipeline.realize).
    call = pipe.compile_to_callable(list(params.values()), target)
    compile_s = time.perf_counter() - t0
    buf = hl.Buffer(hl.Float(32), extents)
    call(*bufs, buf)
    err = rel_err(np.asarray(buf), ref)
    if not err <= 1e-4:
        print("%s failed: max rel. error %.2e" % (scheduler, err))
        return
    ms = median_ms(lambda: call(*bufs, buf), repeat)
    print("%s median %.4f err %.1e compile %.2f" % (scheduler, ms, err,
                                                     compile_s))


def halide(name, sizes, d, repeat, schedulers):
    if hl is None:
        print("halide not installed")
        return
    os.environ.setdefault("HL_NUM_THREADS", "1")
    load_plugins()
    s = sizes_of(sizes)
    arrays = load_inputs(name, sizes, d)
    ref = np.load(os.path.join(d, "ref.npy"))
    for sch in schedulers or list(SCHEDULERS):
        try:
            halide_one(name, s, arrays, ref, repeat, sch)
        except Exception as e:  # the next scheduler still runs
            print("%s failed: %s" % (sch, str(e).splitlines()[0][:200]))
        sys.stdout.flush()


# The chains of matrix products, as numpy's matmul (sgemm) calls.
BLAS = {
    "mm_user": lambda a: a["A"] @ a["B"],
    "mm2": lambda a: (a["A"] @ a["B"]) @ a["C"],
    "mm3": lambda a: (a["A"] @ a["B"]) @ (a["C"] @ a["D"]),
    "doitgen": lambda a: (a["A"].reshape(-1, a["A"].shape[2]) @
                          a["C4"]).reshape(a["A"].shape[0], a["A"].shape[1],
                                           -1),
    "tc_abc_acd_db": lambda a: np.matmul(a["X"], a["Y"]).transpose(0, 2, 1),
}


def blas(name, sizes, d, repeat):
    if name not in BLAS:
        return
    arrays = load_inputs(name, sizes, d)
    ref = np.load(os.path.join(d, "ref.npy"))
    fn = BLAS[name]
    err = rel_err(np.ascontiguousarray(fn(arrays)), ref)
    if not err <= 1e-4:
        print("blas failed: max rel. error %.2e" % err)
        return
    # The transpose of tc_abc_acd_db is a view: copy it, as the
    # kernels write the output in its own layout.
    ms = median_ms(lambda: np.ascontiguousarray(fn(arrays)), repeat)
    print("blas median %.4f err %.1e" % (ms, err))


def main(argv):
    cmd = argv[1]
    if cmd == "gen":
        gen(argv[2], argv[3], argv[4])
    elif cmd == "check":
        err = rel_err(np.load(argv[3]), np.load(os.path.join(argv[2],
                                                             "ref.npy")))
        print("err %.1e" % err)
        return 0 if err <= 1e-4 else 1
    elif cmd == "halide":
        halide(argv[2], argv[3], argv[4], int(argv[5]), argv[6:])
    elif cmd == "blas":
        blas(argv[2], argv[3], argv[4], int(argv[5]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
