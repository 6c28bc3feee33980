#!/bin/sh
# Quantised ResNet-50 (or the BERT layer) against ein's float build
# (issue 25), one thread.
#
#   sh bench/quant_models.sh
#   N=16 SAMPLES=4 ROUNDS=3 REPEAT=3 CAL=minmax ACT_BITS=7 BEFORE=1 \
#       PROFILE=p.json sh bench/quant_models.sh
#   MODEL=bert_layer N=4 sh bench/quant_models.sh
#
# bench/onnx_models.py writes MODEL (default resnet50: ResNet-50 v1.5,
# batch 1, 224x224; bert_layer: a BERT-base encoder layer, sequence 128;
# random weights from a fixed seed) and its input; this script also
# writes a copy whose batch is a size N (the same graph and weights; a
# Reshape's constant batch of 1 becomes 0, ONNX's "as the input"), for
# the accuracy.
# Then:
# - ein profile on SAMPLES batches of random inputs (uniform in [-1, 1),
#   --bins 2048) and ein quantize (calibration CAL, default minmax) of
#   both models (the profile is keyed by ONNX names, which they share);
# - latency: ROUNDS interleaved rounds of "ein run MODEL.onnx" (the
#   float model at the graph level, automatic schedules) and "ein run
#   MODEL.onnx --quantize p.json" (the int8 model at the graph level,
#   automatic schedules), and with BEFORE=1 also "ein run MODEL.q.ein
#   --weights ..." (the int8 model as one definition, as before the graph
#   level took int8 models: its ~200 statements get the default
#   schedule), each --repeat REPEAT --no-check, EIN_NUM_THREADS=1;
#   prints the medians over the rounds of each one's median and their
#   ratios;
# - accuracy: the batch-N model in float and in int8 (both at the graph
#   level, whose int8 outputs equal the one definition's bit for bit:
#   tests/quant.test) on the same N random inputs (another seed than the
#   profile's), top-1 agreement and the largest difference of the logits
#   relative to the largest float logit (for the BERT layer, whose output
#   is no classification, the largest and the root-mean-square
#   difference relative to the largest float output);
# - where $ORT_PY (default: bench/onnx_models.sh's venv) has onnxruntime
#   and onnx: bench/quant_ort.py, onnxruntime's quantize_static of the
#   same model (QDQ, per-channel int8 weights, minmax on SAMPLES random
#   inputs), its float and int8 latencies on one thread (REPEAT x ROUNDS
#   runs) and its own top-1 agreement on the same N inputs.
# Not part of make check (minutes on a loaded machine).
set -u
. "$(dirname "$0")/ein_env.sh"
n=${N:-16}
samples=${SAMPLES:-4}
rounds=${ROUNDS:-3}
repeat=${REPEAT:-3}
cal=${CAL:-minmax}
before=${BEFORE:-0}
py=/usr/bin/python3
here=$(dirname "$0")
EIN_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export EIN_NUM_THREADS OPENBLAS_NUM_THREADS OMP_NUM_THREADS
tmp=${QUANT_TMP:-$(mktemp -d)}
[ -n "${QUANT_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "quant_models.sh: $*" >&2
	exit 1
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.*$1 \\([0-9.e+-]*\\).*/\\1/p" | head -1; }
now() { date +%s.%N; }

model=${MODEL:-resnet50}
case $model in
resnet50|bert_layer) ;;
*) fail "MODEL=$model: resnet50 or bert_layer" ;;
esac
$py "$here/onnx_models.py" "$tmp" "$model" > /dev/null || fail "onnx_models.py"
m=$tmp/$model
$py - "$m" "$n" <<'EOF' || fail "the batch-N model"
import sys, numpy as np, onnx
from onnx import numpy_helper
m, n = sys.argv[1], int(sys.argv[2])
model = onnx.load(m + ".onnx")
for v in list(model.graph.input) + list(model.graph.output):
    v.type.tensor_type.shape.dim[0].dim_param = "N"
