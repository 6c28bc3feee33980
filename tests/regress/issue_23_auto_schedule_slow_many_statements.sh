# The automatic schedule of the 12-statement CNN of tests/onnx
# (gen_models.py's cnn, as "ein import" writes it) took 58 s of CPU
# (21 s with --no-cost-model) against 0.34 s for the whole run with
# --no-auto: every candidate re-checked every directive of the schedule
# after each one, computed the dependences afresh, contracted the
# storage of every temporary with a full dataflow analysis, and the cost
# model counted the conv's 7-dimensional domain by its vertices for each
# of the contraction's six candidates.  It took about 3 s of CPU then,
# 7.4 s on 2026-11-26 (Xeon, AVX-512, plain build, with the rules added
# since); under a budget of 40 s of CPU (room for the sanitizers, which
# run it two to three times slower; well under the 58 s it took before)
# the scheduler must finish and choose what it chose before.  The budget is CPU time, read with the shell's "times"
# after the run: a wall-clock budget failed on a machine whose two CPUs
# ran eight jobs.  The wall-clock limit of 300 s only stops a hang.
cat > cnn.ein <<'EIN'
def cnn(float32(N, 3, 12, 12) x,
        float32(10, 288) fw,
        float32(10) fb,
        float32(8, 3, 3, 3) W,
        float32(8) B)
    -> (float32(N, 10) y) {
    n_acc0(i0, i1, i2, i3) +=! i2 + r1 - 1 >= 0 && i2 + r1 - 1 < 12 && i3 + r2 - 1 >= 0 && i3 + r2 - 1 < 12 ? x(i0, r0, i2 + r1 - 1, i3 + r2 - 1) * W(i1, r0, r1, r2) : 0 where i0 in 0:N, i1 in 0:8, i2 in 0:12, i3 in 0:12, r0 in 0:3, r1 in 0:3, r2 in 0:3
    n(i0, i1, i2, i3) = n_acc0(i0, i1, i2, i3) + B(i1) where i0 in 0:N, i1 in 0:8, i2 in 0:12, i3 in 0:12
    r(i0, i1, i2, i3) = max(n(i0, i1, i2, i3), 0) where i0 in 0:N, i1 in 0:8, i2 in 0:12, i3 in 0:12
    p(i0, i1, i2, i3) max=! r(i0, i1, 2 * i2 + r0, 2 * i3 + r1) where i0 in 0:N, i1 in 0:8, i2 in 0:6, i3 in 0:6, r0 in 0:2, r1 in 0:2
    f(i0, i1) = p(i0, i1 / 36, i1 / 6 % 6, i1 % 6) where i0 in 0:N, i1 in 0:288
    g_mm1(i0, i1) +=! f(i0, r0) * fw(i1, r0) where i0 in 0:N, i1 in 0:10
    g(i0, i1) = g_mm1(i0, i1) + fb(i1) where i0 in 0:N, i1 in 0:10
    y_value_max2(i0) max=! g(i0, r0) where i0 in 0:N
    y_value_exp3(i0, i1) = exp(g(i0, i1) - y_value_max2(i0)) where i0 in 0:N, i1 in 0:10
    y_value_sum4(i0) +=! y_value_exp3(i0, r0) where i0 in 0:N
    y_value(i0, i1) = y_value_exp3(i0, i1) / y_value_sum4(i0) where i0 in 0:N, i1 in 0:10
    y(i0, i1) = y_value(i0, i1) where i0 in 0:N, i1 in 0:10
}
EIN
"$ein" show cnn.ein --stage=schedule --compile-timeout 300s >out.txt 2>err.txt
status=$?
times >times.txt
if [ $status -ne 0 ]; then
	echo "the automatic schedule of the CNN did not finish in 300 s: exit $status"
	head -5 err.txt
	exit 1
fi
# The second line of "times": the user and system time of the children.
cpu=$(sed -n 2p times.txt | awk '{ t = 0; for (i = 1; i <= 2; i++) {
	split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
	print t }')
if ! awk -v t="$cpu" 'BEGIN { exit !(t != "" && t < 40) }'; then
	echo "the automatic schedule of the CNN took ${cpu:-?} s of CPU (budget 40 s)"
	exit 1
fi
if ! grep -q '^# automatic' out.txt || ! grep -q '^g_mm1: pack fw' out.txt; then
	echo "no automatic schedule with the contraction's rule:"
	head -40 out.txt
	exit 1
fi
# What it chose before on AVX-512 (with the cost model: 6 candidates
# scored for the contraction, the first legal rule for the others; the
# convolution n_acc0 has its own rule since, vectors along its 8 output
# channels instead of along i3).
grep -q '^target x86_64-avx512' out.txt || exit 0
for line in \
	'g_mm1: tile i1 32 r0 128 i0 12' \
	'g_mm1: reorder i1.o r0.o i0.o r0.i i0.i i1.i' \
	'g_mm1: pack fw at r0.o layout r0 i1' \
	'n_acc0: vectorize i1.i.i 8' 'p: parallel i0' 'y_value_sum4: vectorize r0 16'
do
	grep -qx "$line" out.txt && continue
	echo "the automatic schedule lacks '$line':"
	head -40 out.txt
	exit 1
done
exit 0
