# A __local tile of B copied and read under "if (K % 16 >= 1)" (the last
# tile of k, between two barriers) inside the work-group loops gave wrong
# results on PoCL 3.1 (random_gpu_schedules, EIN_SCHED_SEED=5, trial 9;
# correct with -cl-opt-disable).  A branch that holds a barrier now ends
# with one (codegen/emit_c.c, if_branch_end).  Passes trivially on a
# machine without an OpenCL device.
. "$src/tests/regress/lib/opencl.sh"
need_opencl
cat > chain.ein <<'EIN'
def chain(float32(M, K) A, float32(K, N) B, float32(N) bias) -> (R) {
    T(i, j) +=! A(i, k) * B(k, j)
    U(i, j) = T(i, j) + bias(j)
    R(i, j) = U(i, j) > 0 ? U(i, j) : 0
}
EIN
cat > s.sched <<'SCHED'
ein-schedule 1
T: split k 16
T: split j 2
T: reorder j.o i k.o j.i k.i
T: gpu_blocks j.o i
T: gpu_threads j.i
T: local B at k.o
T: unroll k.i full
SCHED
for k in 7 23; do
	opencl_checked R chain.ein --schedule s.sched \
		--sizes M=9,K=$k,N=11
done
