# The automatic scheduler vectorised the uint8 3x3/2 max pool of
# quantised ResNet-50 along its output columns, 64 lanes: its reads step
# two bytes a lane, and with no byte gather LLVM loaded each lane alone
# (vpinsrb; at 64 x 112^2, one thread, 2.8-3.2 ms of CPU a call against
# 1.3-1.5 ms scalar).  A
# statement on elements narrower than 32 bits is no longer vectorised
# along a loop that a read's last subscript steps by more than one; the
# float pool (hardware gathers) and a unit-stride uint8 statement keep
# their vectors.  Each still runs correctly against the interpreter.
cat > pool.ein <<'X'
def qpool(uint8(1, 5, 30, 62) X) -> (uint8(1, 5, 15, 31) Y) {
    Y(n, c, p, q) max=! 2 * p + r - 1 >= 0 && 2 * q + s - 1 >= 0 ? X(n, c, 2 * p + r - 1, 2 * q + s - 1) : uint8(0) where n in 0:1, c in 0:5, p in 0:15, q in 0:31, r in 0:3, s in 0:3
}
def fpool(float32(1, 5, 30, 62) X) -> (float32(1, 5, 15, 31) Y) {
    Y(n, c, p, q) max=! 2 * p + r - 1 >= 0 && 2 * q + s - 1 >= 0 ? X(n, c, 2 * p + r - 1, 2 * q + s - 1) : -1e30 where n in 0:1, c in 0:5, p in 0:15, q in 0:31, r in 0:3, s in 0:3
}
def qrelu(uint8(1, 5, 30, 62) X) -> (uint8(1, 5, 30, 62) Y) {
    Y(n, c, h, w) = X(n, c, h, w) > 7 ? X(n, c, h, w) : uint8(7)
}
X
show() {
	"$ein" show pool.ein --def "$1" --stage=schedule > s.txt 2>&1 ||
		{ echo "show $1: $(head -3 s.txt)"; exit 1; }
}
show qpool
if grep -q '^Y: vectorize' s.txt; then
	echo "the uint8 stride-2 pool is vectorised:"; grep '^Y:' s.txt; exit 1
fi
show fpool
grep -q '^Y: vectorize q' s.txt || {
	echo "the float pool lost its vectors:"; grep '^Y:' s.txt; exit 1; }
show qrelu
grep -q '^Y: vectorize w' s.txt || {
	echo "a unit-stride uint8 statement lost its vectors:"; grep '^Y:' s.txt; exit 1; }
for d in qpool fpool qrelu; do
	"$ein" run pool.ein --def "$d" > r.txt 2>&1 &&
		grep -q '^  check Y: .*: ok$' r.txt ||
		{ echo "run $d:"; cat r.txt; exit 1; }
done
