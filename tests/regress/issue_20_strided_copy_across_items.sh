# A cooperative copy into __local memory whose loops isl strides (the
# tile of I that a stride-2 convolution reads, every other element) gave
# work-item k the iterations start + k + n * items * step: off the loop's
# lattice for odd k, so the tile held the wrong elements and the results
# were wrong (random_gpu_schedules, EIN_SCHED_SEED=4, trial 30).  Each
# work-item now starts at start + k * step.  Passes trivially on a
# machine without an OpenCL device.
. "$src/tests/regress/lib/opencl.sh"
need_opencl
cat > conv2.ein <<'EIN'
def conv2(float32(N, C, H, W) I, float32(F, C, 1, 1) Wt) -> (O) {
    O(n, f, h, w) +=! I(n, c, 2 * h, 2 * w) * Wt(f, c, 0, 0)
}
EIN
cat > s.sched <<'SCHED'
ein-schedule 1
O: split h 16
O: reorder f h.o w c n h.i
O: gpu_blocks f
O: gpu_threads h.i
O: local I at h.o
O: accumulate h.i
SCHED
opencl_checked O conv2.ein --fix-sizes --schedule s.sched \
	--sizes N=1,C=3,H=9,W=11,F=5
