#!/bin/sh
# Streamed kernels on aligned and unaligned outputs (bench/stream_align.c):
# layernorm 4096x1024 and softmax 4096x4096 of examples/ with the shipped
# schedules (schedules/x86_64-avx512), one thread, output at offset 0 and 16 bytes.
#
#     sh bench/stream_align.sh [ROUNDS]      from a built source tree
#
# LIBDIR (default: .libs) picks the libein.so to link at run time, so that
# two builds can be compared in one session.
set -e
cd "$(dirname "$0")/.."
rounds=${1:-21}
libdir=${LIBDIR:-.libs}
out=${TMPDIR:-/tmp}/stream_align.$$
trap 'rm -f "$out"' EXIT
${CC:-cc} -O2 -Iinclude -o "$out" bench/stream_align.c -L.libs -lein -lm
grep 'model name' /proc/cpuinfo | head -1
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in "layernorm 4096 1024 3" "softmax 4096 4096 1"; do
	set -- $k
	LD_LIBRARY_PATH=$libdir "$out" "examples/$1/$1.ein" "$1" \
		"schedules/x86_64-avx512/$1.sched" "$2" "$3" "$4" "$rounds"
done
