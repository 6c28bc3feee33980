# ein show, ein compile and ein tune checked --sizes only after the
# schedule was chosen (or not at all: ein show and ein compile ignored a
# misspelt size), which on a model's definitions takes seconds.  As ein
# run does (issue_23_bad_sizes_after_schedule.sh), they now check the
# names right after reading the definition: the error comes before any
# schedule is chosen, which the compile's 1 ms budget shows (were the
# schedule chosen first, the error would be the budget's).
sed 's/^def matmul(/def bad_sizes_matmul(/' "$src/examples/matmul/matmul.ein" > mm.ein
want="ein: error: bad size 'Q=3' in --sizes; the kernel's sizes are: M, K, N"
check() {
	what=$1; shift
	"$@" >out.txt 2>err.txt
	status=$?
	if [ $status -eq 0 ] || [ "$(cat err.txt)" != "$want" ]; then
		echo "$what: exit $status, not the sizes' error alone:"
		cat err.txt
		exit 1
	fi
}
check show "$ein" show mm.ein --stage=schedule --sizes M=8,Q=3 \
	--compile-timeout 1ms
check compile "$ein" compile mm.ein --sizes M=8,Q=3 -o mm.o \
	--compile-timeout 1ms
check tune "$ein" tune mm.ein --sizes M=8,N=8,K=8,Q=3 --trials 1 \
	--compile-timeout 1ms -o tuned.sched --log tune.log
[ -e mm.o ] && { echo "compile wrote mm.o"; exit 1; }
# Good sizes, some left out where the command allows it, still work.
"$ein" show mm.ein --stage=schedule --sizes M=8 >out.txt 2>err.txt || {
	echo "show with good sizes failed:"; cat err.txt; exit 1; }
"$ein" compile mm.ein --sizes M=8,K=8 -o mm.o >out.txt 2>err.txt || {
	echo "compile with good sizes failed:"; cat err.txt; exit 1; }
exit 0
