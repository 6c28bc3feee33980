# The OpenCL kernels declared their buffers restrict; PoCL 3.1 then gave
# wrong results for a convolution whose private accumulator tile is
# loaded from and stored to O in a work-group of one work-item
# (random_gpu_schedules, EIN_SCHED_SEED=16, trial 18; correct with
# -cl-opt-disable, without restrict, or with 4 work-items).  The buffers
# are no longer restrict (opencl/emit.c, print_signature).  Passes
# trivially on a machine without an OpenCL device.
. "$src/tests/regress/lib/opencl.sh"
need_opencl
cat > conv.ein <<'EIN'
def conv(float32(N, C, H, W) I, float32(F, C, 3, 3) Wt) -> (O) {
    O(n, f, h, w) +=! I(n, c, h + r, w + s) * Wt(f, c, r, s)
}
EIN
cat > s.sched <<'SCHED'
ein-schedule 1
O: split n 4
O: split h 8
O: reorder n.o h.o w f c n.i h.i
O: gpu_blocks n.o
O: gpu_threads n.i
O: accumulate n.i
SCHED
opencl_checked O conv.ein --fix-sizes --schedule s.sched \
	--sizes N=1,C=3,H=7,W=9,F=2
