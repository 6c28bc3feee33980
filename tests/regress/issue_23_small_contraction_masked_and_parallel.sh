# The automatic schedule of a small fixed-size contraction was slower
# than the default schedule: the tile spanning j rounded j up to whole
# vectors (matmul 24^3: 'tile j 32', 'vectorize j.i 32', one masked
# vector: 6.3 GFLOP/s against the default's 44), and its tiles and its
# initialisation ran in parallel once the instances passed 32768
# ('C.init: parallel i' cost 30% on one thread at 48^3; fork-join of
# such a kernel on two loaded threads ran at 0.05 GFLOP/s).  The tile is
# now j's extent wide, its vectors never masked (at 24 and 29 a power of
# two at most j's extent and one machine vector, the rest the vector
# loop's remainder), and a contraction's loops are parallel only from
# 2^23 flops on.
sed 's/^def matmul(/def small_matmul(/' "$src/examples/matmul/matmul.ein" > mm.ein
for n in 24 29; do
	"$ein" show mm.ein --stage=schedule --sizes M=$n,N=$n,K=$n \
		> s$n.txt 2>err.txt || { echo "show at $n^3:"; cat err.txt; exit 1; }
	grep -q "^C: tile j $n " s$n.txt || {
		echo "matmul at $n^3: the tile is not j's extent wide:"
		grep '^C' s$n.txt; exit 1; }
	v=$(sed -n 's/^C: vectorize j\.i //p' s$n.txt)
	case $v in 1|2|4|8|16) ;; *)
		echo "matmul at $n^3: vectors of '$v', not a power of two" \
			"at most $n and one vector:"
		grep '^C' s$n.txt; exit 1 ;;
	esac
	grep -q '^C[.a-z]*: parallel' s$n.txt && {
		echo "matmul at $n^3 is parallel:"; grep '^C' s$n.txt; exit 1; }
	grep -q "^# C: not parallel: $((2 * n * n * n)) flops at these sizes" \
		s$n.txt || { echo "matmul at $n^3: no comment saying why" \
		"C is not parallel:"; cat s$n.txt; exit 1; }
	# The schedule computes what the interpreter does.
	"$ein" run mm.ein --sizes M=$n,N=$n,K=$n --fix-sizes --repeat 1 \
		> out$n.txt 2>&1 || { echo "run at $n^3 failed:"; cat out$n.txt; exit 1; }
	grep -q '^  schedule: automatic' out$n.txt &&
	grep -qx '  check C: .*: ok' out$n.txt || {
		echo "matmul at $n^3:"; cat out$n.txt; exit 1; }
done
# A large one keeps its parallel loops.
"$ein" show mm.ein --stage=schedule --sizes M=512,N=512,K=512 > big.txt
grep -q '^C: parallel' big.txt || {
	echo "matmul at 512^3 lost its parallel loops:"; cat big.txt; exit 1; }
exit 0
