# "unroll i.i 2" became "#pragma unroll 2", which PoCL 3.1 miscompiled on
# a loop whose trip count varies (the last tile of i.i holds one row when
# M is odd) inside a work-item loop of a kernel with barriers: wrong
# results (random_gpu_schedules, EIN_SCHED_SEED=1, trial 48).  A partial
# unroll is now a comment in the OpenCL C.  Passes trivially on a
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
T: split j 8
T: split i 2
T: reorder j.o i.o k j.i i.i
T: gpu_blocks j.o
T: gpu_threads j.i
T: local B at k
T: unroll i.i 2
U: reorder i j
U: gpu_blocks i j
R: split i 8
R: reorder i.o j i.i
SCHED
opencl_checked R chain.ein --fix-sizes --schedule s.sched \
	--sizes M=9,K=7,N=11
