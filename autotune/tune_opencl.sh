#!/bin/sh
# Tuned against default and hand schedules on an OpenCL device (issue 20,
# docs/performance.md "ein tune --target opencl on PoCL"): a tune of
# TIME (default 60s) of matmul 127x255x511 and 512^3 and bmm
# 12 x 128x64x128 from bench/kernels.ein, then three interleaved rounds
# of ein run with the default GPU mapping, the hand schedule
# (bench/schedules/opencl/) and the tuned file, printing the device's
# time of the kernels.  Run from the build directory:
#   sh autotune/tune_opencl.sh [TIME [OUTDIR]]
set -u
time=${1:-60s}
out=${2:-tune-opencl}
src=${EIN_SRCDIR:-.}
ein=./ein
k="$src/bench/kernels.ein"
mkdir -p "$out"
# No shipped or earlier schedule for the default's runs.
export EIN_SCHEDULE_PATH="$out/none"
grep 'model name' /proc/cpuinfo | head -1
$ein devices
uptime

tune() { # NAME DEF SIZES
	$ein tune "$k" --def "$2" --sizes "$3" --target opencl --time "$time" \
		-o "$out/$1.sched" --seed 1 2>&1 | grep -v "^trial"
}

# compare NAME DEF SIZES HAND
compare() {
	for round in 1 2 3; do
		for v in default hand tuned; do
			case $v in
			default) s="";;
			hand) s="--schedule $4";;
			tuned) s="--schedule $out/$1.sched";;
			esac
			printf '%s %s round %s: ' "$1" $v $round
			$ein run "$k" --def "$2" --sizes "$3" --fix-sizes \
				--target opencl --no-check $s 2>&1 |
				sed -n 's/^  device: median \([0-9.]*\) ms.*/\1 ms/p'
		done
	done
}

tune mm127 matmul M=127,K=255,N=511
tune mm512 matmul M=512,K=512,N=512
tune bmm bmm Bt=12,M=128,K=64,N=128
uptime
compare mm127 matmul M=127,K=255,N=511 "$src/bench/schedules/opencl/matmul.sched"
compare mm512 matmul M=512,K=512,N=512 "$src/bench/schedules/opencl/matmul.sched"
compare bmm bmm Bt=12,M=128,K=64,N=128 "$src/bench/schedules/opencl/bmm.sched"
uptime
