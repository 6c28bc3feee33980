# --sizes given to a kernel that has no sizes listed an empty set ("the
# kernel's sizes are: " and nothing after it); it must say there are none.
cat > fixed.ein <<'X'
def fixed(float32(4, 3) A) -> (float32(4) S) {
    S(i) +=! A(i, j)
}
X
out=$($ein run fixed.ein --sizes N=2 --no-auto 2>&1) && {
	echo "a size of a kernel without sizes was accepted: $out"; exit 1; }
echo "$out" | grep -q "bad size 'N=2' in --sizes; the kernel has no sizes$" || {
	echo "message: $out"; exit 1; }
$ein run fixed.ein --no-auto > /dev/null 2>&1 || {
	echo "the kernel itself does not run"; exit 1; }
exit 0
