#!/usr/bin/env bash
# `make install` and `make uninstall` at the top level, as a user runs them:
# into a temporary prefix, then with DESTDIR, then with a multiarch LIBDIR;
# the three consumer programs
# build and run against the installed tree; uninstall leaves no file behind.
# Expects the C libraries built (make).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

version="$(make -s --no-print-directory version)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Files (f) and links (l) under a folder, one a line.
tree() { (cd "$1" && find . ! -type d -printf '%P (%y)\n' | LC_ALL=C sort); }

expected="$(LC_ALL=C sort <<EOF
include/chatwire.h (f)
include/chatwire.hpp (f)
lib/cmake/chatwire/chatwireConfig.cmake (f)
lib/cmake/chatwire/chatwireConfigVersion.cmake (f)
lib/libchatwire.a (f)
lib/libchatwire.so (l)
lib/libchatwire.so.${version%%.*} (l)
lib/libchatwire.so.$version (f)
lib/pkgconfig/chatwire-static.pc (f)
lib/pkgconfig/chatwire.pc (f)
share/doc/chatwire/CHANGELOG.md (f)
share/doc/chatwire/LICENSE-APACHE (f)
share/doc/chatwire/LICENSE-MIT (f)
share/doc/chatwire/README.md (f)
$(cd docs && for guide in *.md; do echo "share/doc/chatwire/docs/$guide (f)"; done)
EOF
)"

echo "=== make install PREFIX=<temporary folder>"
prefix="$work/prefix"
make --no-print-directory install PREFIX="$prefix" > "$work/install.log"
diff <(echo "$expected") <(tree "$prefix") || { echo "unexpected install tree" >&2; exit 1; }
(cd "$prefix" && find . -mindepth 1 \( -type l -printf '  %M %10s %P -> %l\n' \) -o -printf '  %M %10s %P\n' |
  LC_ALL=C sort -k3)
[ "$(readlink "$prefix/lib/libchatwire.so")" = "libchatwire.so.${version%%.*}" ]
[ "$(readlink "$prefix/lib/libchatwire.so.${version%%.*}")" = "libchatwire.so.$version" ]
readelf -d "$prefix/lib/libchatwire.so.$version" | grep -q "SONAME.*\[libchatwire\.so\.${version%%.*}\]" ||
  { echo "wrong SONAME" >&2; exit 1; }
grep -qx "prefix=$prefix" "$prefix/lib/pkgconfig/chatwire.pc"

"$here/build-and-run.sh" "$prefix" "$version"

echo "=== uninstalling another version leaves this one alone"
if packaging/install.sh uninstall --version 99.0.0 --prefix "$prefix" 2> "$work/other.log"; then
  echo "uninstalling 99.0.0 succeeded over $version" >&2
  exit 1
fi
grep -q "holds chatwire $version, not 99.0.0" "$work/other.log" || { cat "$work/other.log" >&2; exit 1; }
diff <(echo "$expected") <(tree "$prefix") || { echo "the refused uninstall changed the tree" >&2; exit 1; }

echo "=== make uninstall PREFIX=<temporary folder>"
make --no-print-directory uninstall PREFIX="$prefix" > /dev/null
leftover="$(tree "$prefix")"
[ -z "$leftover" ] || { echo "uninstall left files behind:" >&2; echo "$leftover" >&2; exit 1; }

echo "=== make install DESTDIR=<folder with a space> PREFIX=/opt/chatwire-test"
stage="$work/stage dir"
[ ! -e /opt/chatwire-test ] || { echo "/opt/chatwire-test exists already" >&2; exit 1; }
make --no-print-directory install DESTDIR="$stage" PREFIX=/opt/chatwire-test > /dev/null
diff <(echo "$expected") <(tree "$stage/opt/chatwire-test") || { echo "unexpected DESTDIR tree" >&2; exit 1; }
[ ! -e /opt/chatwire-test ] || { echo "install wrote outside DESTDIR" >&2; exit 1; }
# The files name the final prefix, not the staging folder.
grep -qx "prefix=/opt/chatwire-test" "$stage/opt/chatwire-test/lib/pkgconfig/chatwire.pc"
make --no-print-directory uninstall DESTDIR="$stage" PREFIX=/opt/chatwire-test > /dev/null
leftover="$(tree "$stage")"
[ -z "$leftover" ] || { echo "uninstall with DESTDIR left files behind:" >&2; echo "$leftover" >&2; exit 1; }

echo "=== make install PREFIX=<temporary folder> LIBDIR=lib/x86_64-linux-gnu"
multiarch="lib/x86_64-linux-gnu"
prefix="$work/multiarch"
make --no-print-directory install PREFIX="$prefix" LIBDIR="$multiarch" > /dev/null
diff <(sed "s|^lib/|$multiarch/|" <<<"$expected" | LC_ALL=C sort) <(tree "$prefix") ||
  { echo "unexpected tree with LIBDIR" >&2; exit 1; }
grep -qx "libdir=\${exec_prefix}/$multiarch" "$prefix/$multiarch/pkgconfig/chatwire.pc"
"$here/build-and-run.sh" "$prefix" "$version" "$multiarch"
if make --no-print-directory install PREFIX="$prefix" LIBDIR=../etc > /dev/null 2>&1; then
  echo "a LIBDIR outside PREFIX was taken" >&2
  exit 1
fi
make --no-print-directory uninstall PREFIX="$prefix" LIBDIR="$multiarch" > /dev/null
leftover="$(tree "$prefix")"
[ -z "$leftover" ] || { echo "uninstall with LIBDIR left files behind:" >&2; echo "$leftover" >&2; exit 1; }

echo "install: 5 passed, 0 failed"
