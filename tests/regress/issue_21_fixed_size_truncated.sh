# Sizes fixed above 2^31 - 1 went into isl through an int (isl_set_fix_si):
# --sizes M=4294967297 compiled the kernel for M = 1, and M = 2^31 gave
# "no shape".  The loop bound in the AST and the IR must be the size given.
cat > scale.ein <<'END'
def scale(float32(M) X) -> (Y) {
    Y(i) = X(i) * 2.0
}
END
fail=0
for m in 4294967297 2147483648 9007199254740993; do
	last=$((m - 1))
	if ! "$ein" show scale.ein --no-auto --sizes M=$m --stage=ast > ast.txt 2>&1 ||
	   ! grep -q "c0 <= $last;" ast.txt; then
		echo "M=$m: expected the loop to end at $last, got:"
		cat ast.txt
		fail=1
	fi
done
# The compiled code must address element 2^32 (the last of M = 2^32 + 1).
if ! "$ein" compile scale.ein --no-auto --sizes M=4294967297 --emit=llvm -o scale.ll \
	--header scale.h > out.txt 2>&1; then
	echo "ein compile --sizes M=4294967297 failed:"
	cat out.txt
	fail=1
elif ! grep -q 'i64 4294967296' scale.ll; then
	echo "the IR for M=4294967297 never mentions 4294967296:"
	grep -n 'icmp' scale.ll
	fail=1
fi
exit $fail
