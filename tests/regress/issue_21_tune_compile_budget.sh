# ein tune compiled its candidates (and the default schedule) with no
# limit: on a kernel that isl takes minutes to compile, "--time 2s" ran
# for minutes.  The compiles now have the budget of a measurement, cut to
# what --time leaves, and the run stops with the budget error.
cat > guard.ein <<'END'
def g(float32(N) A) -> (float32(N) B) {
    B(i) +=! (i % 2 == 0 || i % 3 == 1 || i % 5 == 2 || i % 7 == 3 || i % 11 == 4 || i % 13 == 5 || i % 17 == 6) ? A(i) : 0
}
END
timeout 30 "$ein" tune guard.ein --sizes N=256 --time 2s \
	-o "$tmp/g.sched" --quiet >out.txt 2>err.txt
status=$?
if [ $status -eq 124 ] || [ $status -eq 0 ]; then
	echo "ein tune exited with $status (expected 1, quickly)"
	cat err.txt
	exit 1
fi
if ! grep -q 'compilation exceeded its budget' err.txt; then
	echo "expected the budget error, got:"
	cat err.txt
	exit 1
fi
exit 0
