# A guard of seven '%' terms kept isl's AST generator busy for minutes
# (six: 13 s), and nothing bounded a compile.  With --compile-timeout the
# compile stops at its budget with a clear error and status, not a hang
# and not an internal error; the library's default budget applies
# without the option (checked with a budget small enough to be quick).
cat > guard.ein <<'END'
def g(float32(N) A) -> (float32(N) B) {
    B(i) +=! (i % 2 == 0 || i % 3 == 1 || i % 5 == 2 || i % 7 == 3 || i % 11 == 4 || i % 13 == 5 || i % 17 == 6) ? A(i) : 0
}
END
timeout 30 "$ein" show guard.ein --stage=ast --compile-timeout 1 \
	>out.txt 2>err.txt
status=$?
if [ $status -ne 1 ]; then
	echo "ein show exited with $status (expected 1: over budget)"
	cat err.txt
	exit 1
fi
if ! grep -q '^error: compilation exceeded its budget of 1 s$' err.txt ||
   grep -q 'internal error' err.txt; then
	echo "expected the budget error, got:"
	cat err.txt
	exit 1
fi
# The same budget as "1s", and through ein run.
timeout 30 "$ein" run guard.ein --sizes N=64 --compile-timeout=1s \
	>out.txt 2>err.txt
status=$?
if [ $status -ne 1 ] ||
   ! grep -q 'compilation exceeded its budget of 1 s' err.txt; then
	echo "ein run exited with $status, expected the budget error:"
	cat err.txt
	exit 1
fi
# A malformed budget is a usage error.
if timeout 30 "$ein" show guard.ein --stage=ast --compile-timeout -3 \
	>out.txt 2>err.txt ||
   ! grep -q -- "^ein: error: --compile-timeout takes a duration (60, 60s, 2m, 500ms), not '-3'$" err.txt; then
	echo "a negative --compile-timeout was not rejected:"
	cat err.txt
	exit 1
fi
exit 0
