#!/bin/sh
# Two "ein tune" runs on one schedule path both exited 0 and interleaved
# their records in one log, which could then be neither resumed nor
# plotted.  The log is locked now: the second run is refused with a clear
# error while the first goes on, and the log stays loadable.
mm="$src/examples/matmul/matmul.ein"
fast="--min-time 0.005 --timeout 3s"
# The first run's trial 2 hangs until its timeout: it is still running
# (and holds the log) when the second starts.
EIN_TUNE_INJECT=hang:2 "$ein" tune "$mm" --sizes M=16,N=16,K=16 --trials 3 \
	$fast --quiet -o one.sched --log one.log > first.out 2>&1 &
pid=$!
i=0
while ! grep -q '"trial":1,' one.log 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$ein" tune "$mm" --sizes M=16,N=16,K=16 --trials 2 $fast --quiet \
	-o one.sched --log one.log > second.out 2>&1
status=$?
wait $pid
first=$?
fail=0
if [ $status -eq 0 ] || ! grep -q "one.log is in use by another ein tune" \
		second.out; then
	echo "second run: exit $status"
	cat second.out
	fail=1
fi
[ $first -eq 0 ] || { echo "first run: exit $first"; cat first.out; fail=1; }
starts=$(grep -c '"record":"start"' one.log)
[ "$starts" -eq 1 ] || { echo "$starts start records in the log"; fail=1; }
"$ein" tune --plot one.log -o one.svg ||
	{ echo "the log cannot be plotted"; fail=1; }
exit $fail
