# Two nested loops around the work-items' loops each closed their
# iterations with a barrier (barrier; } barrier; }); PoCL 3.1 gave wrong
# results for this stride-2 convolution with a __local tile of I
# (random_gpu_schedules, EIN_SCHED_SEED=22, trial 24; correct with
# -cl-opt-disable or with either barrier removed).  A fenced loop whose
# body already ends with a barrier no longer adds its own
# (codegen/emit_c.c, "covered").  Passes trivially on a machine without an
# OpenCL device.
. "$src/tests/regress/lib/opencl.sh"
need_opencl
cat > conv2.ein <<'EIN'
def conv2(float32(N, C, H, W) I, float32(F, C, 1, 1) Wt) -> (O) {
    O(n, f, h, w) +=! I(n, c, 2 * h, 2 * w) * Wt(f, c, 0, 0)
}
EIN
cat > s.sched <<'SCHED'
ein-schedule 1
O: split f 8
O: split h 4
O: reorder h.o f.o w n c f.i h.i
O: gpu_blocks h.o
O: gpu_threads f.i h.i
O: local I at c
SCHED
opencl_checked O conv2.ein --fix-sizes --schedule s.sched \
	--sizes N=1,C=3,H=9,W=11,F=5
