#!/bin/sh
# Model-guided evolutionary search against plain random search on the same
# budget (a benchmark, not a test): for each seed, both strategies tune the
# same kernel for the same number of measured trials; prints the best
# verified GFLOP/s of each and their ratio.
#
#   sh autotune/bench.sh [EIN_FILE] [SIZES] [TRIALS] [SEEDS...]
#   sh autotune/bench.sh examples/matmul/matmul.ein M=256,N=256,K=256 40 1 2 3
set -u
ein=${EIN:-./ein}
file=${1:-examples/matmul/matmul.ein}
sizes=${2:-M=256,N=256,K=256}
trials=${3:-40}
shift 3 2>/dev/null || shift $#
seeds=${*:-1 2 3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() {
	sed -n 's/.*"record":"done".*"best_gflops":\([0-9.e+-]*\).*/\1/p' "$1"
}

printf '%6s %14s %14s %8s\n' seed evolve random ratio
for s in $seeds; do
	for strat in evolve random; do
		$ein tune "$file" --sizes "$sizes" --trials "$trials" --seed "$s" \
			--strategy $strat --quiet --log "$tmp/$strat.log" \
			-o "$tmp/$strat.sched" || exit 1
	done
	e=$(best "$tmp/evolve.log")
	r=$(best "$tmp/random.log")
	printf '%6s %14.2f %14.2f %8.2f\n' "$s" "$e" "$r" \
		"$(echo "$e $r" | awk '{ print $1 / $2 }')"
done
