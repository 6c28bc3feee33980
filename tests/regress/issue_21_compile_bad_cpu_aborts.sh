#!/bin/sh
# "ein compile --target-triple x86_64-... --cpu notacpu" made LLVM abort
# the process (SIGABRT): unknown processors and features are now refused
# with a message and exit status 1, before LLVM sees them.
printf 'def a(float32(N) A) -> (B) {\n    B(i) = A(i) * 2\n}\n' > k.ein
fail=0
for args in "--cpu notacpu" "--features +notafeature" "--features -64bit"; do
	"$ein" compile k.ein --target-triple x86_64-unknown-linux-gnu \
		$args -o k.o 2> err
	status=$?
	if [ $status -ne 1 ] ||
	   ! grep -q "error: .*\(not a processor\|not a feature\|64bit\)" err
	then
		echo "$args: exit $status"
		cat err
		fail=1
	fi
done
# A known processor without 64-bit mode compiles instead of aborting.
"$ein" compile k.ein --target-triple x86_64-unknown-linux-gnu \
	--cpu pentium4 -o k.o || { echo "--cpu pentium4 failed"; fail=1; }
exit $fail
