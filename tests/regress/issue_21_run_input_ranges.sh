# "ein run" drew every float input from -1:1, so a kernel that needs inputs
# elsewhere (a Cholesky factorisation needs a positive definite matrix)
# could not be checked.  --range X=LO:HI (repeatable, comma-separated
# lists) draws input X from [LO, HI), integers from LO..HI-1, with the
# syntax of the "# range:" header of tests/kernels.
chol=$src/tests/kernels/cholesky.ein
out=$($ein run "$chol" --sizes N=30 --range d=40:41 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "check A: max |error| [0-9.e-]* .*: ok" || { echo "$out"; exit 1; }
# Without the range the matrix is not positive definite (NaN appears).
$ein run "$chol" --sizes N=30 > out 2>&1 && { echo "checked without the range: $(cat out)"; exit 1; }

cat > copy.ein <<'EIN'
def copy(float32(N) X, int32(N) I, float64(N) Z) -> (Y, J, W) {
    Y(i) = X(i)
    J(i) = I(i)
    W(i) = Z(i)
}
EIN
# The largest |value| the check prints shows the range each output got.
out=$($ein run copy.ein --sizes N=1000 --range X=2:3 --range I=5:6,Z=-7:-6.5 2>&1) ||
	{ echo "$out"; exit 1; }
# max_value NAME LO HI: the largest |value| of output NAME is in [LO, HI].
max_value() {
	echo "$out" | sed -n "s/^  check $1: .*(max |value| \([0-9.e+-]*\)): ok$/\1/p" |
		awk -v lo="$2" -v hi="$3" 'NF { n++; if ($1 < lo || $1 > hi) bad = 1 }
			END { exit !(n == 1 && !bad) }' ||
		{ echo "max |$1| not in [$2, $3]: $out"; exit 1; }
}
max_value Y 2.9 3
max_value J 5 5
max_value W 6.9 7
out=$($ein run copy.ein --sizes N=1000 --range=I=-3:-1 2>&1) || { echo "$out"; exit 1; }
max_value J 3 3
max_value Y 0.9 1

# Mistakes are errors that say what is wrong.
expect_error() {
	$ein run copy.ein --sizes N=4 "$@" > out 2> err &&
		{ echo "accepted $*"; exit 1; }
	grep -q "$msg" err || { echo "$*: $(cat err)"; exit 1; }
}
msg="ein: error: bad range 'X=1:0' in --range: expected NAME=LO:HI with numbers LO < HI"
expect_error --range X=1:0
msg="ein: error: bad range 'X=0:1x' in --range"
expect_error --range X=0:1x
msg="ein: error: --range names 'Y', which is not an input of the kernel; its inputs are: X, I, Z"
expect_error --range Y=0:1
msg="ein: error: --range I=0.5:2: I is int32, so its range needs integers LO < HI within"
expect_error --range I=0.5:2
exit 0
