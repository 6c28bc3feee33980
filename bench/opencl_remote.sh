#!/bin/bash
# Issue 20 on a machine with a GPU and its vendor's OpenCL driver but
# none of ein's packages: ein's OpenCL tests and the OpenCL benchmark,
# with schedules tuned there, from the bundle that bench/opencl_bundle.sh
# packs (EIN_BUNDLE, default .dev; programs and libraries built on
# Debian 12).  Run in the source tree:
#     bash bench/opencl_remote.sh
# PHASES picks among "diag tests tune bench" (default: tests tune bench):
#   diag:  ein run under a 6 GiB address-space limit, then without one
#          (NVIDIA's OpenCL finds no platform under the limit; see
#          docs/tuning.md, "Measuring safely");
#   tests: tests/opencl.test, check_opencl and the AOT example;
#   tune:  bench/opencl_tune.sh on a copy of bench/ (TUNE_TIME per shape,
#          default 30s; TUNE_DEFS, TUNE_SHAPES as DEFS and SHAPES there;
#          TUNE_LIMIT seconds in all);
#   bench: bench --only opencl (BENCH_ARGS, default --quick) with those
#          tuned schedules.
# The vendor's ICD is found by its library (libnvidia-opencl.so*) and
# named to the carried loader through OCL_ICD_VENDORS.  Every phase has
# a time limit; logs and the tuned schedules go to $OUT (default
# /tmp/out).  Exit status 1 when a phase failed (a skipped test, since a
# device is expected here, and any shape whose tune failed count too),
# after every phase has run.  docs/performance.md, "OpenCL on an NVIDIA H200", has what
# it measured.
set -u
R=$(pwd)
D=${EIN_BUNDLE:-$R/.dev}
O=${OUT:-/tmp/out}
mkdir -p "$O"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }

el setup
mkdir -p /tmp/dl && (cd /tmp/dl && xz -dc -T0 "$D/libs.tar.xz" | tar xf -) || { echo "libs: extract failed"; exit 1; }
export LD_LIBRARY_PATH=/tmp/dl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:/tmp/dl/fallback
export LIBRARY_PATH=/tmp/dl/lib C_INCLUDE_PATH=$D/include
{
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	uname -a; grep -m1 'model name' /proc/cpuinfo; nproc
	ls /etc/OpenCL/vendors 2>&1; cat /etc/OpenCL/vendors/* 2>&1
	which gcc cc make 2>&1
} > "$O/env.txt" 2>&1
icd=$(find /usr/local/nvidia /usr/lib /usr/lib64 /lib /opt /usr/local/cuda* \
	-name 'libnvidia-opencl.so*' 2>/dev/null | sort | head -1)
echo "nvidia opencl: ${icd:-none}" >> "$O/env.txt"
if [ -n "$icd" ]; then
	mkdir -p /tmp/icd && echo "$icd" > /tmp/icd/nvidia.icd
	export OCL_ICD_VENDORS=/tmp/icd
fi
cat "$O/env.txt"
ln -sf "$D/bin/ein" "$D/rt/ein"
ein=$D/bin/ein
if ! $ein devices > "$O/devices.txt" 2>&1 || ! grep -q "opencl:" "$O/devices.txt"; then
	cat "$O/devices.txt"
	echo "no OpenCL device: stop"
	find /usr/local/nvidia -maxdepth 3 2>/dev/null | head -50
	ldconfig -p | grep -i -E 'nvidia|opencl' | head
	exit 1
fi
cat "$O/devices.txt"
command -v cc > /dev/null || { command -v gcc > /dev/null && export CC=gcc; }

# Every phase that fails (a skip included: this script runs where a GPU
# is) makes the exit status 1, after all phases have run.
failed=0
phase() { echo "$2 exit $1" | tee -a "$3"; [ "$1" -eq 0 ] || failed=1; }
has() { case " ${PHASES:-tests tune bench} " in *" $1 "*) return 0;; esac; return 1; }
if has diag; then
	el "diag: a 6 GiB address-space limit (as ein tune's children had: the tuner plus --mem-limit 4G) around a GPU run"
	(ulimit -v $((6 * 1024 * 1024)); timeout 60 $ein run "$R/tests/kernels/matmul.ein" --target opencl --sizes M=64,N=64,K=64 2>&1 | tail -3; echo "exit ${PIPESTATUS[0]}") | tee "$O/diag.log"
	(timeout 60 $ein run "$R/tests/kernels/matmul.ein" --target opencl --sizes M=64,N=64,K=64 2>&1 | tail -2) | tee -a "$O/diag.log"
fi
if has tests; then
el "tests/opencl.test"
(cd "$D/rt" && EIN_SRCDIR=$R timeout 150 bash "$R/tests/opencl.test") > "$O/opencl_test.log" 2>&1
phase $? opencl.test "$O/opencl_test.log"
grep -E "^FAIL|^SKIP" "$O/opencl_test.log" | head -20
el "check_opencl"
(cd "$R" && timeout 45 "$D/bin/check_opencl") > "$O/unit.log" 2>&1
phase $? check_opencl "$O/unit.log"; tail -3 "$O/unit.log"
(cd "$R" && timeout 20 "$D/bin/opencl_example") > "$O/example.log" 2>&1
phase $? opencl_example "$O/example.log"; tail -3 "$O/example.log"

fi
if has tune; then
el "tune (GPU)"
rm -rf /tmp/gb && cp -r "$R/bench" /tmp/gb && rm -rf /tmp/gb/schedules/opencl/tuned
(cd "$R" && EIN=$ein TIME=${TUNE_TIME:-30s} DEFS="${TUNE_DEFS:-matmul bmm}" \
	SHAPES="${TUNE_SHAPES:-1024x1024x1024 128x768x3072 12x128x64x128}" \
	timeout ${TUNE_LIMIT:-130} sh /tmp/gb/opencl_tune.sh) > "$O/tune.log" 2>&1
st=$?
# opencl_tune.sh goes on past a failed tune and says so.
grep -q "ein tune failed" "$O/tune.log" && st=1
phase $st tune "$O/tune.log"
(cd /tmp/gb/schedules/opencl && tar czf "$O/gpu_tuned.tgz" tuned) 2>/dev/null
for f in /tmp/gb/schedules/opencl/tuned/*.sched; do echo "== $f"; cat "$f"; done 2>/dev/null | tee -a "$O/tune.log" | head -60

fi
if has bench; then
el "bench --only opencl"
(cd "$R" && timeout ${BENCH_LIMIT:-150} "$D/bin/bench" --only opencl ${BENCH_ARGS:---quick} --dir /tmp/gb) > "$O/bench.md" 2>&1
phase $? bench "$O/bench.md"
cat "$O/bench.md"
fi
el done
exit $failed
