# A pack whose layout splits the tensor's last dimension into blocks
# ("pack B at k.o layout j/32 k j%32", schedules/x86_64-avx512/
# matmul.large1024.sched) was copied walking B in its own order, storing
# at B_pack0[j / 32][k][j % 32]: LLVM vectorised that loop with
# vscatterqps (four in every SGEMM with that schedule; eight at the small
# sizes compiled here).  The copy now
# walks the buffer's blocks: j split by 32, the blocks outermost, both
# sides contiguous along the innermost loop.  The assembly for AVX-512
# has no scatter or gather left, and the kernel still computes what the
# reference interpreter does at sizes no tile divides.
S="$src/schedules/x86_64-avx512/matmul.large1024.sched"
M="$src/examples/matmul/matmul.ein"
"$ein" compile "$M" --schedule "$S" --target x86_64-avx512 \
	--sizes M=112,N=64,K=256 --emit=asm -o mm.s 2>err.txt || {
	echo "ein compile failed:"; cat err.txt; exit 1; }
if grep -q 'vscatter\|vgather' mm.s; then
	echo "the SGEMM still scatters or gathers:"
	grep -c 'vscatter\|vgather' mm.s
	exit 1
fi
"$ein" show "$M" --schedule "$S" --stage=ast >ast.txt 2>err.txt || {
	echo "ein show failed:"; cat err.txt; exit 1; }
if grep 'B_pack0\[' ast.txt | grep -q ' / 32\|% 32'; then
	echo "the copy into B_pack0 still divides its index:"
	grep 'B_pack0\[' ast.txt
	exit 1
fi
for sizes in M=37,N=65,K=300; do
	"$ein" run "$M" --schedule "$S" --sizes $sizes --repeat 1 --fix-sizes \
		>out.txt 2>err.txt && grep -q 'check C: .*: ok' out.txt || {
		echo "matmul at $sizes:"; cat out.txt err.txt; exit 1; }
done
exit 0
