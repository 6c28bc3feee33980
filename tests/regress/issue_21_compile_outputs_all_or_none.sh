#!/bin/sh
# "ein compile -o keep.o --header /unwritable/keep.h" exited 1 but had
# already replaced keep.o: the object no longer matched its header.  The
# outputs of one command are now committed together or not at all.
printf 'def a(float32(N) A) -> (B) {\n    B(i) = A(i) * 2\n}\n' > a.ein
printf 'def b(float32(N) A) -> (B) {\n    B(i) = A(i) * 3\n}\n' > b.ein
"$ein" compile a.ein -o keep.o --header keep.h || exit 1
cp keep.o old.o
cp keep.h old.h
"$ein" compile b.ein -o keep.o --header "$tmp/missing/keep.h" 2> err
status=$?
fail=0
[ $status -eq 1 ] || { echo "exit $status, not 1"; fail=1; }
grep -q "error: cannot write '$tmp/missing/keep.h'" err ||
	{ echo "no message naming the header:"; cat err; fail=1; }
cmp -s keep.o old.o || { echo "keep.o was replaced"; fail=1; }
cmp -s keep.h old.h || { echo "keep.h changed"; fail=1; }
left=$(ls -a | grep '\.ein-')
[ -z "$left" ] || { echo "temporaries left: $left"; fail=1; }
exit $fail
