# Sourced by the bench scripts: the ein they run, in $ein.  $EIN if set,
# else the build tree's binary under .libs (libtool's, with the build's
# libraries first on LD_LIBRARY_PATH), else ./ein.
if [ -z "${EIN:-}" ] && [ -x .libs/ein ]; then
	EIN=.libs/ein
	LD_LIBRARY_PATH=.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
ein=${EIN:-./ein}
# The bits of quantised activations (ein --activation-bits): unset, ein's
# default (8), or 7 where the CPU lacks VNNI (docs/quantization.md).
act_bits=${ACT_BITS:-}

# float_and_int8 MODEL N INPUT PARAMS CALIBRATION FDIR QDIR WHAT: run
# MODEL at N=N on input x=INPUT once in float, its outputs into FDIR, and
# once quantised (PARAMS from --profile, CALIBRATION its method), into
# QDIR (with $act_bits); each run's log beside its folder (FDIR.log,
# QDIR.log).  A failed run calls the script's fail with WHAT and the
# log's end.
float_and_int8() {
	mkdir -p "$6" "$7"
	$ein run "$1" --sizes N="$2" --input x="$3" --repeat 1 --no-check \
		--output "$6" > "$6.log" 2>&1 ||
		fail "float run, $8: $(tail -3 "$6.log")"
	$ein run "$1" --quantize "$4" --calibration "$5" \
		${act_bits:+--activation-bits "$act_bits"} --sizes N="$2" \
		--input x="$3" --repeat 1 --no-check --output "$7" \
		> "$7.log" 2>&1 ||
		fail "int8 run, $8: $(tail -3 "$7.log")"
}
