# An input that is also an output (every PolyBench kernel updates its
# arrays in place) was refused: "tensor 'A' is declared twice", "cannot
# assign to input 'A'".  Named again alone among the outputs, it is one
# tensor whose initial value is the caller's data: "ein run" fills it with
# random data and gives the reference the same; the dependences through
# its reads keep a recurrence from being reordered; the C header of
# "ein compile" takes it once, writable.
cat > prefix.ein <<'EIN'
def prefix(float32(N) A) -> (A) {
    A(i) = A(i) + A(i - 1) where i in 1:N
}
EIN
out=$($ein run prefix.ein --sizes N=100 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "check A: .*: ok" || { echo "$out"; exit 1; }
echo "$out" | grep -q "max |value| 0)" && { echo "A was not given data: $out"; exit 1; }

out=$($ein show prefix.ein --stage=deps 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "flow S0 -> S0 through A: .*S0\[i\] -> S0\[i' = 1 + i\]" ||
	{ echo "no recurrence in the dependences: $out"; exit 1; }
printf 'ein-schedule 1\n\nA: parallel i\n' > par.sched
$ein run prefix.ein --schedule par.sched --sizes N=100 > /dev/null 2> err &&
	{ echo "a parallel recurrence was accepted"; exit 1; }
grep -q "par.sched:3:4: error: 'parallel' is illegal: parallel loop 'i' of S0 would break the flow dependence of S0 on S0 through tensor A" err ||
	{ cat err; exit 1; }

# The in-place Cholesky of tests/kernels: reading columns before rows is
# another Cholesky (legal); running j's iterations at once is not.
chol=$src/tests/kernels/cholesky.ein
printf 'ein-schedule 1\n\nA#2: reorder j i\n' > ji.sched
out=$($ein run "$chol" --schedule ji.sched --sizes N=20 --range d=40:41 2>&1) ||
	{ echo "$out"; exit 1; }
echo "$out" | grep -q "check A: .*: ok" || { echo "$out"; exit 1; }
printf 'ein-schedule 1\n\nA#2: parallel j\n' > pj.sched
$ein run "$chol" --schedule pj.sched --sizes N=20 --range d=40:41 > /dev/null 2> err &&
	{ echo "a parallel Cholesky column loop was accepted"; exit 1; }
grep -q "pj.sched:3:6: error: 'parallel' is illegal: parallel loop 'j' of S1 would break the flow dependence of S1 on S1 through tensor A" err ||
	{ cat err; exit 1; }

$ein compile prefix.ein -o prefix.o --header prefix.h || exit 1
grep -q "^int prefix(float \* /\* A \*/, int64_t /\* N \*/);" prefix.h ||
	{ cat prefix.h; exit 1; }
grep -q "A  *output float, shape \[N\], updated in place" prefix.h ||
	{ cat prefix.h; exit 1; }

# Writing an input not named among the outputs stays an error.
cat > bad.ein <<'EIN'
def f(float32(N) A) -> (B) {
    A(i) = A(i) + 1
    B(i) = A(i)
}
EIN
$ein check bad.ein > /dev/null 2> err && { echo "wrote an input"; exit 1; }
grep -q "bad.ein:2:5: error: cannot assign to input 'A'" err || { cat err; exit 1; }
