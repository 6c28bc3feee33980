#!/bin/sh
# The 60-s tunes of bench/auto_defs.sh (issue 23): the first shape (SHAPE=2:
# the second) of each definition in bench/auto_defs.sizes (or those named
# in DEFS), one thread,
#   ein tune bench/auto_defs.ein --def DEF --sizes SIZES --time 60s \
#       -o bench/schedules/auto_defs/DEF.SIZES.sched --log ...
# into bench/schedules/auto_defs/ (each file's tuned-by header repeats
# the command); the logs are gzipped beside them.  Not part of make check.
set -u
. "$(dirname "$0")/ein_env.sh"
here=$(dirname "$0")
out=$here/schedules/auto_defs
time=${TIME:-60s}
EIN_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export EIN_NUM_THREADS OPENBLAS_NUM_THREADS
mkdir -p "$out"
grep -v '^#' "$here/auto_defs.sizes" | awk -v n="${SHAPE:-1}" '++seen[$1] == n' |
while read -r def sizes; do
	case " ${DEFS:-$def} " in *" $def "*) ;; *) continue ;; esac
	tag=$(echo "$sizes" | sed 's/[A-Z]*=//g; s/,/x/g')
	f=$out/$def.$tag.sched
	echo "$(date -u +%H:%M:%S) tune $def $sizes (load $(cut -d' ' -f1 /proc/loadavg))"
	$ein tune "$here/auto_defs.ein" --def "$def" --sizes "$sizes" \
		--time "$time" -o "$f" --log "$out/$def.$tag.log" --quiet ||
		echo "$def: ein tune failed"
	gzip -f "$out/$def.$tag.log" 2>/dev/null
done
