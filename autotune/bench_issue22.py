"""numpy peers of autotune/bench_issue22.sh: the median time in ms of
numpy.einsum (optimize=True: TTGT through tensordot and OpenBLAS) and of
numpy.matmul (OpenBLAS) on the issue 22 kernels, float32, one thread.

    /usr/bin/python3 autotune/bench_issue22.py KERNEL
"""
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402


def median_ms(fn, min_time=1.0, max_calls=200):
    fn()
    times = []
    start = time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < min_time and
                             len(times) < max_calls):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2] * 1e3


def rand(*shape):
    return np.random.default_rng(1).uniform(-1, 1, shape).astype(np.float32)


def main(kernel):
    if kernel == "scores":
        q, k = rand(12, 128, 64), rand(12, 128, 64)
        peers = {
            "numpy.einsum": lambda: np.einsum("bid,bjd->bij", q, k,
                                              optimize=True),
            "numpy.matmul (OpenBLAS)": lambda: np.matmul(
                q, k.transpose(0, 2, 1)),
        }
    elif kernel == "tccg":
        x, y = rand(16, 16, 16, 16), rand(16, 16, 16, 16)
        peers = {
            "numpy.einsum (TTGT)": lambda: np.einsum(
                "ijma,mkbc->abcijk", x, y, optimize=True),
        }
    elif kernel == "matmul":
        a, b = rand(1024, 1024), rand(1024, 1024)
        peers = {
            "numpy.einsum": lambda: np.einsum("ik,kj->ij", a, b,
                                              optimize=True),
            "numpy.matmul (OpenBLAS)": lambda: np.matmul(a, b),
        }
    else:
        raise SystemExit("unknown kernel " + kernel)
    for name, fn in peers.items():
        print("%s\t%.4f" % (name, median_ms(fn)))


if __name__ == "__main__":
    main(sys.argv[1])
