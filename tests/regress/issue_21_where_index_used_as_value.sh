# A name that a where clause ranges over and that the statement uses only as
# a value is an index of the statement; it was "unknown name 'k'".  A where
# name used nowhere in the statement stays an error.
cat > val.ein <<'EIN'
def tri(float32(N) x) -> (y) {
    y(i) +=! x(i) * k where k in 0:i + 1
}
EIN
out=$($ein show val.ein --stage=domains 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q 'S0\[i, k\] : i < N and 0 <= k <= i }' ||
	{ echo "unexpected domain: $out"; exit 1; }
out=$($ein run val.ein --sizes N=9 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "check y: .*: ok" || { echo "$out"; exit 1; }

cat > unused.ein <<'EIN'
def f(float32(N) x) -> (y) {
    y(i) = x(i) where k in 0:N
}
EIN
$ein check unused.ein > /dev/null 2> err && { echo "accepted an unused where name"; exit 1; }
grep -q "unused.ein:2:23: error: 'k' is not an index of this statement" err ||
	{ cat err; exit 1; }
