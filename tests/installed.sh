#!/bin/sh
# The installed tree: build examples/jit/jit.c against the installed
# ein.h and libein through the installed pkg-config file, and run it.
# Usage: installed.sh DESTDIR LIBDIR INCLUDEDIR JIT_C CC
# (DESTDIR may be empty: the tree is then where configure's prefix says.)
set -eu
destdir=$1 libdir=$2 includedir=$3 src=$4 cc=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pc=$destdir$libdir/pkgconfig
[ -f "$pc/ein.pc" ] || { echo "FAIL: no $pc/ein.pc"; exit 1; }
[ -f "$destdir$includedir/ein.h" ] || { echo "FAIL: no installed ein.h"; exit 1; }
# Under a DESTDIR the file still names the final directories.
flags=$(PKG_CONFIG_PATH=$pc pkg-config \
	--define-variable=libdir="$destdir$libdir" \
	--define-variable=includedir="$destdir$includedir" \
	--cflags --libs ein)
echo "pkg-config --cflags --libs ein: $flags"
case $flags in
*"-I$destdir$includedir"*"-L$destdir$libdir"*"-lein"*) ;;
*) echo "FAIL: the flags do not name the installed tree"; exit 1 ;;
esac
# Only the installed header: no -I into the source tree.
$cc -std=c99 "$src" $flags -lm -o "$work/jit"
LD_LIBRARY_PATH="$destdir$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/jit"
echo "installed tree: ok"
