#!/bin/sh
# Error messages echoed a 1 MB identifier whole, and control characters
# of a source file (an escape sequence) raw to the terminal.  Long names
# are now cut with "...", control characters shown as \xNN, in the
# message and in the quoted source line alike.
long=$(head -c 1000000 /dev/zero | tr '\0' x)
printf 'def a(float32(N) A) -> (B) {\n    B(i) = A(i) * %s\n}\n' "$long" \
	> long.ein
printf 'def a(float32(N) A) -> (B) {\n    B(i) = A(i) + \033[2J\007 2\n}\n' \
	> ctl.ein
fail=0
"$ein" check long.ein 2> err && { echo "long.ein passed"; fail=1; }
size=$(wc -c < err)
if [ "$size" -gt 2000 ] || ! grep -q "unknown name 'xxxxxxxx*\.\.\.'" err
then
	echo "long.ein: $size bytes of messages:"
	head -c 600 err
	fail=1
fi
"$ein" check ctl.ein 2> err && { echo "ctl.ein passed"; fail=1; }
if LC_ALL=C grep -q "$(printf '[\033\007]')" err ||
   ! grep -q "unexpected character '\\\\x1b'" err ||
   ! grep -q 'A(i) + \\x1b\[2J\\x07 2' err; then
	echo "ctl.ein: control characters not escaped:"
	od -c err | head -20
	fail=1
fi
# The caret stays under the character it points at, escapes counted.
line=$(grep -n "unexpected character '\\\\x1b'" err | head -1 | cut -d: -f1)
caret=$(sed -n "$((line + 2))p" err)
[ "$caret" = "                      ^" ] ||
	{ echo "caret misplaced: '$caret'"; fail=1; }
# The CLI quotes arguments it rejects the same way.
"$ein" run ctl.ein --sizes "N=$long" 2> err
if [ "$(wc -c < err)" -gt 500 ]; then
	echo "ein run echoed a long argument whole"
	fail=1
fi
exit $fail
