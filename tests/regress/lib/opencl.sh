# Sourced by the OpenCL regression scripts (tests/regress/issue_20_*.sh);
# not a test of its own (regress.test runs only tests/regress/*.sh).

# need_opencl: the script passes trivially ("not run") on a machine
# without an OpenCL device; CI always has PoCL, and .ci/run fails when the
# OpenCL suites skip.
need_opencl() {
	if ! $ein devices 2>/dev/null | grep -q "^  opencl:"; then
		echo "no OpenCL device: not run"
		exit 0
	fi
}

# opencl_checked TENSOR FILE.ein ARG...: run FILE.ein on OpenCL once with
# ARG... and fail, printing ein's output, unless TENSOR's results match the
# reference interpreter.
opencl_checked() {
	tensor=$1
	shift
	out=$($ein run "$@" --target opencl --repeat 1 2>&1)
	if ! echo "$out" | grep -q "^  check $tensor: .*: ok$"; then
		echo "wrong results ($*):"
		echo "$out"
		exit 1
	fi
}
