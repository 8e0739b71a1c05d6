#!/usr/bin/env bash
# Checks dist/chatwire-VERSION-x86_64-linux-gnu.tar.gz (make dist): the same
# tree as make install, a shared library that needs at most glibc 2.17 and
# carries its SONAME, and the three consumer programs built against the
# unpacked tarball, wherever it was unpacked, shared and static.
# Expects make dist and the native C libraries (make) built.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

version="$(make -s --no-print-directory version)"
name="chatwire-$version-x86_64-linux-gnu"
tarball="dist/$name.tar.gz"
[ -f "$tarball" ] || { echo "$tarball is missing: make dist" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

tree() { (cd "$1" && find . ! -type d -printf '%P (%y)\n' | LC_ALL=C sort); }

echo "=== $tarball"
tar -C "$work" -xzf "$tarball"
[ "$(ls "$work")" = "$name" ] || { echo "the tarball should hold one folder, $name" >&2; exit 1; }
unpacked="$work/$name"
make --no-print-directory install PREFIX="$work/installed" > /dev/null
diff <(tree "$work/installed") <(tree "$unpacked") || { echo "dist differs from make install" >&2; exit 1; }
tree "$unpacked" | sed 's/^/  /'

library="$unpacked/lib/libchatwire.so.$version"
"$root/packaging/check-glibc.sh" "$library" 2.17
readelf -d "$library" | grep -q "SONAME.*\[libchatwire\.so\.${version%%.*}\]" ||
  { echo "wrong SONAME" >&2; exit 1; }

# Moved after unpacking: chatwire.pc and the CMake package find their place.
mv "$unpacked" "$work/moved"
"$here/build-and-run.sh" "$work/moved" "$version"
echo "dist: 3 passed, 0 failed"
