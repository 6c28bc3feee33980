# "unroll j.i full" over more than 64 iterations was an internal error
# ("loop nest too deep"): isl unrolls the remainder of a loop with a
# parametric bound as one nested condition per iteration, and the code
# generator had room for 64.  It now compiles and computes the right
# values.
cat > scale.ein <<'END'
def scale(float32(N) A) -> (float32(N) B) {
    B(j) = A(j) * 2.0
}
END
printf 'ein-schedule 1\nB: split j 72\nB: unroll j.i full\n' > full.sched
timeout 60 "$ein" run scale.ein --sizes N=1000 --schedule full.sched \
	>out.txt 2>err.txt
status=$?
if [ $status -ne 0 ] || ! grep -q 'check B: .*: ok$' out.txt; then
	echo "exit $status:"
	cat out.txt err.txt
	exit 1
fi
exit 0
