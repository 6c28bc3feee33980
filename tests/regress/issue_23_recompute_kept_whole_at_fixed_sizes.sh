# A temporary recomputed per strip of rows (blur3's bx: `bx: compute_at
# B i.o recompute`) compiled with its sizes fixed stopped with "internal
# error: recomputed temporary 'bx' is stored whole": the statements that
# recompute adds carry the fixed sizes in their domains, the reads did
# not, so at other sizes the reads had no source and the storage
# contraction kept bx whole (sched/contract.c).  With the sizes symbolic
# it worked.
cat > blur.ein <<'EIN'
def blur(float32(M, N) A) -> (B) {
    bx(i, j) = (A(i, j) + A(i, j + 1) + A(i, j + 2)) / 3
    B(i, j) = (bx(i, j) + bx(i + 1, j) + bx(i + 2, j)) / 3
}
EIN
cat > blur.sched <<'EOF2'
ein-schedule 1
def blur
B: split i 8
bx: compute_at B i.o recompute
B: parallel i.o
EOF2
for sizes in M=64,N=64 M=37,N=23; do
	"$ein" run blur.ein --sizes $sizes --fix-sizes --schedule blur.sched \
		>out.txt 2>&1
	if [ $? -ne 0 ] || ! grep -q "^  check B: .*: ok$" out.txt; then
		echo "blur at $sizes, fixed, bx recomputed per 8 rows:"
		head -5 out.txt
		exit 1
	fi
done
# The buffer of one strip: 10 rows of bx, not the whole of it.
"$ein" show blur.ein --sizes M=64,N=64 --schedule blur.sched --stage=ast \
	>ast.txt 2>&1
grep -q "bx_local0: float32\[10\]" ast.txt || {
	echo "bx not stored per strip:"; head -5 ast.txt; exit 1; }
exit 0
