# A kernel compiled ahead of time for OpenCL whose mapped loop runs once
# at the fixed sizes (here j.o: N = 29 in tiles of 32), which isl writes
# as no loop and the kernel does not guard: the object's description
# gave that grid dimension "0 ? 0 0", which the runtime takes for 64
# work-groups, and all 64 ran the whole update of C at once (wrong sums).
# It is now one group ("0 le 0 1", as the JIT's runtime launches it;
# opencl/aot.c, print_block).  The object is linked with libein_rt and
# run against a C loop.  Passes trivially without an OpenCL device.
. "$src/tests/regress/lib/opencl.sh"
need_opencl
build=$(dirname "$ein")
cat > mm.ein <<'EIN'
def mm(float32(M, K) A, float32(K, N) B) -> (C) {
    C(i, j) +=! A(i, k) * B(k, j)
}
EIN
cat > s.sched <<'SCHED'
ein-schedule 1
C.init: tile i 8 j 32
C.init: reorder i.o j.o i.i j.i
C.init: gpu_blocks i.o j.o
C.init: gpu_threads i.i j.i
C: tile i 8 j 32
C: reorder i.o j.o i.i j.i k
C: gpu_blocks i.o j.o
C: gpu_threads i.i j.i
SCHED
cat > main.c <<'C'
#include <math.h>
#include <stdio.h>
#include "mm.h"
int main(void)
{
	static float a[16 * 9], b[9 * 29], c[16 * 29];
	int i, j, k, st, wrong = 0;

	for (i = 0; i < 16 * 9; ++i)
		a[i] = (float) (i % 7) - 3;
	for (i = 0; i < 9 * 29; ++i)
		b[i] = (float) (i % 5) - 2;
	st = mm(a, b, c, 16);
	for (i = 0; i < 16; ++i)
		for (j = 0; j < 29; ++j) {
			float t = 0;

			for (k = 0; k < 9; ++k)
				t += a[i * 9 + k] * b[k * 29 + j];
			wrong += fabsf(c[i * 29 + j] - t) > 1e-4f;
		}
	printf("status %d, %d wrong\n", st, wrong);
	return st != 0 || wrong != 0;
}
C
$ein compile mm.ein --target opencl --schedule s.sched --sizes K=9,N=29 \
	-o mm.o --header mm.h || exit 1
${CC:-cc} -std=c99 ${SAN_FLAGS:-} -I. main.c mm.o "$build/.libs/libein_rt.a" \
	-lOpenCL -lpthread -lm -o main || exit 1
./main
