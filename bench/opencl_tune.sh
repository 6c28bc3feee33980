#!/bin/sh
# The "tuned" column of bench --only opencl (issue 20): a tune of TIME
# (default 60s) per shape of the OpenCL benchmark (bench/opencl.c,
# bench/opencl_ops.c), one per line below, on the OpenCL device
# (EIN_OPENCL_DEVICE, else the first GPU, else the first device):
#   ein tune bench/kernels.ein --def DEF --sizes SIZES --target opencl \
#       --time 60s -o bench/schedules/opencl/tuned/DEF.SIZES.sched --log ...
# (SIZES in the file name: the values joined by x, as ein tune names its
# files); each file's tuned-by header repeats the command, the logs are
# gzipped beside them.  DEFS="matmul bmm" tunes only those definitions,
# SHAPES="128x768x3072" only those sizes; TIMEOUT=30s passes --timeout
# (a candidate's limit, PoCL's build of the kernel included; default
# 10s).
# Run from the build directory; not part of make check.
set -u
. "$(dirname "$0")/ein_env.sh"
here=$(dirname "$0")
out=$here/schedules/opencl/tuned
time=${TIME:-60s}
mkdir -p "$out"
grep 'model name' /proc/cpuinfo | head -1
$ein devices
while read -r def sizes; do
	case " ${DEFS:-$def} " in *" $def "*) ;; *) continue ;; esac
	tag=$(echo "$sizes" | sed 's/[A-Za-z]*=//g; s/,/x/g')
	case " ${SHAPES:-$tag} " in *" $tag "*) ;; *) continue ;; esac
	f=$out/$def.$tag.sched
	echo "$(date -u +%H:%M:%S) tune $def $sizes (load $(cut -d' ' -f1 /proc/loadavg))"
	$ein tune "$here/kernels.ein" --def "$def" --sizes "$sizes" \
		--target opencl --time "$time" ${TIMEOUT:+--timeout $TIMEOUT} -o "$f" \
		--log "$out/$def.$tag.log" --quiet ||
		echo "$def $sizes: ein tune failed"
	gzip -f "$out/$def.$tag.log" 2>/dev/null
done <<LIST
matmul M=1024,K=1024,N=1024
matmul M=127,K=255,N=511
matmul M=128,K=768,N=768
matmul M=128,K=768,N=3072
matmul M=128,K=3072,N=768
bmm Bt=12,M=128,K=64,N=128
conv3x3 N=1,C=64,H=56,W=56,F=64
conv3x3 N=1,C=256,H=14,W=14,F=256
softmax N=4096,M=4096
layernorm N=4096,D=1024
LIST
echo "$(date -u +%H:%M:%S) done (load $(cut -d' ' -f1 /proc/loadavg))"
