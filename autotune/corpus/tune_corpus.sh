#!/bin/sh
# Tune every definition of corpus.ein at the shapes below, briefly, and
# keep the logs (every measured trial: its schedule and its time) in
# logs/DEF.SHAPE.log, the training data of the cost model
# (autotune/train_cost.c, docs/tuning.md "The cost model").
#
#   sh autotune/corpus/tune_corpus.sh [EIN [SECONDS]]
#
# EIN: the ein to tune with (default ./ein); SECONDS: the search time of
# each run (default 40).  Runs one tuning at a time.  TARGET=NAME (any
# name ein tune --target takes, e.g. x86_64-avx2) tunes that target's
# code and keeps its logs in logs/NAME/; without it the host's code is
# tuned and the logs go to logs/ (the AVX-512 corpus of 2026-11-25).
set -e
cd "$(dirname "$0")/../.."
EIN=${1:-./ein}
SECONDS_PER_RUN=${2:-40}
DIR=autotune/corpus
LOGS=$DIR/logs${TARGET:+/$TARGET}
mkdir -p "$LOGS"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
while read -r def sizes; do
	case "$def" in ''|\#*) continue ;; esac
	log="$LOGS/$def.$(echo "$sizes" | tr -cd '0-9x,' | tr ',' 'x').log"
	[ -f "$log" ] || [ -f "$log.xz" ] && continue
	echo "== $def $sizes" >&2
	"$EIN" tune "$DIR/corpus.ein" --def "$def" --sizes "$sizes" \
		${TARGET:+--target "$TARGET"} \
		--time "${SECONDS_PER_RUN}s" --min-time 50ms --timeout 5s \
		--quiet --log "$log" -o "$OUT/$def.sched" || echo "   failed" >&2
done <<'SHAPES'
gemm_nn M=256,N=256,K=256
gemm_nn M=512,N=384,K=128
gemm_tn M=256,N=256,K=256
gemm_nt M=192,N=320,K=256
bmm P=8,M=96,N=96,K=96
contract_abc A=32,B=64,C=64,D=64
gemv M=2048,N=1024
mm2 M=128,N=128,K=128,L=128
conv3x3 N=1,C=32,K=32,H=30,W=30
conv3x3 N=1,C=16,K=64,H=58,W=58
conv1x1 N=1,C=64,K=64,H=28,W=28
depthwise3x3 N=1,C=64,H=58,W=58
maxpool2 N=1,C=64,H=112,W=112
avgpool3 N=1,C=32,H=58,W=58
rowsum M=1024,N=1024
colsum M=1024,N=1024
softmax_rows M=512,N=1024
softmax_rows M=2048,N=256
rmsnorm M=1024,N=768
bias_tanh M=512,N=1024
transpose_add M=512,N=512
gemm_nn M=96,N=1024,K=64
gemm_nn M=384,N=512,K=1024
gemm_tn M=512,N=256,K=768
gemm_nn M=768,N=768,K=768
gemm_nn M=1024,N=768,K=512
gemm_tn M=640,N=896,K=1024
SHAPES
