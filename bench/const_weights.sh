#!/bin/sh
# make bench-const-weights: the cost of embedding 30 MB of weights.
#
# Compiles a dense layer Y(b, n) += X(b, k) * W(k, n) with K=2560, N=3072
# ahead of time twice, interleaved, REPEAT times each: with W a parameter,
# and with W embedded from a 30 MB file (--const W=...).  Prints the
# median wall time of each (the whole "ein compile" process, writing the
# object) and their ratio, which issue 7 requires to be at most 1.2.
#
# Each compile writes a new object, as a clean build does: the previous
# one is removed first, untimed.  Replacing a 30 MB object written a
# moment before costs more on ext4, which starts writing a file back when
# it replaces another by rename (its auto_da_alloc protection against
# empty files after a crash) and must wait for the old file's writeback
# to drop it; that case is measured too and printed after the ratio.
set -eu
# The real binary, not libtool's wrapper script, whose start-up would
# dilute the ratio.
. "$(dirname "$0")/ein_env.sh"
repeat=${REPEAT:-11}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/dense.ein" <<'EIN'
def dense(float32(B, K) X, float32(K, N) W) -> (Y) {
    Y(b, n) +=! X(b, k) * W(k, n)
}
EIN
head -c $((2560 * 3072 * 4)) /dev/urandom > "$tmp/w.bin"

now() { date +%s.%N; }
# The wall time of one compile, in seconds.
timed() {
	t0=$(now)
	"$ein" compile "$tmp/dense.ein" --sizes K=2560,N=3072 "$@" || exit 1
	echo "$(now) - $t0" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

timed -o "$tmp/warm.o" --const W="$tmp/w.bin" > /dev/null
i=0
while [ $i -lt "$repeat" ]; do
	rm -f "$tmp/plain.o" "$tmp/const.o"
	timed -o "$tmp/plain.o" >> "$tmp/plain.t"
	timed -o "$tmp/const.o" --const W="$tmp/w.bin" >> "$tmp/const.t"
	i=$((i + 1))
done
plain=$(median < "$tmp/plain.t")
konst=$(median < "$tmp/const.t")
echo "ein compile dense (K=2560, N=3072), median of $repeat runs:"
echo "  W a parameter:        $plain s, object $(wc -c < "$tmp/plain.o") bytes"
echo "  W constant (30 MiB):  $konst s, object $(wc -c < "$tmp/const.o") bytes"
echo "  ratio: $(echo "scale=3; $konst / $plain" | bc)"
i=0
while [ $i -lt "$repeat" ]; do
	timed -o "$tmp/const.o" --const W="$tmp/w.bin" >> "$tmp/over.t"
	i=$((i + 1))
done
echo "  (W constant, replacing the previous object each time:" \
	"$(median < "$tmp/over.t") s)"
# What writing the bytes costs on this machine, for comparison.
i=0
while [ $i -lt "$repeat" ]; do
	t0=$(now)
	cp "$tmp/w.bin" "$tmp/copy.bin"
	echo "$(now) - $t0" | bc >> "$tmp/cp.t"
	rm -f "$tmp/copy.bin"
	i=$((i + 1))
done
echo "  (cp of the 30 MiB file alone: $(median < "$tmp/cp.t") s)"
