# "unroll j 100000" never finished compiling in LLVM and "vectorize j
# 65536" crashed it; "unroll i 256" around a loop vectorised by 2 ran for
# minutes.  The factors are capped, and so are the copies of a loop that
# the loops unrolled around it make; over a cap is an error at the
# schedule's line:col naming the directive.
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
cat > scale2.ein <<'END'
def scale2(float32(M, N) A) -> (float32(M, N) B) {
    B(i, j) = A(i, j) * 2.0
}
END
printf 'ein-schedule 1\nB: vectorize j 2\nB: unroll i 256\n' > cap.sched
timeout 30 "$ein" run scale2.ein --sizes M=300,N=300 --schedule cap.sched \
	>out.txt 2>err.txt
status=$?
if [ $status -ne 1 ] || ! grep -qx 'cap.sched:3:4: error: the loops unrolled around a loop of B ask for more than 32 copies of it' err.txt; then
	echo "unroll i 256 around a loop: exit $status, got:"
	cat err.txt
	exit 1
fi
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
