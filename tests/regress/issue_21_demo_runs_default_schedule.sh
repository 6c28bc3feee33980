# 'ein demo' showed ein at 0.4-0.7x OpenBLAS because it ran the default
# schedule, not what a program gets: it now runs, at each size, the
# schedule that lookup finds for that size (the same one 'ein run' picks),
# with the default schedule beside it, both checked against OpenBLAS.
out=$(EIN_SCHEDULE_PATH=$src/schedules $ein demo --sizes 48,300 2>&1) ||
	{ echo "ein demo exited $?: $out"; exit 1; }
for n in 48 300; do
	row=$(echo "$out" | grep "^ *$n ")
	[ -n "$row" ] || { echo "no row for $n: $out"; exit 1; }
	got=$(echo "$row" | awk '{ print $2 }')
	run=$(EIN_SCHEDULE_PATH=$src/schedules $ein run "$src/examples/matmul/matmul.ein" \
		--sizes M=$n,N=$n,K=$n 2>&1) || { echo "ein run: $run"; exit 1; }
	want=$(echo "$run" | sed -n 's/^  schedule: \([^:]*\).*/\1/p')
	want=${want##*/}
	[ "$got" = "$want" ] || { echo "demo at $n ran '$got', ein run picks '$want'"; echo "$out"; exit 1; }
done
echo "$out" | grep -q "default ms" || { echo "no default-schedule column: $out"; exit 1; }
exit 0
