# "unroll j 100000" never finished compiling in LLVM and "vectorize j
# 65536" crashed it.  Both factors are capped, and a factor over its cap
# is an error at the schedule's line:col naming the directive.
cat > scale.ein <<'END'
def scale(float32(N) A) -> (float32(N) B) {
    B(j) = A(j) * 2.0
}
END
check() {
	printf 'ein-schedule 1\nB: %s\n' "$1" > cap.sched
	timeout 30 "$ein" run scale.ein --sizes N=1000 --schedule cap.sched \
		>out.txt 2>err.txt
	status=$?
	if [ $status -ne 1 ] || ! grep -qx "$2" err.txt ||
	   ! grep -qx "    B: $1" err.txt; then
		echo "'$1': exit $status, expected '$2', got:"
		cat err.txt
		exit 1
	fi
}
check 'unroll j 100000' \
	'cap.sched:2:13: error: unroll factor 100000 is too large (at most 256)'
check 'vectorize j 65536' \
	'cap.sched:2:16: error: vector width 65536 is too large (at most 256)'
# At the caps, the kernel compiles and computes the right values.
for d in 'unroll j 256' 'vectorize j 256'; do
	printf 'ein-schedule 1\nB: %s\n' "$d" > cap.sched
	if ! timeout 60 "$ein" run scale.ein --sizes N=1000 \
		--schedule cap.sched >out.txt 2>err.txt ||
	   ! grep -q 'check B: .*: ok$' out.txt; then
		echo "'$d' does not compile and check:"
		cat out.txt err.txt
		exit 1
	fi
done
exit 0
