# The automatic scheduler ran tiny kernels in parallel: the softmax of a
# 2 x 5 tensor (an ONNX model's last kernel) got 'parallel' and took
# 0.43 ms per run, the thread pool's start-up.  A loop is now parallel
# only when the work under it, known at the sizes, is at least 32768
# statement instances; with the sizes symbolic, as before.
sed 's/^def softmax(/def tiny_softmax(/' "$src/tests/kernels/softmax.ein" > sm.ein
sed 's/^def matmul(/def tiny_matmul(/' "$src/examples/matmul/matmul.ein" > mm.ein
# The directives of the schedule ein show prints, comments left out.
directives() {
	"$ein" show "$@" --stage=schedule > sched.txt 2>err.txt || {
		echo "show $*: $(cat err.txt)"; exit 1; }
	sed -n '/^tuned-by/,/^# The schedule it makes/p' sched.txt |
		grep -v '^#' | grep -v '^$' | grep -v '^tuned-by'
}
expect() {
	what=$1; shift
	if [ "$(directives "$@")" != "$(cat want.txt)" ]; then
		echo "$what: got"; directives "$@"; echo "want"; cat want.txt
		exit 1
	fi
}
# 2 x 5: 44 instances, nothing parallel.
cat > want.txt <<'X'
s: compute_at Y i
e: compute_at Y i
mx: compute_at Y i
mx: vectorize j 16
e: vectorize j 16
s: vectorize j 16
Y: vectorize j 16
X
lanes=$(directives sm.ein | sed -n 's/^Y: vectorize j //p')
sed -i "s/ 16\$/ $lanes/" want.txt
expect "softmax at 2 x 5" sm.ein --sizes M=2,N=5
grep -qx '# Y: not parallel: 44 instances at these sizes, below 32768' sched.txt || {
	echo "no comment saying why Y is not parallel:"; cat sched.txt; exit 1; }
# Symbolic sizes and large ones: parallel, as before.
cat >> want.txt <<X
Y: parallel i
Y: stream j
X
expect "softmax, symbolic sizes" sm.ein
expect "softmax at 512 x 512" sm.ein --sizes M=512,N=512
# A tiny matmul: the register tile without its parallel loops.
"$ein" show mm.ein --stage=schedule --sizes M=4,N=4,K=4 > tiny.txt
"$ein" show mm.ein --stage=schedule --sizes M=512,N=512,K=512 > big.txt
grep -q '^C[.a-z]*: parallel' tiny.txt && {
	echo "matmul at 4^3 is parallel:"; cat tiny.txt; exit 1; }
[ "$(grep '^C[.a-z]*: parallel' big.txt)" = "$(printf 'C: parallel j.o\nC.init: parallel i')" ] || {
	echo "matmul at 512^3 lost its parallel loops:"; cat big.txt; exit 1; }
# The serial schedule still computes what the interpreter does.
"$ein" run sm.ein --sizes M=2,N=5 --repeat 1 > out.txt 2>&1 || {
	echo "run failed:"; cat out.txt; exit 1; }
exit 0
