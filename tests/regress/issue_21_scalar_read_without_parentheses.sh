# A rank-0 tensor named without parentheses reads its only element: "beta"
# was "tensor 'beta' used without indices" (only "beta()" was accepted).
# Tensors of rank one or more still need their indices.
cat > axpby.ein <<'EIN'
def axpby(float32(N) x, float32 alpha, float32 beta) -> (float32(N) y) {
    y(i) = alpha * x(i) + beta
}
EIN
out=$($ein show axpby.ein --stage=source 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "y(i) = alpha() \* x(i) + beta()" ||
	{ echo "unexpected source: $out"; exit 1; }
out=$($ein run axpby.ein --sizes N=9 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "check y: .*: ok" || { echo "$out"; exit 1; }

cat > vec.ein <<'EIN'
def f(float32(N) x) -> (y) {
    y(i) = x(i) + x
}
EIN
$ein check vec.ein > /dev/null 2> err && { echo "accepted a vector without indices"; exit 1; }
grep -q "vec.ein:2:19: error: tensor 'x' used without indices" err || { cat err; exit 1; }
