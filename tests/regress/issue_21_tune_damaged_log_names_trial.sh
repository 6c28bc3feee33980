#!/bin/sh
# A damaged tuning-log line named the wrong trial: a record numbered 7
# where trial 3 belonged was reported as "trial 0 follows trial 2" (the
# record was cleared before the message read its number).
mm="$src/examples/matmul/matmul.ein"
"$ein" tune "$mm" --sizes M=16,N=16,K=16 --trials 4 --min-time 0.005 \
	--quiet -o g.sched --log g.log > /dev/null 2>&1 || exit 1
sed '4s/"trial":3,/"trial":7,/' g.log > d.log
out=$("$ein" tune --plot d.log -o d.svg 2>&1)
status=$?
if [ $status -eq 0 ] || ! printf '%s\n' "$out" | grep -q \
	"d.log:4: error: trial 7 where trial 3 was expected (after trial 2)"
then
	echo "exit $status: $out"
	exit 1
fi
