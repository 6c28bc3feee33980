# The automatic scheduler checked each statement's rules on a fresh model
# of the whole definition: on 1,600 one-line statements "ein show
# --stage=schedule" ran past 30 s (1.8 s with --no-auto).  Above 32
# statements the definition now keeps the default schedule, and says why.
# And the scheduler ran before the compile's budget started, so
# --compile-timeout did not bound it: a budget far below what it takes
# (1 ms; it checks several candidates with isl) is now the budget error
# even for a stage that stops before any other pass checks the clock.
n=1600
awk -v n=$n 'BEGIN {
	print "def many(float32(N) A) -> (float32(N) B) {"
	print "    T0(i) = A(i) * 2.0"
	for (k = 1; k <= n - 2; ++k)
		printf "    T%d(i) = T%d(i) + 1.0\n", k, k - 1
	printf "    B(i) = T%d(i)\n}\n", n - 2
}' > many.ein
timeout 30 "$ein" show many.ein --stage=schedule >out.txt 2>err.txt
status=$?
if [ $status -ne 0 ]; then
	echo "ein show --stage=schedule exited with $status"
	head -5 err.txt
	exit 1
fi
if grep -q '^# automatic' out.txt; then
	echo "an automatic schedule for $n statements:"
	head -5 out.txt
	exit 1
fi

sed 's/^def matmul(/def budget_matmul(/' "$src/examples/matmul/matmul.ein" > mm.ein
timeout 30 "$ein" show mm.ein --stage=domains --compile-timeout 1ms \
	>out.txt 2>err.txt
status=$?
if [ $status -ne 1 ] ||
   ! grep -q 'compilation exceeded its budget of 0.001 s' err.txt; then
	echo "the automatic scheduler ran past a 1 ms budget: exit $status"
	cat err.txt
	exit 1
fi
timeout 30 "$ein" show mm.ein --stage=domains >out.txt 2>err.txt ||
	{ echo "ein show --stage=domains failed:"; cat err.txt; exit 1; }
exit 0
