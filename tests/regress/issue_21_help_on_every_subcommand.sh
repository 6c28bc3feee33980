# 'ein demo --help' ran the demo and 'ein run --help' was an error: every
# subcommand takes --help (and -h), 'ein help COMMAND' prints the same
# page, and the manual page is printed from the same table.
for cmd in run compile check show tune demo version help; do
	out=$($ein "$cmd" --help 2>&1) || { echo "ein $cmd --help exited $?: $out"; exit 1; }
	echo "$out" | head -n 1 | grep -q "^usage: ein $cmd" ||
		{ echo "ein $cmd --help printed: $out"; exit 1; }
	[ "$($ein help "$cmd" 2>&1)" = "$out" ] ||
		{ echo "ein help $cmd differs from ein $cmd --help"; exit 1; }
	[ "$($ein "$cmd" -h 2>&1)" = "$out" ] ||
		{ echo "ein $cmd -h differs from ein $cmd --help"; exit 1; }
done
# --help anywhere on the line wins over running the command.
out=$($ein demo --sizes 4096 --help 2>&1) || { echo "demo --sizes --help: $out"; exit 1; }
echo "$out" | grep -q "MISMATCH\|GFLOP/s  *[0-9]" && { echo "ein demo --help ran the demo"; exit 1; }
# Every option a command's page lists is in the manual page too.
$ein help --man > ein.1 || { echo "ein help --man failed"; exit 1; }
grep -q '^\.TH EIN 1' ein.1 || { echo "no .TH line in the manual page"; exit 1; }
for opt in '\\-\\-fix\\-sizes' '\\-\\-header FILE.h' '\\-\\-resume' '\\-\\-stage=STAGE' '\\-\\-threads N'; do
	grep -q "$opt" ein.1 || { echo "manual page lacks $opt"; exit 1; }
done
# An unknown command's help is an error, with the overview.
$ein help nosuchcommand > out 2> err && { echo "ein help nosuchcommand exited 0"; exit 1; }
grep -q "unknown command 'nosuchcommand'" err || { echo "ein help nosuchcommand: $(cat err)"; exit 1; }
exit 0
