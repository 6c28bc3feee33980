#!/bin/sh
# Tune every definition of examples/ with "ein tune" and write the
# schedules that ship under schedules/<target>/ (one file per definition,
# named <def>.<sizes>.sched, whose headers record the command, the figure
# measured and the default's).  Run on an otherwise idle machine:
#
#   sh autotune/tune_examples.sh [TIME] [OUTDIR] [DEF...]
#   sh autotune/tune_examples.sh 60s schedules
#   sh autotune/tune_examples.sh 60s schedules batched_matmul
#
# With DEFs, only those definitions are tuned.
# The tuning logs go to OUTDIR/logs/, kept out of the installed tree.
set -eu
ein=${EIN:-./ein}
time=${1:-60s}
out=${2:-schedules}
shift 2 2>/dev/null || shift $#
only=" $* "
target=$($ein version | sed -n 's/^host target: //p')
mkdir -p "$out/$target" "$out/logs"

# file, definition, sizes: the shapes the benchmarks use (ResNet-50's
# first 3x3 layer, issue 5's softmax and layernorm).
while read -r file def sizes; do
	case $file in ''|'#'*) continue ;; esac
	case $only in "  "|*" $def "*) ;; *) continue ;; esac
	# ein tune's own naming: the common value when all sizes are equal.
	values=$(echo "$sizes" | sed 's/[A-Za-z]*=//g; s/,/ /g')
	name=$def.$(echo "$values" | awk '{ s = $1; for (i = 2; i <= NF; i++)
		if ($i != $1) { s = $0; gsub(/ /, "x", s); break } print s }')
	echo "== $def $sizes"
	EIN_SCHEDULE_PATH=/nonexistent $ein tune "examples/$file" --def "$def" \
		--sizes "$sizes" --time "$time" --seed 1 --quiet \
		-o "$out/$target/$name.sched" --log "$out/logs/$name.log"
	grep '^measured' "$out/$target/$name.sched"
done <<'LIST'
matmul/matmul.ein matmul M=1024,K=1024,N=1024
batched_matmul/batched_matmul.ein batched_matmul B=8,M=128,K=128,N=128
matmul_bias_relu/matmul_bias_relu.ein matmul_bias_relu M=256,K=512,N=512
contraction/contraction.ein contract_adc_db A=64,D=128,C=64,B=128
conv2d/conv2d.ein conv2d_nchw N=1,C=64,H=58,W=58,K=64
pooling/pooling.ein maxpool2x2 N=1,C=64,H=112,W=112
pooling/pooling.ein maxpool3x3 N=1,C=64,H=114,W=114
softmax/softmax.ein softmax M=4096,N=4096
layernorm/layernorm.ein layernorm M=4096,N=1024
gelu/gelu.ein gelu_tanh N=16777216
gelu/gelu.ein gelu_erf N=16777216
LIST
