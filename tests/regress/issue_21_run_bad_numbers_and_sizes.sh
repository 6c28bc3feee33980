#!/bin/sh
# "ein run" crashed or said nothing on bad numbers: sizes whose tensors'
# byte counts overflow int64 segfaulted, --repeat 2000000 overflowed the
# stack, --repeat abc was silently 1, a file without definitions said
# "no definition named '(null)'", "ein check /dev/zero" read until memory
# ran out.  Each must now end with a clear message (or run).
cat > k.ein <<'END'
def acc(float32(M, K) A, float32(K, N) B) -> (float32(M, N) C) {
    C(i, j) +=! A(i, k) * B(k, j)
}
END
cat > lit.ein <<'END'
def big(float32(4000000000, 4000000000) A) -> (B) {
    B(i, j) = A(i, j) * 2
}
END
: > empty.ein
fail=0
# expect STATUS PATTERN COMMAND...: the exit status and a line of stderr.
expect() {
	want=$1 pattern=$2
	shift 2
	timeout 60 "$@" > out 2> err
	status=$?
	if [ $status -ne "$want" ] ||
	   { [ -n "$pattern" ] && ! grep -q -- "$pattern" err; }; then
		echo "$*: exit $status (want $want, stderr matching '$pattern')"
		head -c 2000 err
		fail=1
	fi
}
expect 1 "cannot allocate tensor A: its size in bytes overflows" \
	"$ein" run k.ein --sizes M=4294967296,N=4294967296,K=4294967296
expect 1 "cannot allocate tensor A: its size in bytes overflows" \
	"$ein" run lit.ein
expect 2 "size takes an integer" \
	"$ein" run k.ein --sizes M=99999999999999999999,N=2,K=2
expect 2 "size takes an integer" "$ein" run k.ein --sizes M=4x,N=2,K=2
expect 2 "^ein run: error: --repeat takes an integer from 1 to .*, not 'abc'" \
	"$ein" run k.ein --sizes M=2,N=2,K=2 --repeat abc
expect 2 "--repeat takes" "$ein" run k.ein --sizes M=2,N=2,K=2 --repeat 0
expect 0 "" "$ein" run k.ein --sizes M=2,N=2,K=2 --repeat 2000000
grep -q ": ok$" out || { echo "--repeat 2000000 did not run"; fail=1; }
expect 1 "the program has no definition" "$ein" run empty.ein --sizes M=1
if grep -q "(null)" err; then echo "says (null)"; fail=1; fi
expect 1 "larger than 64 MiB" "$ein" check /dev/zero
expect 2 "--trials takes an integer" "$ein" tune k.ein --sizes M=2,N=2,K=2 --trials 5x
expect 2 "--seed takes an integer" "$ein" tune k.ein --sizes M=2,N=2,K=2 --seed -1
expect 2 "--time takes a positive duration" "$ein" tune k.ein --sizes M=2,N=2,K=2 --time nan
expect 2 "--mem-limit takes" "$ein" tune k.ein --sizes M=2,N=2,K=2 --mem-limit 99999999999G
expect 2 "size takes an integer" "$ein" show k.ein --sizes M=abc
expect 1 "size takes an integer" "$ein" compile k.ein --sizes M=1.5 -o k.o
expect 2 "--sizes takes an integer" "$ein" demo --sizes 128,x
exit $fail
