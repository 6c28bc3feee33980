#!/bin/sh
# make bench-onnx-models: whole models, ein against onnxruntime (issue 24).
#
#   sh bench/onnx_models.sh            # all three models
#   MODELS=bert_layer ROUNDS=3 sh bench/onnx_models.sh
#   PROFILE=1 MODELS=mobilenetv2 ROUNDS=1 sh bench/onnx_models.sh  # + ein's slowest kernels
#   EIN_NUM_THREADS=2 sh bench/onnx_models.sh   # ein on 2 threads (default 1):
#                                               # read the "2 threads" ratio
#
# bench/onnx_models.py (with /usr/bin/python3 and Debian's python3-onnx)
# writes ResNet-50 (batch 1, 224x224), MobileNetV2 and one BERT-base
# encoder layer (sequence 128) with random weights from a fixed seed,
# and an input for each.  onnxruntime comes from PyPI into a virtual
# environment ($ORT_VENV, created on first use: python3 -m venv, pip
# install onnxruntime numpy).  For each model, ROUNDS rounds, interleaved:
# "ein run MODEL.onnx --input x=... --repeat REPEAT --no-check --output"
# (the graph level: fused kernels over one arena; the whole-model
# reference interpreter is skipped, onnxruntime's output is the
# reference here), then onnxruntime on 1 and on 2 threads, each timing
# REPEAT runs after one warm-up.  Prints the medians over the rounds of
# each one's median, their ratios, ein's compile time and arena, and the
# largest difference of the outputs relative to the largest magnitude of
# onnxruntime's (the bar: 1e-3).  A model that ein cannot run prints
# ein's error and the next model follows.  Not part of make check.
set -u
. "$(dirname "$0")/ein_env.sh"
models=${MODELS:-bert_layer mobilenetv2 resnet50}
rounds=${ROUNDS:-3}
repeat=${REPEAT:-20}
venv=${ORT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ein-bench-ort}
here=$(dirname "$0")
# The CPUs this process may use, counted before OMP_NUM_THREADS below
# (nproc obeys it).  ein runs on EIN_NUM_THREADS threads, one unless set
# (its default is every CPU): the "1 thread" ratios compare like with like.
cpus=$(nproc)
EIN_NUM_THREADS=${EIN_NUM_THREADS:-1}
export EIN_NUM_THREADS
# One thread for OpenBLAS too, should a kernel call it.
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS OMP_NUM_THREADS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv" && "$venv/bin/pip" install -q onnxruntime numpy ||
		{ echo "onnx_models.sh: cannot create $venv" >&2; exit 1; }
fi
py=$venv/bin/python
/usr/bin/python3 "$here/onnx_models.py" "$tmp" $models || exit 1

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.*$1 \\([0-9.e+-]*\\).*/\\1/p" | head -1; }

echo "$(grep 'model name' /proc/cpuinfo | head -1 | sed 's/.*: //'),"\
	"$(grep -c ^processor /proc/cpuinfo) CPUs ($cpus available to this process), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "onnxruntime $("$py" -c 'import onnxruntime; print(onnxruntime.__version__)'),"\
	"$rounds rounds, $repeat runs each (ein: at most 2 s of runs, on" \
	"EIN_NUM_THREADS=$EIN_NUM_THREADS threads)"
for m in $models; do
	f=$tmp/$m.onnx x=$tmp/$m.in.x.npy
	: > "$tmp/ein.t"; : > "$tmp/ein.c"; : > "$tmp/ort1.t"; : > "$tmp/ort2.t"
	r=0 failed=
	mkdir -p "$tmp/out"
	while [ $r -lt "$rounds" ]; do
		if ! $ein run "$f" --input x="$x" --repeat "$repeat" --no-check \
			--output "$tmp/out" ${PROFILE:+--profile} ${EIN_FLAGS:-} > "$tmp/ein.log" 2>&1; then
			failed=1
			break
		fi
		field 'run: median' < "$tmp/ein.log" >> "$tmp/ein.t"
		field 'compiled in' < "$tmp/ein.log" >> "$tmp/ein.c"
		"$py" "$here/onnx_ort.py" "$f" "$x" 1 "$repeat" "$tmp/ort.npy" \
			> "$tmp/ort1.log" || exit 1
		field median < "$tmp/ort1.log" >> "$tmp/ort1.t"
		"$py" "$here/onnx_ort.py" "$f" "$x" 2 "$repeat" "$tmp/ort.npy" \
			> "$tmp/ort2.log" || exit 1
		field median < "$tmp/ort2.log" >> "$tmp/ort2.t"
		r=$((r + 1))
	done
	if [ -n "$failed" ]; then
		echo "$m: ein run failed:"
		sed 's/^/  /' "$tmp/ein.log" | tail -5
		continue
	fi
	e=$(median < "$tmp/ein.t")
	c=$(median < "$tmp/ein.c")
	o1=$(echo "$(median < "$tmp/ort1.t") * 1000" | bc -l)
	o2=$(echo "$(median < "$tmp/ort2.t") * 1000" | bc -l)
	arena=$(sed -n 's/.*arena \([0-9]*\) bytes for \([0-9]*\) bytes.*/\1 of \2/p' \
		"$tmp/ein.log")
	err=$("$py" -c 'import sys, numpy as np
a = np.load(sys.argv[1]).astype(np.float64)
b = np.load(sys.argv[2]).astype(np.float64)
print("%.2e" % (np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)))' \
		"$tmp/out/y.npy" "$tmp/ort.npy")
	printf '%s: ein %.2f ms; onnxruntime %.2f ms (1 thread), %.2f ms (2 threads);' \
		"$m" "$e" "$o1" "$o2"
	printf ' ein/ort %.2f (1 thread), %.2f (2 threads)\n' \
		"$(echo "$e / $o1" | bc -l)" "$(echo "$e / $o2" | bc -l)"
	echo "  ein compile $(echo "$c / 1000" | bc -l | cut -c1-6) s;" \
		"arena $arena bytes between kernels;" \
		"onnxruntime peak RSS $(field peak_rss < "$tmp/ort1.log") bytes;" \
		"max |ein - ort| / max |ort| = $err"
	# PROFILE=1: ein's kernels of the last round, slowest first.
	[ -n "${PROFILE:-}" ] && sed -n '/ms per run/,/total/p' "$tmp/ein.log" |
		sort -k2 -g -r | head -"${PROFILE_TOP:-12}"
done
