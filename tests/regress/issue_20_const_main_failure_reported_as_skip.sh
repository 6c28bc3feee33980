# tests/opencl/const_main.c (run by tests/opencl.test after "ein devices"
# has listed a device) printed "SKIP: no OpenCL device" and exited 77
# when it could not find one itself: tests/opencl.test counted that as a
# failure, but .ci/run, which greps the suites' logs for "^SKIP", then
# reported tests/opencl as skipped instead of failed.  Now a device the
# program cannot find is an error on stderr and exit status 1.  Checked
# here by linking the program as tests/opencl.test does and running it
# with no OpenCL platform (OCL_ICD_VENDORS, the ICD loader's list of
# drivers, set to an empty folder).  Passes trivially without an OpenCL
# device.
. "$src/tests/regress/lib/opencl.sh"
need_opencl
build=$(dirname "$ein")
${CC:-cc} -std=c99 -DGEN_WEIGHTS "$src/tests/opencl/const_main.c" \
	-o gen && ./gen w.bin || exit 1
EIN_SCHEDULE_PATH="$src/schedules" $ein compile \
	"$src/tests/kernels/matmul.ein" --target opencl --sizes K=300,N=29 \
	--const B=w.bin -o const.o --header opencl_const.h || exit 1
${CC:-cc} -std=c99 ${SAN_FLAGS:-} -I. "$src/tests/opencl/const_main.c" \
	const.o "$build/.libs/libein_rt.a" -lOpenCL -lpthread -lm \
	-o const_main || exit 1
mkdir vendors
OCL_ICD_VENDORS=$(pwd)/vendors ./const_main > out 2>&1
status=$?
cat out
if [ $status -ne 1 ] || grep -q "^SKIP" out ||
    ! grep -q "error: no OpenCL device" out; then
	echo "const_main without a device: exit status $status (want 1 and an error)"
	exit 1
fi
