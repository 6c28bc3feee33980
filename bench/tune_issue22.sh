#!/bin/sh
# The tuned schedules of make bench-issue22: "ein tune --time 60s" on one
# thread, sizes fixed, for each kernel of issue 22's benchmark, written to
# bench/schedules/issue22/<name>.sched (the name bench/bench looks for;
# the file's tuned-by line is the exact command).  Run from the build
# directory (a source-tree build: EIN_SRCDIR=. by default); the logs go
# to $TMPDIR.  Tuning all of them takes about half an hour; name some to
# tune only those:
#
#   sh bench/tune_issue22.sh [NAME...]      # e.g. tccg_abc_acd_db mm2
#   TIME=300s sh bench/tune_issue22.sh ...  # a longer budget
set -u
ein=${EIN:-./ein}
src=${EIN_SRCDIR:-.}
time=${TIME:-60s}
out=$src/bench/schedules/issue22
tmp=${TMPDIR:-/tmp}
export EIN_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# The tree's installed schedules, where the analog seeds come from (the
# matmul schedules mapped onto each GEMM-shaped statement,
# autotune/analog.h): without them (ein not installed) no tune here had
# one.
export EIN_SCHEDULE_PATH=${EIN_SCHEDULE_PATH:-$src/schedules}

# name file def sizes, as bench/tccg.c, attention.c and polybench.c use them.
kernels="$(sed -n 's/^def \(tccg_[a-z_]*\)(.*/\1/p' "$src/bench/tccg.ein" |
	while read -r d; do
		p=$(echo "${d#tccg_}" | tr _ -)
		s=$(sed -n "s/.*{ \"$p\", \"\\([A-Z0-9=,]*\\)\" }.*/\\1/p" \
			"$src/bench/tccg.c")
		echo "$d tccg.ein $d $s"
	done)
attention_scores.s128 contractions.ein attention_scores B=12,S=128,T=128,D=64
attention.s128 contractions.ein attention B=12,S=128,T=128,D=64
attention_scores.s512 contractions.ein attention_scores B=12,S=512,T=512,D=64
attention.s512 contractions.ein attention B=12,S=512,T=512,D=64
mm2 polybench.ein mm2 NI=800,NJ=900,NK=1100,NL=1200
mm3 polybench.ein mm3 NI=800,NJ=900,NK=1000,NL=1100,NM=1200
gemver polybench.ein gemver N=2000
atax polybench.ein atax M=1900,N=2100"

mkdir -p "$out"
echo "$kernels" | while read -r name file def sizes; do
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "== $name"
	$ein tune "$src/bench/$file" --def "$def" --sizes "$sizes" \
		--time "$time" --quiet -o "$out/$name.sched" \
		--log "$tmp/$name.tune.log" || echo "$name: ein tune failed"
done