shapes = {node.input[1] for node in model.graph.node if node.op_type == "Reshape"}
for init in model.graph.initializer:
    if init.name in shapes:
        a = numpy_helper.to_array(init).copy()
        if a.size and a[0] == 1:
            a[0] = 0
            init.CopyFrom(numpy_helper.from_array(a, init.name))
onnx.save(model, m + "_n.onnx")
dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim[1:]]
np.save(m + ".acc.npy", np.random.RandomState(2511).uniform(
    -1, 1, [n] + dims).astype(np.float32))
EOF

echo "$(grep 'model name' /proc/cpuinfo | head -1 | sed 's/.*: //'),"\
	"$(grep -c ^processor /proc/cpuinfo) CPUs ($(nproc) available to this process), load average $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now)
# PROFILE=FILE: a profile of this model written before (the same seed and
# weights), to measure again without profiling again.
if [ -n "${PROFILE:-}" ]; then
	cp "$PROFILE" "$tmp/p.json" || fail "PROFILE=$PROFILE"
else
	$ein profile "$m.onnx" --samples "$samples" --bins 2048 -o "$tmp/p.json" \
		> "$tmp/profile.log" 2>&1 || fail "ein profile: $(tail -3 "$tmp/profile.log")"
fi
t1=$(now)
$ein quantize "$m.onnx" --profile "$tmp/p.json" --calibration "$cal" \
	${act_bits:+--activation-bits "$act_bits"} \
	-o "$m.q.ein" --weights "$m.q.weights" > /dev/null || fail "ein quantize"
