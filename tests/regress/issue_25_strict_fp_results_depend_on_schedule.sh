# Under --strict-fp ein's float32 exp was the C library's expf only in
# scalar code: LLVM's loop vectoriser turned it into libmvec's
# _ZGVdN8v_expf on AVX2 hosts, whose results differ from expf in the last
# bit for about half of all inputs (538 of 1,003 here).  So a strict
# kernel's results depended on its schedule (a quantised ResNet's softmax
# differed in 69 of 320 probabilities between two schedules).  Now a
# strict module never calls libmvec: softmax under --strict-fp equals,
# bit for bit, expf-and-divide computed in Python with the C library's
# expf (sequential float32 sums: strict keeps the source's order), with
# the default schedule and with a vector one.
py=/usr/bin/python3
$py -c "import numpy" 2> /dev/null || { echo "no numpy"; exit 77; }
$py - <<'PY' || exit 1
import numpy as np
x = np.random.default_rng(25).uniform(-20, 20, (4, 203)).astype(np.float32)
np.save("X.npy", x)
PY
printf 'ein-schedule 1\ne: vectorize j 8\nY: vectorize j 8\n' > vec.sched
mkdir -p default vector
EIN_SCHEDULE_PATH=/nonexistent "$ein" run "$src/examples/softmax/softmax.ein" \
	--sizes M=4,N=203 --strict-fp --no-auto --input X=X.npy \
	--output default > log 2>&1 || { cat log; exit 1; }
"$ein" run "$src/examples/softmax/softmax.ein" --sizes M=4,N=203 \
	--strict-fp --schedule vec.sched --input X=X.npy --output vector \
	> log 2>&1 || { cat log; exit 1; }
$py - <<'PY'
import ctypes, ctypes.util, sys
import numpy as np
libm = ctypes.CDLL(ctypes.util.find_library("m"))
libm.expf.restype = ctypes.c_float
libm.expf.argtypes = [ctypes.c_float]
x = np.load("X.npy")
e = np.empty_like(x)
y = np.empty_like(x)
for i in range(x.shape[0]):
    mx = np.float32(x[i].max())
    for j in range(x.shape[1]):
        e[i, j] = libm.expf(float(np.float32(x[i, j] - mx)))
    s = np.float32(0)
    for j in range(x.shape[1]):
        s = np.float32(s + e[i, j])
    y[i] = e[i] / s
bad = 0
for name in ("default", "vector"):
    got = np.load(name + "/Y.npy")
    n = int((got.view(np.uint32) != y.view(np.uint32)).sum())
    if n:
        print(f"{name} schedule: {n} of {y.size} values differ from expf's")
        bad = 1
sys.exit(bad)
PY
