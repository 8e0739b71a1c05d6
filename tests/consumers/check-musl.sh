#!/usr/bin/env bash
# Checks dist/chatwire-VERSION-x86_64-linux-musl.tar.gz (make dist): the
# consumer programs linked with `musl-gcc -static` against the unpacked
# tarball, through its pkg-config file, are single files with no dynamic
# dependency, and run against the mock server: a send, a stream, tools,
# extraction, errors and cancelled background requests.
# Expects make dist; needs musl-gcc (Debian: musl-tools).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

version="$(make -s --no-print-directory version)"
name="chatwire-$version-x86_64-linux-musl"
tarball="dist/$name.tar.gz"
[ -f "$tarball" ] || { echo "$tarball is missing: make dist" >&2; exit 1; }
command -v musl-gcc >/dev/null || { echo "musl-gcc is missing (Debian: musl-tools)" >&2; exit 1; }
# shellcheck source=tests/consumers/mock.sh
source "$here/mock.sh"
make_work_dir

echo "=== $tarball"
tar -C "$work" -xzf "$tarball"
(cd "$work/$name" && find . ! -type d -printf '  %P\n' | LC_ALL=C sort)
# Moved after unpacking: the pkg-config file finds its place.
mv "$work/$name" "$work/moved"
export PKG_CONFIG_PATH="$work/moved/lib/pkgconfig"
flags="$(pkg-config --cflags --libs chatwire-static)"
echo "musl-gcc -static ... $flags"

start_mock_server "$work/port" --lifetime 300

passed=0
for program in app tour; do
  # shellcheck disable=SC2086 # pkg-config's output is a list of words.
  musl-gcc -static -std=c11 -Wall -Wextra -Werror "$here/$program.c" -o "$work/$program" $flags
  if ldd "$work/$program" > "$work/ldd" 2>&1 || ! grep -q 'not a dynamic executable' "$work/ldd"; then
    echo "$program is not fully static:" >&2
    cat "$work/ldd" >&2
    exit 1
  fi
  file "$work/$program" 2>/dev/null | sed 's/^/  /' || true
  echo "--- $program (static, $(du -k "$work/$program" | cut -f1) KiB)"
  urls=("http://127.0.0.1:$port")
  [ "$program" = app ] || urls+=("http://127.0.0.1:$stuck_port")
  (cd "$work" && timeout 60 "./$program" "${urls[@]}")
  passed=$((passed + 1))
done
echo "musl: $passed passed, 0 failed"
