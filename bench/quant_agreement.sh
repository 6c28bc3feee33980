#!/bin/sh
# Top-1 agreement of quantised ResNet-50 with the float model on many
# random inputs (issue 25's bar: >= 99% on 1,000), in batches.
#
#   sh bench/quant_agreement.sh
#   N=1000 BATCH=250 SAMPLES=4 CAL=minmax ACT_BITS=7 PROFILE=p.json \
#       QUANT_TMP=/tmp/dir sh bench/quant_agreement.sh
#
# The model is bench/onnx_models.py's ResNet-50 v1.5 (random weights from
# a fixed seed), with its batch made a size, as in bench/quant_models.sh.
# The profile is PROFILE, else ein profile on SAMPLES random inputs
# (--bins 2048, another seed than the inputs below).  Then N inputs,
# uniform in [-1, 1), in batches of BATCH (batch b drawn from seed 2511 +
# b, so batch 0 is bench/quant_models.sh's accuracy batch when N equals
# its N): each batch runs through the float model and through the int8
# one (ein run --quantize, calibration CAL, activations of ACT_BITS bits,
# default 8, the graph level), the logits
# kept.  Prints each batch's agreement as it finishes and, at the end,
# the total: top-1 agreement, the float model's top-1/top-2 margin
# (relative to the largest logit) at the disagreements, and the largest
# logit error relative to the largest float logit.  Each batch compiles
# both models again (ein run has no compile cache): pick BATCH as large
# as the memory allows (BATCH=250 needs about 4 GB).
# One thread (EIN_NUM_THREADS=1); not part of make check.
set -u
. "$(dirname "$0")/ein_env.sh"
n=${N:-1000}
batch=${BATCH:-250}
samples=${SAMPLES:-4}
cal=${CAL:-minmax}
py=/usr/bin/python3
here=$(dirname "$0")
EIN_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export EIN_NUM_THREADS OPENBLAS_NUM_THREADS OMP_NUM_THREADS
tmp=${QUANT_TMP:-$(mktemp -d)}
[ -n "${QUANT_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"

fail() {
	echo "quant_agreement.sh: $*" >&2
	exit 1
}

$py "$here/onnx_models.py" "$tmp" resnet50 > /dev/null || fail "onnx_models.py"
m=$tmp/resnet50
$py - "$m" <<'EOF' || fail "the batch-N model"
import sys, onnx
m = sys.argv[1]
model = onnx.load(m + ".onnx")
for v in list(model.graph.input) + list(model.graph.output):
    v.type.tensor_type.shape.dim[0].dim_param = "N"
onnx.save(model, m + "_n.onnx")
EOF
echo "$(grep 'model name' /proc/cpuinfo | head -1 | sed 's/.*: //'),"\
	"$(nproc) CPUs available, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
if [ -n "${PROFILE:-}" ]; then
	cp "$PROFILE" "$tmp/p.json" || fail "PROFILE=$PROFILE"
else
	$ein profile "$m.onnx" --samples "$samples" --bins 2048 -o "$tmp/p.json" \
		> "$tmp/profile.log" 2>&1 || fail "ein profile: $(tail -3 "$tmp/profile.log")"
fi

b=0
done_n=0
while [ "$done_n" -lt "$n" ]; do
	k=$batch
	[ $((done_n + k)) -le "$n" ] || k=$((n - done_n))
	d=$tmp/b$b
	mkdir -p "$d"
	$py -c "import sys, numpy as np; np.save(sys.argv[1], np.random.RandomState(2511 + int(sys.argv[2])).uniform(-1, 1, (int(sys.argv[3]), 3, 224, 224)).astype(np.float32))" \
		"$d/x.npy" "$b" "$k" || fail "inputs of batch $b"
	float_and_int8 "${m}_n.onnx" "$k" "$d/x.npy" "$tmp/p.json" "$cal" \
		"$d/f" "$d/q" "batch $b"
	rm -f "$d/x.npy"
	$py - "$d" "$k" <<'EOF'
import glob, sys, numpy as np
d, k = sys.argv[1], int(sys.argv[2])
f, q = (np.load(glob.glob("%s/%s/*.npy" % (d, s))[0]).reshape(k, -1)
        for s in ("f", "q"))
print("batch %s: %d inputs, top-1 agreement %d" % (d.rsplit("/b", 1)[1], k,
      (f.argmax(1) == q.argmax(1)).sum()), flush=True)
EOF
	done_n=$((done_n + k))
	b=$((b + 1))
done
$py - "$tmp" "$b" <<'EOF'
import glob, sys, numpy as np
d, nb = sys.argv[1], int(sys.argv[2])
f, q = (np.concatenate([np.load(glob.glob("%s/b%d/%s/*.npy" % (d, i, s))[0])
        .reshape(-1, np.load(glob.glob("%s/b%d/%s/*.npy" % (d, i, s))[0]).shape[-1])
        for i in range(nb)]) for s in ("f", "q"))
agree = f.argmax(1) == q.argmax(1)
top2 = np.sort(f, 1)[:, -2:]
margin = (top2[:, 1] - top2[:, 0]) / np.abs(f).max()
print("total: top-1 agreement %d/%d (%.2f%%); max |int8 - float| / max |float| %.3f"
      % (agree.sum(), len(f), 100 * agree.mean(), np.abs(f - q).max() / np.abs(f).max()))
if (~agree).any():
    print("float top-1/top-2 margins at the disagreements (relative to max |float|): %s"
          % " ".join("%.4f" % v for v in np.sort(margin[~agree])))
EOF
