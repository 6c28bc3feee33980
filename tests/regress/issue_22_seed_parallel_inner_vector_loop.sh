# The tuner's BLIS seeds made the vector loop j parallel when j was not
# split (narrower than the register tile's columns): j is then the
# innermost loop, and the threads forked and joined once per row of the
# tile.  A 24^3 matmul's seeds took 2.2 ms (0.01 GFLOP/s) against the
# default's 0.013, and 800 ms on a loaded machine, which made
# tests/tune.test's 15%-of-the-budget guard skip the re-measurement of
# the leaders.  Now a j not split is never parallel in a seed (a batch
# loop still is).
# j narrower than the register tile's columns: 24 on AVX-512 (32
# columns), 12 on AVX2 (16; 24 is split there).
n=24
"$ein" version | grep -q "^host target: x86_64-avx512" || n=12
out=$(EIN_NUM_THREADS=2 "$ein" tune "$src/examples/matmul/matmul.ein" \
	--sizes M=24,N=$n,K=24 --list-space 2>&1) || {
	echo "ein tune --list-space failed: $out"; exit 1; }
echo "$out" | grep -q '^C: vectorize j 1*[0-9]*$' || {
	echo "no seed with an unsplit vector loop j (the case of the bug):"
	echo "$out"; exit 1; }
if echo "$out" | grep -q '^C: parallel j$'; then
	echo "a seed makes the innermost vector loop j parallel:"
	echo "$out"; exit 1
fi
# At 512^3 j is split: j.o stays parallel.
out=$(EIN_NUM_THREADS=2 "$ein" tune "$src/examples/matmul/matmul.ein" \
	--sizes M=512,N=512,K=512 --list-space 2>&1) || {
	echo "ein tune --list-space at 512^3 failed: $out"; exit 1; }
echo "$out" | grep -q '^C: parallel j\.o$' || {
	echo "no seed with j.o parallel at 512^3:"; echo "$out"; exit 1; }
exit 0
