# Sourced by the bench scripts: the ein they run, in $ein.  $EIN if set,
# else the build tree's binary under .libs (libtool's, with the build's
# libraries first on LD_LIBRARY_PATH), else ./ein.
if [ -z "${EIN:-}" ] && [ -x .libs/ein ]; then
	EIN=.libs/ein
	LD_LIBRARY_PATH=.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
ein=${EIN:-./ein}