t2=$(now)
echo "profile ($samples samples) $(echo "$t1 - $t0" | bc -l | cut -c1-6) s, quantize $(echo "$t2 - $t1" | bc -l | cut -c1-5) s;" \
	"int8 statements: $(grep -c "= uint8(clamp(qmul(" "$m.q.ein") requantisations," \
	"$(grep -c "^    [a-z_0-9]* *([^)]*) = ([a-z_0-9]*_q[0-9]*(" "$m.q.ein") dequantisations"

: > "$tmp/f.t"; : > "$tmp/q.t"; : > "$tmp/f.c"; : > "$tmp/q.c"
: > "$tmp/b.t"
r=0
while [ $r -lt "$rounds" ]; do
	$ein run "$m.onnx" --input x="$m.in.x.npy" --repeat "$repeat" \
		--no-check > "$tmp/f.log" 2>&1 || fail "float run: $(tail -3 "$tmp/f.log")"
	$ein run "$m.onnx" --quantize "$tmp/p.json" --calibration "$cal" \
		${act_bits:+--activation-bits "$act_bits"} \
		--input x="$m.in.x.npy" --repeat "$repeat" --no-check \
		> "$tmp/q.log" 2>&1 || fail "int8 run: $(tail -3 "$tmp/q.log")"
	if [ "$before" = 1 ]; then
		$ein run "$m.q.ein" --weights "$m.q.weights" \
			--input x="$m.in.x.npy" --repeat "$repeat" --no-check \
			> "$tmp/b.log" 2>&1 ||
			fail "int8 run (one definition): $(tail -3 "$tmp/b.log")"
		field 'run: median' < "$tmp/b.log" >> "$tmp/b.t"
	fi
	field 'run: median' < "$tmp/f.log" >> "$tmp/f.t"
	field 'run: median' < "$tmp/q.log" >> "$tmp/q.t"
	field 'compiled in' < "$tmp/f.log" >> "$tmp/f.c"
	field 'compiled in' < "$tmp/q.log" >> "$tmp/q.c"
	r=$((r + 1))
done
f=$(median < "$tmp/f.t")
q=$(median < "$tmp/q.t")
printf '%s (batch 1, 1 thread): float %.2f ms, int8 (%s, %s-bit activations, graph level) %.2f ms; float / int8 %.2f;' \
	"$model" "$f" "$cal" "${act_bits:-8}" "$q" "$(echo "$f / $q" | bc -l)"
printf ' compile %.1f s and %.1f s\n' "$(echo "$(median < "$tmp/f.c") / 1000" | bc -l)" \
	"$(echo "$(median < "$tmp/q.c") / 1000" | bc -l)"
if [ "$before" = 1 ]; then
	b=$(median < "$tmp/b.t")
	printf 'int8 as one definition (before): %.2f ms; float / it %.2f; it / int8 at the graph level %.2f\n' \
		"$b" "$(echo "$f / $b" | bc -l)" "$(echo "$b / $q" | bc -l)"
fi

float_and_int8 "${m}_n.onnx" "$n" "$m.acc.npy" "$tmp/p.json" "$cal" \
	"$tmp/af" "$tmp/aq" "accuracy"
$py - "$tmp" "$n" "$model" <<'EOF'
import glob, sys, numpy as np
d, n, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = [glob.glob("%s/%s/*.npy" % (d, k)) for k in ("af", "aq")]
a, b = (np.load(f[0]).reshape(n, -1) for f in out)
big = np.abs(a).max()
if model == "resnet50":
    print("top-1 agreement %d/%d (%.1f%%); max |int8 - float| / max |float| %.3f"
          % ((a.argmax(1) == b.argmax(1)).sum(), n,
             100 * np.mean(a.argmax(1) == b.argmax(1)),
             np.abs(a - b).max() / big))
else:
    print("%d inputs: max |int8 - float| / max |float| %.3f; rms(int8 - float)"
          " / max |float| %.4f" % (n, np.abs(a - b).max() / big,
                                   np.sqrt(np.mean((a - b) ** 2)) / big))
EOF

# onnxruntime's quantize_static, where a Python with onnxruntime and onnx
# is at hand ($ORT_PY, default the venv of bench/onnx_models.sh, which
# needs "pip install onnx" beside onnxruntime): its float and int8
# model on one thread, and its own accuracy on the same N inputs.
ort_py=${ORT_PY:-${XDG_CACHE_HOME:-$HOME/.cache}/ein-bench-ort/bin/python}
if "$ort_py" -c 'import onnxruntime.quantization' 2> /dev/null; then
	"$ort_py" "$here/quant_ort.py" "$m.onnx" "$m.in.x.npy" "$m.acc.npy" \
		"$samples" "$((repeat * rounds))" "$tmp" > "$tmp/ort.log" 2>&1 ||
		fail "quant_ort.py: $(tail -3 "$tmp/ort.log")"
	of=$(echo "$(field float_median < "$tmp/ort.log") * 1000" | bc -l)
	oq=$(echo "$(field int8_median < "$tmp/ort.log") * 1000" | bc -l)
	printf 'onnxruntime %s (1 thread): float %.2f ms, int8 (quantize_static, QDQ, minmax) %.2f ms; float / int8 %.2f; ein int8 / ort int8 %.2f\n' \
		"$("$ort_py" -c 'import onnxruntime; print(onnxruntime.__version__)')" \
		"$of" "$oq" "$(echo "$of / $oq" | bc -l)" "$(echo "$q / $oq" | bc -l)"
	if [ "$model" = resnet50 ]; then
		sed -n 's/^top1 \([0-9]*\) \([0-9]*\)/onnxruntime int8 top-1 agreement with its float model \1\/\2/p' \
			"$tmp/ort.log"
	fi
	sed -n 's/^maxerr \([0-9.e+-]*\) rmserr \([0-9.e+-]*\)/onnxruntime int8 against its float model: max |int8 - float| \/ max |float| \1, rms \/ max |float| \2/p' \
		"$tmp/ort.log"
else
	echo "onnxruntime's quantize_static: skipped ($ort_py has no onnxruntime.quantization; ORT_PY=...)"
fi
