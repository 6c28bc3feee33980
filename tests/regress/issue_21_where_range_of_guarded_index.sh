# A where range that depends on another index ("where k in 0:i + 1") bounds
# an index that only guarded accesses use; it was refused with "index 'k'
# has no range ... give it one with 'where k in LO:HI'", the range given.
cat > tri.ein <<'EIN'
def rowsum(float32(N, N) A) -> (float32(N) y) {
    y(i) +=! (k <= i) ? A(i, k) : 0 where k in 0:i + 1
}
EIN
out=$($ein show tri.ein --stage=domains 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q 'S0\[i, k\] : i < N and 0 <= k <= i }' ||
	{ echo "unexpected domain: $out"; exit 1; }
out=$($ein run tri.ein --sizes N=9 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "check y: .*: ok" || { echo "$out"; exit 1; }
