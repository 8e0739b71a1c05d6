#!/usr/bin/env bash
# Checks the ARM Linux tarballs (make dist-arm),
# dist/chatwire-VERSION-aarch64-linux-gnu.tar.gz and
# dist/chatwire-VERSION-armv7-linux-gnueabihf.tar.gz: each holds the x86_64
# glibc tarball's tree; its shared library is built for its processor
# (ARMv7: the hard-float ABI), needs at most glibc 2.17 and carries its
# SONAME; and the consumer programs, cross-compiled by zig for glibc 2.17
# against the unpacked tarball through its pkg-config files (shared and
# static), run under qemu-user against the mock server on this machine:
# a send, a stream, tools, extraction, errors, background requests and
# cancelling them (tour.c), the versions of header and library (app.c),
# and a send over HTTPS, which runs the TLS code's ARM assembly.
#
# ZIG is the command that runs zig (make check-arm passes the one make dist
# installs). Needs qemu-user and each target's glibc for qemu's -L (Debian:
# qemu-user libc6-arm64-cross libc6-armhf-cross), openssl and pkg-config.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

version="$(make -s --no-print-directory version)"
read -ra zig <<<"${ZIG:-zig}"
"${zig[@]}" version > /dev/null 2>&1 || { echo "zig is missing: make check-arm installs it (ZIG=${ZIG:-zig})" >&2; exit 1; }
for tool in qemu-aarch64 qemu-arm openssl pkg-config readelf; do
  command -v "$tool" > /dev/null || { echo "$tool is missing (Debian: qemu-user, openssl, pkg-config, binutils)" >&2; exit 1; }
done

# shellcheck source=tests/consumers/mock.sh
source "$here/mock.sh"
make_work_dir

