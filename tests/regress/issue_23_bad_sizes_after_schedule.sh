# ein run checked --sizes against the compiled kernel, after the
# automatic schedule was chosen: on the 12-statement CNN of tests/onnx a
# misspelt size was an error only after 24 s (3.5 s once issue 23 made
# the scheduler fast).  The sizes are now checked right after parsing:
# the error comes before any schedule is chosen, which the compile's
# budget shows here (1 ms, far below what choosing a schedule and
# compiling take: were they run first, the error would be the budget's).
sed 's/^def matmul(/def bad_sizes_matmul(/' "$src/examples/matmul/matmul.ein" > mm.ein
for spec in 'M=8,N=8,K=8,Q=3' 'M=8,N=8' 'X=1'; do
	"$ein" run mm.ein --sizes "$spec" --compile-timeout 1ms \
		>out.txt 2>err.txt
	status=$?
	if [ $status -ne 1 ] || ! grep -q "in --sizes\|--sizes gives no value" err.txt ||
	   grep -q 'budget' err.txt; then
		echo "--sizes $spec: exit $status, not the sizes' error first:"
		cat err.txt
		exit 1
	fi
done
# The messages name the kernel's sizes, as before.
"$ein" run mm.ein --sizes M=8,N=8,K=8,Q=3 >out.txt 2>err.txt
grep -qx "ein: error: bad size 'Q=3' in --sizes; the kernel's sizes are: M, K, N" err.txt || {
	echo "the message changed:"; cat err.txt; exit 1; }
# Good sizes still run.
"$ein" run mm.ein --sizes M=8,N=8,K=8 --repeat 1 >out.txt 2>err.txt || {
	echo "good sizes failed:"; cat err.txt; exit 1; }
exit 0
