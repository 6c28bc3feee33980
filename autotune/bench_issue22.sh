#!/bin/sh
# The kernels of issue 22 (batched attention scores, TCCG abcijk-ijma-mkbc,
# SGEMM 1024^3, the ResNet 3x3 conv at 56^2), one thread: ein with the
# default schedule, the hand schedule where the tree has one, the schedules
# tuned before and after a change (DIR/before.K.sched, DIR/after.K.sched,
# as "ein tune --time 60s" wrote them), all compiled with the sizes fixed
# (ein run --fix-sizes), next to numpy.einsum and numpy.matmul (OpenBLAS)
# and oneDNN (bench/bench's conv section), in rounds; prints the median
# of the rounds' medians in ms as a Markdown table.  A benchmark, not a
# test: timings depend on what else the machine runs.
#
#   sh autotune/bench_issue22.sh DIR [ROUNDS]
# Run from the build directory; /usr/bin/python3 must have numpy.
set -u
ein=${EIN:-./ein}
src=${EIN_SRCDIR:-.}
dir=$1
rounds=${2:-3}
py=${PYTHON:-/usr/bin/python3}
export EIN_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
target=$($ein version | sed -n "s/^host target: //p")
# OpenBLAS 0.3.21 does not know every CPU it runs on (Emerald Rapids): its
# fallback, Prescott, would flatter ein; name the kernels for the target's
# vector ISA, as bench/bench does (a value the user set is kept).
case "$target" in
*avx512*) : "${OPENBLAS_CORETYPE:=SkylakeX}" ;;
*avx2*) : "${OPENBLAS_CORETYPE:=Haswell}" ;;
esac
[ -n "${OPENBLAS_CORETYPE:-}" ] && export OPENBLAS_CORETYPE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The kernels: name, file, definition, sizes, hand schedule (or -).
kernels="scores $src/bench/contractions.ein attention_scores B=12,S=128,T=128,D=64 -
tccg $src/bench/contractions.ein tccg_abcijk I=16,J=16,M=16,A=16,K=16,B=16,C=16 -
matmul $src/bench/kernels.ein matmul M=1024,N=1024,K=1024 $src/schedules/x86_64-avx512/matmul.large1024.sched
conv3x3 $src/bench/kernels.ein conv3x3 N=1,C=64,H=56,W=56,F=64 $src/bench/schedules/x86_64-avx512/conv3x3.sched"

# ein_ms FILE DEF SIZES [SCHEDULE]: the median ms of the kernel compiled
# with the sizes fixed (the default schedule without SCHEDULE).
ein_ms() {
	if [ $# -gt 3 ]; then s="--schedule $4"; else s=--no-schedule; fi
	$ein run "$1" --def "$2" --sizes "$3" --fix-sizes $s --repeat 200 \
		--no-check 2>&1 | sed -n 's/.*median \([0-9.e+-]*\) ms.*/\1/p'
}

# record KERNEL COLUMN MS: one round's figure.
record() {
	[ -n "$3" ] && echo "$1	$2	$3" >> "$tmp/all"
}

# onednn WHICH: bench/bench's conv section (oneDNN's total, ein's
# kernel compiled with the sizes fixed) with DIR/WHICH.conv3x3.sched as
# conv3x3's schedule.
onednn() {
	d="$tmp/bench_$1"
	mkdir -p "$d/schedules/$target"
	cp "$src/bench/kernels.ein" "$d/"
	cp "$dir/$1.conv3x3.sched" "$d/schedules/$target/conv3x3.sched"
	row=$(./bench/bench --only conv --quick --threads 1 --dir "$d" 2>/dev/null |
		grep '^| 64→64 3x3 at 56²' | head -n 1)
	echo "$1: $row" >&2
	record conv3x3 "bench/bench: ein tuned 60 s ($1)" \
		"$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $5); print $5 }')"
	record conv3x3 "bench/bench: oneDNN total (beside $1)" \
		"$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $9); print $9 }')"
}

for r in $(seq 1 "$rounds"); do
	echo "$kernels" | while read -r k file def sizes hand; do
		record "$k" "ein default" "$(ein_ms "$file" "$def" "$sizes")"
		[ "$hand" = - ] ||
			record "$k" "ein hand" "$(ein_ms "$file" "$def" "$sizes" "$hand")"
		for w in before after; do
			[ -f "$dir/$w.$k.sched" ] && record "$k" "ein tuned 60 s ($w)" \
				"$(ein_ms "$file" "$def" "$sizes" "$dir/$w.$k.sched")"
		done
		if [ "$k" = conv3x3 ]; then
			for w in before after; do
				[ -f "$dir/$w.$k.sched" ] && onednn "$w"
			done
		else
			$py "$src/autotune/bench_issue22.py" "$k" |
				while IFS='	' read -r name ms; do
					record "$k" "$name" "$ms"
				done
		fi
	done
done
echo "| kernel | column | median ms of $rounds rounds | rounds |"
echo "|---|---|---|---|"
sort -t '	' -k1,1 -k2,2 -s "$tmp/all" | awk -F'\t' '
	function flush() { if (n) { m = v[int((n + 1) / 2)]; printf "| %s | %s | %.4g | %s |\n", pk, pc, m, list } }
	{ if ($1 != pk || $2 != pc) { flush(); pk = $1; pc = $2; n = 0; list = "" }
	  v[++n] = $3; for (i = n; i > 1 && v[i] < v[i-1]; --i) { t = v[i]; v[i] = v[i-1]; v[i-1] = t }
	  list = list (list == "" ? "" : " ") $3 }
	END { flush() }'
