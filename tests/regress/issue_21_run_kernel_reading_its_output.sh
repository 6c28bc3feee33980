#!/bin/sh
# "ein run" ran a kernel several times on the same output and compared the
# result with one reference run: kernels that read their output (+= without
# "!", recurrences) were reported as MISMATCH (exit 1) although correct.
cat > k.ein <<'END'
def acc(float32(M, K) A, float32(K, N) B) -> (float32(M, N) C) {
    C(i, j) += A(i, k) * B(k, j)
}
def rec(float32(N) A) -> (float32(N) B) {
    B(i) = B(i + 1) + A(i) where i in 0:N-1
}
END
for args in "--def acc --sizes M=8,N=9,K=7" "--def rec --sizes N=33"; do
	out=$("$ein" run k.ein $args --repeat 5 --check 2>&1)
	status=$?
	if [ $status -ne 0 ] || ! printf '%s\n' "$out" | grep -q ': ok$' ||
	   printf '%s\n' "$out" | grep -q MISMATCH; then
		echo "ein run k.ein $args: exit $status"
		printf '%s\n' "$out"
		exit 1
	fi
done
