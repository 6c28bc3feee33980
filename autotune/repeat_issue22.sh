#!/bin/sh
# Repeatability of "ein tune --time 60s" (issue 22): three tunes of the
# attention scores kernel (12 heads x 128x64 @ 64x128, one thread) with
# seeds 1, 2, 3, each way:
#   nostop   --slow-factor 0 (every candidate measured to the end, as
#            before early stopping); from its log, "first" is the trial
#            fastest by its first measurement (the choice before the
#            leaders were re-measured) and "median" the one written
#   stop     the defaults (early stopping and the re-measurement)
# then every schedule so obtained is timed with ein run --fix-sizes in
# interleaved rounds; prints each one's median of the rounds' medians in
# ms and, per way, the spread (slowest / fastest of the three seeds).
# A benchmark, not a test: timings depend on what else the machine runs.
#
#   sh autotune/repeat_issue22.sh DIR [ROUNDS] [TIME]
# Run from the build directory.
set -u
ein=${EIN:-./ein}
src=${EIN_SRCDIR:-.}
dir=$1
rounds=${2:-3}
time=${3:-60s}
export EIN_NUM_THREADS=1
file=$src/bench/contractions.ein
def=attention_scores
sizes=B=12,S=128,T=128,D=64
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

for seed in 1 2 3; do
	$ein tune "$file" --def $def --sizes $sizes --time "$time" --seed $seed \
		--slow-factor 0 --quiet -o "$dir/nostop.median.$seed.sched" \
		--log "$dir/nostop.$seed.log" || exit 1
	echo "seed $seed nostop: first trial $(first_schedule "$dir/nostop.$seed.log" \
		"$dir/nostop.first.$seed.sched"), median: $(grep '^# chosen' "$dir/nostop.median.$seed.sched")"
	$ein tune "$file" --def $def --sizes $sizes --time "$time" --seed $seed \
		--quiet -o "$dir/stop.median.$seed.sched" --log "$dir/stop.$seed.log" || exit 1
	echo "seed $seed stop: $(grep -c '"status":"slow"' "$dir/stop.$seed.log") slow of" \
		"$(grep -c '"record":"trial"' "$dir/stop.$seed.log") trials;" \
		"$(grep '^# chosen' "$dir/stop.median.$seed.sched")"
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
for way in ("nostop.first", "nostop.median", "stop.median"):
    v = [med["%s.%d" % (way, s)] for s in (1, 2, 3) if "%s.%d" % (way, s) in med]
    if v:
        print("%-14s seeds 1-3: %s ms; spread (slowest/fastest) %.2fx" %
              (way, ", ".join("%.4f" % x for x in v), max(v) / min(v)))
PY
