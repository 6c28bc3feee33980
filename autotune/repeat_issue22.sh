#!/bin/sh
# Repeatability of "ein tune --time 60s" (issue 22): three tunes of the
# attention scores kernel (12 heads x 128x64 @ 64x128, one thread) with
# seeds 1, 2, 3, each way:
#   nostop   --slow-factor 0 (every candidate measured to the end, as
#            before early stopping); from its log, "first" is the trial
#            fastest by its first measurement (the choice before the
#            leaders were re-measured) and "median" the one written
#   stop     the defaults (early stopping and the re-measurement)
#   before   the defaults of another ein binary, $BEFORE (only if set:
#            e.g. main's build, to compare a change of the tuner)
# (WAYS="stop before" tunes only those ways; FILE, DEF and SIZES name
# another kernel, e.g. FILE=bench/polybench.ein DEF=atax
# SIZES=M=1900,N=2100.)
# then every schedule so obtained is timed with ein run --fix-sizes in
# interleaved rounds; prints each one's median of the rounds' medians in
# ms and, per way, the spread (slowest / fastest of the three seeds).
# A benchmark, not a test: timings depend on what else the machine runs.
#
#   [BEFORE=EIN] [WAYS=...] sh autotune/repeat_issue22.sh DIR [ROUNDS] [TIME]
# Run from the build directory.
set -u
ein=${EIN:-./ein}
src=${EIN_SRCDIR:-.}
dir=$1
rounds=${2:-3}
time=${3:-60s}
export EIN_NUM_THREADS=1
file=${FILE:-$src/bench/contractions.ein}
def=${DEF:-attention_scores}
sizes=${SIZES:-B=12,S=128,T=128,D=64}
before=${BEFORE:-}
ways=${WAYS:-nostop stop${before:+ before}}
mkdir -p "$dir"

# first_schedule LOG OUT: the schedule of the ok trial with the most
# GFLOP/s in LOG, as a schedule file.
first_schedule() {
	/usr/bin/python3 - "$1" "$2" "$def" <<'PY'
import json, sys
best = None
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["record"] == "trial" and r["status"] == "ok" and r.get("checked") \
            and (best is None or r["gflops"] > best["gflops"]):
        best = r
open(sys.argv[2], "w").write("ein-schedule 1\ndef %s\n%s" %
                             (sys.argv[3], best["schedule"]))
print(best["trial"])
PY
}

# tune WAY EIN SEED [OPTION...]: one tune, its schedule DIR/WAY.median.SEED.sched.
tune() {
	w=$1 e=$2 seed=$3
	shift 3
	$e tune "$file" --def $def --sizes $sizes --time "$time" --seed $seed \
		"$@" --quiet -o "$dir/$w.median.$seed.sched" \
		--log "$dir/$w.$seed.log" || exit 1
	echo "seed $seed $w: $(grep -c '"status":"slow"' "$dir/$w.$seed.log") slow of" \
		"$(grep -c '"record":"trial"' "$dir/$w.$seed.log") trials;" \
		"$(grep '^# chosen' "$dir/$w.median.$seed.sched")"
}

for seed in 1 2 3; do
	for w in $ways; do
		case $w in
		nostop)
			tune nostop "$ein" $seed --slow-factor 0
			echo "seed $seed nostop: first trial $(first_schedule \
				"$dir/nostop.$seed.log" "$dir/nostop.first.$seed.sched")" ;;
		stop) tune stop "$ein" $seed ;;
		before) tune before "$before" $seed ;;
		esac
	done
done

: > "$dir/times"
for r in $(seq 1 "$rounds"); do
	for s in "$dir"/*.sched; do
		ms=$($ein run "$file" --def $def --sizes $sizes --fix-sizes \
			--schedule "$s" --repeat 200 --no-check 2>&1 |
			sed -n 's/.*median \([0-9.e+-]*\) ms.*/\1/p')
		echo "$(basename "$s" .sched)	$ms" >> "$dir/times"
	done
done
/usr/bin/python3 - "$dir/times" <<'PY'
import statistics, sys, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, ms = line.split()
    t[name].append(float(ms))
med = {k: statistics.median(v) for k, v in t.items()}
for k in sorted(med):
    print("%-22s %.4f ms  (rounds: %s)" % (k, med[k], " ".join("%.4f" % x for x in t[k])))
for way in ("nostop.first", "nostop.median", "stop.median", "before.median"):
    v = [med["%s.%d" % (way, s)] for s in (1, 2, 3) if "%s.%d" % (way, s) in med]
    if v:
        print("%-14s seeds 1-3: %s ms; spread (slowest/fastest) %.2fx" %
              (way, ", ".join("%.4f" % x for x in v), max(v) / min(v)))
PY
