# Issue 21: a padded stride-2 convolution with an inferred output took the
# range of y from the accesses' bounds for every r (1 <= y, 2y + 2 <= H),
# not from where the guard can hold (0 <= 2y <= H): its output was H / 2
# rows high, row 0 and column 0 were never written nor initialised, and
# the reference interpreter agreed, so 'ein run' said ok.  Now y ranges
# over 0 .. H / 2, and an output with elements that no statement writes
# is an error naming them.
set -u
cat > conv.ein <<'EIN'
def conv_s2(float32(N, C, H, W) I, float32(K, C, 3, 3) Wt) -> (O) {
    O(n, k, y, x) +=! (2*y + r >= 1 && 2*y + r <= H && 2*x + s >= 1 && 2*x + s <= W)
        ? I(n, c, 2*y + r - 1, 2*x + s - 1) * Wt(k, c, r, s) : 0
}
EIN
# H = 8, W = 7: y in 0 .. 4, x in 0 .. 3.
"$ein" compile conv.ein --sizes N=1,C=2,H=8,W=7,K=2 --header k.h -o k.o \
	>out 2>&1 || { cat out; exit 1; }
grep -q ' O .*shape \[1\]\[2\]\[5\]\[4\]' k.h || {
	echo "the shape of O is not [1][2][5][4]:"; grep ' O ' k.h; exit 1; }
"$ein" run conv.ein --sizes N=1,C=2,H=8,W=7,K=2 >out 2>&1 || {
	cat out; exit 1; }
grep -q 'check O: .*: ok' out || { cat out; exit 1; }

# The range of y given explicitly, so that row 0 is not written.
sed 's/: 0$/: 0 where y in 1:(H + 1) \/ 2/' conv.ein > rows.ein
if "$ein" check rows.ein >out 2>&1; then
	echo "an output with unwritten rows was accepted:"; cat out; exit 1
fi
grep -q "rows.ein:1:64: error: no statement writes some elements of output 'O'" out || {
	cat out; exit 1; }
exit 0
