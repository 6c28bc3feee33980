#!/bin/sh
# Pack ein's OpenCL tests and benchmark for a machine that has a GPU and
# its OpenCL driver but none of ein's Debian packages (the GPU machines
# lent to sessions here: another distribution, nothing to install, no
# network).  Run from a build tree configured with --disable-shared
# (libein linked into the programs):
#     ./configure --disable-shared --without-dnnl && make -j2
#     sh bench/opencl_bundle.sh .dev
# DIR (default .dev) then holds bin/ (ein, bench, check_opencl,
# opencl_example, stripped), rt/.libs/libein_rt.a (tests/opencl.test
# links a program with it), include/CL (the OpenCL headers) and
# libs.tar.xz: every library the programs need beyond libc and libm
# (LLVM, isl, OpenBLAS, CLBlast, the ICD loader libOpenCL.so.1, ...),
# with libstdc++ and libgcc_s apart in fallback/ (the other system's
# newer ones come first).  About 50 MB; bench/opencl_remote.sh, run in
# the source tree there, unpacks it and runs the tests and benchmark.
set -eu
dir=${1:-.dev}
progs="ein bench/bench tests/unit/check_opencl examples/opencl/opencl_example"
make -j2 $progs
if ldd ./ein | grep -q libein; then
	echo "$0: ein links libein.so: configure with --disable-shared" >&2
	exit 1
fi
rm -rf "$dir/bin" "$dir/rt" "$dir/include" "$dir/libs.tar.xz"
mkdir -p "$dir/bin" "$dir/rt/.libs" "$dir/include"
for p in $progs; do
	cp "$p" "$dir/bin/" && strip "$dir/bin/$(basename "$p")"
done
cp .libs/libein_rt.a "$dir/rt/.libs/"
cp -r /usr/include/CL "$dir/include/"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ein-bundle.XXXXXX")
mkdir "$tmp/lib" "$tmp/fallback"
for p in $progs; do ldd "$p"; done | awk '$3 ~ /^\// { print $1, $3 }' |
	sort -u | while read -r name path; do
	case $name in
	libc.so*|libm.so*) ;;
	libstdc++*|libgcc_s*) cp -L "$path" "$tmp/fallback/$name" ;;
	*) cp -L "$path" "$tmp/lib/$name" ;;
	esac
done
ln -sf libOpenCL.so.1 "$tmp/lib/libOpenCL.so"
(cd "$tmp" && tar cf - lib fallback) | xz -T2 -6 > "$dir/libs.tar.xz"
rm -rf "$tmp"
du -sh "$dir"
