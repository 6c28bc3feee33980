# Compile time grew as n^2.7 in the number of statements; the default
# schedule's tree was built by appending one statement at a time to an
# isl sequence, which copies the whole sequence (1,600 statements: 52 s
# for that alone).  It is now built as a balanced tree of pairs.  The
# schedule of 1,600 statements is built (well within the timeout), with
# every statement in source order.  (--no-auto: the default schedule is
# what this measures; the automatic one tries each statement's rules
# with the legality check, which is slower on so many statements.)
n=1600
awk -v n=$n 'BEGIN {
	print "def many(float32(N) A) -> (float32(N) B) {"
	print "    T0(i) = A(i) * 2.0"
	for (k = 1; k <= n - 2; ++k)
		printf "    T%d(i) = T%d(i) + 1.0\n", k, k - 1
	printf "    B(i) = T%d(i)\n}\n", n - 2
}' > many.ein
timeout 30 "$ein" show many.ein --stage=schedule --no-auto \
	>out.txt 2>err.txt
status=$?
if [ $status -ne 0 ]; then
	echo "ein show --stage=schedule exited with $status"
	head -5 err.txt
	exit 1
fi
grep -o 'filter: "\[N\] -> { S[0-9]*\[i\] }"' out.txt |
	sed 's/.*{ S\([0-9]*\).*/\1/' > order.txt
if [ "$(wc -l < order.txt)" -ne $n ] || ! seq 0 $((n - 1)) | cmp -s - order.txt
then
	echo "the sequence does not hold S0 .. S$((n - 1)) in order"
	head -5 order.txt
	exit 1
fi
exit 0