# The x86_64 glibc tarball's tree (make install's, see check-dist.sh), with
# each entry's type: f a file, l a symbolic link.
expected_tree() {
  {
    printf '%s (f)\n' include/chatwire.h include/chatwire.hpp \
      lib/cmake/chatwire/chatwireConfig.cmake lib/cmake/chatwire/chatwireConfigVersion.cmake \
      lib/libchatwire.a "lib/libchatwire.so.$version" \
      lib/pkgconfig/chatwire-static.pc lib/pkgconfig/chatwire.pc \
      share/doc/chatwire/CHANGELOG.md share/doc/chatwire/LICENSE-APACHE \
      share/doc/chatwire/LICENSE-MIT share/doc/chatwire/README.md
    printf '%s (l)\n' lib/libchatwire.so "lib/libchatwire.so.${version%%.*}"
    for guide in "$root"/docs/*.md; do
      printf 'share/doc/chatwire/docs/%s (f)\n' "$(basename "$guide")"
    done
  } | LC_ALL=C sort
}
tree() { (cd "$1" && find . ! -type d -printf '%P (%y)\n' | LC_ALL=C sort); }

# A CA trusted only through SSL_CERT_FILE, and a server certificate for
# localhost that it signs.
tls="$work/tls"
mkdir "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=chatwire test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" \
  -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
  -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$tls/ext"
openssl x509 -req -days 2 -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
  -CAcreateserial -extfile "$tls/ext" -out "$tls/server.pem" 2>/dev/null

: > "$work/tls-port"
: > "$work/port"
start_mock_server "$work/tls-port" --lifetime 600 --tls "$tls/server.pem" "$tls/server.key"
tls_url="https://localhost:$port"
start_mock_server "$work/port" --lifetime 600
base_url="http://127.0.0.1:$port"
stuck_url="http://127.0.0.1:$stuck_port"

# needs_shared EXE yes|no: whether EXE loads libchatwire.so (by its SONAME).
needs_shared() {
  local needed
  needed="$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
  if grep -qx "libchatwire\.so\.${version%%.*}" <<<"$needed"; then
    [ "$2" = yes ] || { echo "$1 should not need libchatwire.so" >&2; exit 1; }
  else
    [ "$2" = no ] || { echo "$1 should need libchatwire.so.${version%%.*}: $needed" >&2; exit 1; }
  fi
}

passed=0
# check TRIPLE ZIG_TARGET QEMU SYSROOT MACHINE
check() {
  local triple="$1" target="$2" qemu="$3" sysroot="$4" machine="$5"
  local name="chatwire-$version-$triple"
  local tarball="dist/$name.tar.gz"
  local out="$work/$triple"
  [ -f "$tarball" ] || { echo "$tarball is missing: make dist-arm" >&2; exit 1; }
  [ -f "$sysroot/lib/libc.so.6" ] ||
    { echo "$sysroot/lib/libc.so.6 is missing, which qemu loads (Debian: libc6-${sysroot##*-}-cross)" >&2; exit 1; }

  echo "=== $tarball"
  mkdir "$out"
  tar -C "$out" -xzf "$tarball"
  [ "$(ls "$out")" = "$name" ] || { echo "the tarball should hold one folder, $name" >&2; exit 1; }
  diff <(expected_tree) <(tree "$out/$name") ||
    { echo "$tarball is not laid out as the x86_64 glibc tarball" >&2; exit 1; }

  local library="$out/$name/lib/libchatwire.so.$version"
  local header
  header="$(readelf -h "$library")"
  grep -q "Machine: *$machine\$" <<<"$header" || { echo "$library is not for $machine:" >&2; echo "$header" >&2; exit 1; }
  if [ "$machine" = ARM ] && ! grep -q 'Flags:.*hard-float ABI' <<<"$header"; then
    echo "$library does not use the hard-float ABI" >&2
    exit 1
  fi
  "$root/packaging/check-glibc.sh" "$library" 2.17
  readelf -d "$library" | grep -q "SONAME.*\[libchatwire\.so\.${version%%.*}\]" ||
    { echo "wrong SONAME" >&2; exit 1; }

  # Moved after unpacking: the pkg-config files find their place.
  local prefix="$out/moved"
  mv "$out/$name" "$prefix"
  # Without zig's UBSan runtime, on by default: its 256 KiB of thread-local
  # storage, which glibc takes from every thread's stack, would leave
  # chatwire's 256 KiB workers too little on 32-bit ARM.
  local cc=("${zig[@]}" cc -target "$target" -fno-sanitize=undefined -std=c11 -Wall -Wextra -Werror)
  local shared static
  shared="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs chatwire)"
  static="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --cflags --libs chatwire-static)"
  echo "zig cc -target $target ... $shared"
  # shellcheck disable=SC2086 # pkg-config's output is a list of words.
  {
    "${cc[@]}" "$here/tour.c" -o "$out/tour" $shared
    "${cc[@]}" "$here/app.c" -o "$out/app" $shared
    "${cc[@]}" "$here/tour.c" -o "$out/tour-static" $static
  }
  needs_shared "$out/tour" yes
  needs_shared "$out/app" yes
  needs_shared "$out/tour-static" no

  # The library is found by the loader's path, set for the ARM program
  # alone (-E), not for qemu itself.
  run() {
    echo "--- $qemu $*"
    (cd "$out" && timeout 120 "$qemu" -L "$sysroot" -E LD_LIBRARY_PATH="$prefix/lib" \
      -E SSL_CERT_FILE="$tls/ca.pem" "$@") | tee "$out/output" ||
      { echo "$1 failed under $qemu" >&2; exit 1; }
  }
  run ./tour "$base_url" "$stuck_url"
  grep -qx 'tour: [0-9]* checks passed, 0 failed' "$out/output"
  run ./tour-static "$base_url" "$stuck_url"
  grep -qx 'tour: [0-9]* checks passed, 0 failed' "$out/output"
  run ./app "$tls_url"
  grep -qx 'reply: pong: ping' "$out/output"
  passed=$((passed + 3))
}

check aarch64-linux-gnu aarch64-linux-gnu.2.17 qemu-aarch64 /usr/aarch64-linux-gnu AArch64
check armv7-linux-gnueabihf arm-linux-gnueabihf.2.17 qemu-arm /usr/arm-linux-gnueabihf ARM
echo "arm: $passed passed, 0 failed"
