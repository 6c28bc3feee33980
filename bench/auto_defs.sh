#!/bin/sh
# make bench-auto: the automatic schedule on definitions that no shipped
# schedule names (issue 23, "Benchmarks"), one thread.
#
#   sh bench/auto_defs.sh                          # every shape of bench/auto_defs.sizes
#   DEFS="mm2 blur3" SHAPES=1 ROUNDS=3 sh bench/auto_defs.sh
#   SHAPE=2 sh bench/auto_defs.sh                 # the second shapes only
#   RESULTS=auto.tsv sh bench/auto_defs.sh        # also one tab-separated line per shape
#   BASE=/path/to/other/ein DEFS="atax" sh bench/auto_defs.sh   # before/after
#   NO_PEERS=1 DEFS="atax" sh bench/auto_defs.sh  # ein only: no Halide, no numpy
#
# BASE: another ein binary (another build, e.g. main's: its .libs/ein, with
# BASE_LIBS the folder of its libein.so), whose automatic schedule runs as
# one more variant, interleaved with the others, checked alike; its median
# and auto/base (base ms / automatic ms) end each line, and its geometric
# mean the summary.  NO_PEERS=1 leaves out Halide and numpy (their columns
# print "-"), for short before/after runs.
#
# For each definition of bench/auto_defs.ein at each shape of
# bench/auto_defs.sizes (SHAPES=1: the first shape only), the inputs are
# drawn once (numpy, fixed seed) with a float64 numpy reference
# (bench/auto_halide.py gen).  Then ROUNDS rounds, interleaved:
#   ein run bench/auto_defs.ein --def DEF --sizes SIZES --fix-sizes \
#       --repeat REPEAT --no-check --input ... --output DIR [--no-auto | --schedule F]
# for the automatic schedule (no file names DEF), the plain default
# (--no-auto) and the 60-s tuned schedule of bench/schedules/auto_defs/
# (where bench/auto_defs_tune.sh wrote one for these sizes), each output
# compared with the numpy reference in the first round; then Halide's
# Adams2019 and Mullapudi2016 autoschedulers on the same algorithm
# (bench/auto_halide.py halide: one thread, JIT for the host, checked,
# then the median of REPEAT calls) and, for the chains of matrix
# products, numpy's matmul (its bundled OpenBLAS, one thread).  Halide
# comes from PyPI into a virtual environment ($HALIDE_VENV, created on
# first use: python3 -m venv, pip install halide numpy).
#
# Prints, per shape, the median over the rounds of each one's median (ms)
# and the speed of the automatic schedule relative to each peer (peer ms
# / automatic ms: above 1, the automatic schedule is faster); at the end
# the geometric means of those ratios.  A figure that failed (a crash, a
# wrong result) prints as "-" and is left out of the means.  Not part of
# make check.
set -u
. "$(dirname "$0")/ein_env.sh"
rounds=${ROUNDS:-3}
repeat=${REPEAT:-20}
venv=${HALIDE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ein-bench-halide}
here=$(dirname "$0")
tuned=$here/schedules/auto_defs
results=${RESULTS:-/dev/null}
EIN_NUM_THREADS=1 HL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export EIN_NUM_THREADS HL_NUM_THREADS OPENBLAS_NUM_THREADS OMP_NUM_THREADS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv" && "$venv/bin/pip" install -q halide numpy ||
		{ echo "auto_defs.sh: cannot create $venv" >&2; exit 1; }
fi
py="$venv/bin/python $here/auto_halide.py"

median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
field() { sed -n "s/.*$1 \\([0-9.e+-]*\\).*/\\1/p" | head -1; }
# ratio PEER AUTO: how many times faster the automatic schedule is.
ratio() {
	if [ "$1" = - ] || [ "$2" = - ]; then
		echo -
	else
		echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'
	fi
}

# ein_run VARIANT DEF SIZES DIR ROUND [FLAGS]: one timed ein run, its
# median appended to DIR/VARIANT.t; in round 0 its output is checked.
ein_run() {
	v=$1 def=$2 sizes=$3 d=$4 r=$5
	shift 5
	mkdir -p "$d/out.$v"
	bin=$ein
	[ "$v" = base ] && bin="env LD_LIBRARY_PATH=${BASE_LIBS:-$(dirname "$BASE")} $BASE"
	if ! $bin run "$here/auto_defs.ein" --def "$def" --sizes "$sizes" \
		--fix-sizes --repeat "$repeat" --no-check $inputs \
		--output "$d/out.$v" "$@" > "$d/$v.log" 2>&1; then
		echo "  $v: ein run failed: $(tail -1 "$d/$v.log")"
		return
	fi
	if [ "$r" = 0 ]; then
		if ! $py check "$d" "$d/out.$v/$(ls "$d/out.$v" | head -1)" \
			> "$d/$v.check"; then
			echo "  $v: wrong result ($(cat "$d/$v.check"))"
			touch "$d/$v.wrong"
		fi
	fi
	[ -e "$d/$v.wrong" ] || field 'run: median' < "$d/$v.log" >> "$d/$v.t"
}

