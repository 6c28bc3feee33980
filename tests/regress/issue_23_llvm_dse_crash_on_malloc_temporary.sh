# The automatic schedule of two chained products at small fixed sizes
# made LLVM 16's dead store elimination crash (a segmentation fault in
# EarliestEscapeInfo::isNotCapturedBeforeOrAt) while ein optimised the
# kernel: its temporary T came from a direct call of malloc.  Kernels now
# allocate through an internal function of the module (ein.malloc,
# codegen/llvm_mem.c), which LLVM does not take for an allocator.
cat > mm2.ein <<'EIN'
def mm2(float32(M, K) A, float32(K, N) B, float32(N, L) C) -> (D) {
    T(i, j) +=! A(i, k) * B(k, j)
    D(i, l) +=! T(i, j) * C(j, l)
}
EIN
out=$($ein run mm2.ein --sizes M=32,K=24,N=40,L=16 --fix-sizes --repeat 1 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q "^  check D: .*: ok$"; then
	echo "exit $rc:"
	echo "$out"
	exit 1
fi
