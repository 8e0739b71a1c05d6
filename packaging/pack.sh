#!/usr/bin/env bash
# Lays out and packs the dist archives for the platforms that get no
# `make install` tree: a fully static Linux archive (musl) and Windows.
#
#   pack.sh musl    --from DIR --version X.Y.Z --unwind LIBUNWIND_A --out TARBALL
#   pack.sh windows --from DIR --version X.Y.Z --out ZIP
#
# --from is the cargo build folder of that target (libchatwire.a and
# native-static-libs.txt; for Windows also chatwire.dll, libchatwire.dll.a
# and chatwire.def). The archive holds one folder named after it.
# Called by the top-level Makefile.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

usage() {
  sed -n '2,11p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

[ $# -ge 1 ] || usage
kind="$1"
shift
from="" version="" unwind="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --from) from="$2"; shift 2 ;;
    --version) version="$2"; shift 2 ;;
    --unwind) unwind="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) usage ;;
  esac
done
if [ -z "$from" ] || [ -z "$version" ] || [ -z "$out" ]; then usage; fi

name="$(basename "$out")"
name="${name%.tar.gz}"
name="${name%.zip}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tree="$work/$name"
install -d "$tree/include" "$tree/lib" "$tree/share/doc/chatwire/docs"
install -m 644 "$root/include/chatwire.h" "$root/include/chatwire.hpp" "$tree/include/"
install -m 644 "$from/libchatwire.a" "$tree/lib/"
for doc in LICENSE-MIT LICENSE-APACHE README.md CHANGELOG.md; do
  install -m 644 "$root/$doc" "$tree/share/doc/chatwire/"
done
# The guides the README links to, beside it as in the source tree.
install -m 644 "$root"/docs/*.md "$tree/share/doc/chatwire/docs/"
# The system libraries the static archive needs, as rustc lists them.
libs="$(tr -s ' \n' '  ' < "$from/native-static-libs.txt" | sed -e 's/^ *//' -e 's/ *$//')"

# A relocatable pkg-config file: it finds the archive from its own place.
write_pc() {
  install -d "$tree/lib/pkgconfig"
  cat > "$tree/lib/pkgconfig/$1.pc" <<PC
# $2
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $1
Description: C API for OpenAI-compatible chat completions ($3)
URL: https://github.com/chatwire/chatwire
Version: $version
Cflags: -I\${includedir}$4
Libs: $5
PC
}

mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
rm -f "$out"
case "$kind" in
  musl)
    [ -n "$unwind" ] || usage
    # rustc's musl archive leaves the unwinder to the link; the host
    # compiler's belongs to glibc, so the toolchain's own comes along.
    install -m 644 "$unwind" "$tree/lib/libunwind.a"
    write_pc chatwire-static \
      "musl-gcc -static \$(pkg-config --cflags --libs chatwire-static): one file, no dynamic dependency." \
      "static, musl" "" "\${libdir}/libchatwire.a -L\${libdir} $libs"
    tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -9n > "$out"
    ;;
  windows)
    install -d "$tree/bin"
    install -m 755 "$from/chatwire.dll" "$tree/bin/"
    install -m 644 "$from/libchatwire.dll.a" "$from/chatwire.def" "$tree/lib/"
    write_pc chatwire "MinGW: links chatwire.dll through its import library." "DLL" \
      "" "-L\${libdir} -lchatwire"
    write_pc chatwire-static "MinGW: links libchatwire.a and the Windows libraries it needs." \
      "static" " -DCHATWIRE_STATIC" "\${libdir}/libchatwire.a $libs"
    (cd "$work" && find "$name" -exec touch -d '1980-01-01 00:00:00' {} + &&
      find "$name" -type f | LC_ALL=C sort | zip -q -X -9 "$out.tmp" -@)
    mv "$out.tmp" "$out"
    ;;
  *)
    usage
    ;;
esac
echo "$out"