echo "$(grep 'model name' /proc/cpuinfo | head -1 | sed 's/.*: //'),"\
	"$(grep -c ^processor /proc/cpuinfo) CPUs ($(nproc) available), 1 thread,"\
	"load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "halide $("$venv/bin/pip" show halide 2>/dev/null | sed -n 's/^Version: //p'),"\
	"numpy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)'),"\
	"$rounds rounds, $repeat calls each (ein: at most 2 s of calls)"
echo "ms (median of the rounds' medians); auto/X = X's time / the automatic one's"
printf '%-14s %-28s %8s %8s %8s %8s %8s %8s | %s\n' def sizes auto no-auto tuned \
	Adams Mullapudi blas "auto/tuned auto/best-Halide auto/blas auto/no-auto"
grep -v '^#' "$here/auto_defs.sizes" |
	awk -v n="${SHAPES:-2}" -v only="${SHAPE:-0}" '++seen[$1] <= n && (!only || seen[$1] == only)' |
while read -r def sizes; do
	case " ${DEFS:-$def} " in *" $def "*) ;; *) continue ;; esac
	d=$tmp/$def.$(echo "$sizes" | tr ',=' '__')
	mkdir -p "$d"
	$py gen "$def" "$sizes" "$d" || { echo "$def: numpy reference failed"; continue; }
	inputs=
	for f in "$d"/*.npy; do
		n=$(basename "$f" .npy)
		[ "$n" = ref ] || inputs="$inputs --input $n=$f"
	done
	tag=$(echo "$sizes" | sed 's/[A-Z]*=//g; s/,/x/g')
	sched=$tuned/$def.$tag.sched
	for v in auto noauto tuned adams mullapudi blas base; do : > "$d/$v.t"; done
	r=0
	while [ "$r" -lt "$rounds" ]; do
		ein_run auto "$def" "$sizes" "$d" $r
		ein_run noauto "$def" "$sizes" "$d" $r --no-auto
		[ -f "$sched" ] && ein_run tuned "$def" "$sizes" "$d" $r --schedule "$sched"
		[ -n "${BASE:-}" ] && ein_run base "$def" "$sizes" "$d" $r
		[ -n "${NO_PEERS:-}" ] && { r=$((r + 1)); continue; }
		$py halide "$def" "$sizes" "$d" "$repeat" > "$d/halide.log" 2>&1
		[ "$r" = 0 ] && grep failed "$d/halide.log" | sed 's/^/  /'
		field 'Adams2019 median' < "$d/halide.log" >> "$d/adams.t"
		field 'Mullapudi2016 median' < "$d/halide.log" >> "$d/mullapudi.t"
		$py blas "$def" "$sizes" "$d" "$repeat" | field 'blas median' >> "$d/blas.t"
		r=$((r + 1))
	done
	for v in auto noauto tuned adams mullapudi blas base; do
		eval "m_$v=\$(median < \"\$d/\$v.t\")"
	done
	best=$(printf '%s\n%s\n' "$m_adams" "$m_mullapudi" | grep -vx -- - | sort -g | head -1)
	line=$(printf '%-14s %-28s %8s %8s %8s %8s %8s %8s | %s %s %s %s' "$def" "$sizes" \
		"$m_auto" "$m_noauto" "$m_tuned" "$m_adams" "$m_mullapudi" "$m_blas" \
		"$(ratio "$m_tuned" "$m_auto")" "$(ratio "${best:--}" "$m_auto")" \
		"$(ratio "$m_blas" "$m_auto")" "$(ratio "$m_noauto" "$m_auto")")
	[ -n "${BASE:-}" ] && line="$line | base $m_base auto/base $(ratio "$m_base" "$m_auto")"
	echo "$line"
	echo "$line" | tr -s ' ' '\t' >> "$results"
	echo "$line" >> "$tmp/all"
done
# Geometric means of the ratios over the shapes that have them.
[ -f "$tmp/all" ] && awk '{
	for (c = 10; c <= 13; c++)
		if ($c != "-") { s[c] += log($c); n[c]++ }
	if (NF >= 18 && $18 != "-") { s[18] += log($18); n[18]++ }
} END {
	split("tuned best-Halide blas no-auto", name)
	for (c = 10; c <= 13; c++)
		if (n[c]) printf "geometric mean auto/%s: %.2f over %d shapes\n",
			name[c - 9], exp(s[c] / n[c]), n[c]
	if (n[18]) printf "geometric mean auto/base: %.2f over %d shapes\n",
		exp(s[18] / n[18]), n[18]
}' "$tmp/all"
