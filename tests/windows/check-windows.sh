#!/usr/bin/env bash
# Checks dist/chatwire-VERSION-ARCH-windows-gnu.zip (make dist-windows),
# ARCH x86_64 (the default), i686, x86_64-win7 or i686-win7: the archive's
# files; the header as a Windows C program sees it (-Wall -Wextra -Werror);
# the consumer programs cross-compiled with MinGW-w64 against chatwire.dll
# (through its import library) and against libchatwire.a, run under Wine
# against the mock server: a send, a stream, tools, extraction, an image
# file with a non-ASCII name, errors and cancelled background requests,
# with the same assertions as on Linux; cancel_connect.c, a cancel that must
# end socket2's wait for a TCP connect (WSAPoll) at once. For i686 also: the
# DLL exports the plain names, and stdcall.c finds them with GetProcAddress
# and checks after each call that the function popped its arguments
# (__stdcall), through every callback type; stdcall.cpp does the same
# through chatwire.hpp. The win7 zips get the same checks as their CPU's,
# in a Wine prefix that reports
# Windows 7 SP1, and the import audit (packaging/check-win7.py) that make
# dist-windows ran on the DLL runs on a program with the static library too.
#
#   check-windows.sh [x86_64|i686|x86_64-win7|i686-win7]
#
# Wine is not Windows; see the Windows section of docs/install.md for what this
# shows. Needs ARCH-w64-mingw32-gcc and -g++ (Debian: gcc-mingw-w64-x86-64,
# g++-mingw-w64-x86-64; gcc-mingw-w64-i686, g++-mingw-w64-i686) and Wine
# (Debian: wine64; for i686 wine32:i386, ../shared/tools/install-wine32.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
consumers="$root/tests/consumers"
cd "$root"

arch="${1:-x86_64}"
cpu="${arch%-win7}"
case "$cpu" in
  x86_64)
    wine="$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)"
    wine_package=wine64
    ;;
  i686)
    # The 32-bit loader, in a 32-bit prefix: the programs are 32-bit.
    wine=/usr/lib/wine/wine
    wine_package="wine32:i386 (../shared/tools/install-wine32.sh)"
    export WINEARCH=win32
    ;;
  *) echo "usage: check-windows.sh [x86_64|i686|x86_64-win7|i686-win7]" >&2; exit 2 ;;
esac
version="$(make -s --no-print-directory version)"
name="chatwire-$version-$arch-windows-gnu"
zip="dist/$name.zip"
[ -f "$zip" ] || { echo "$zip is missing: make dist-windows" >&2; exit 1; }
CC=$cpu-w64-mingw32-gcc
CXX=$cpu-w64-mingw32-g++
OBJDUMP=$cpu-w64-mingw32-objdump
tools=("$CC" "$OBJDUMP")
[ "$cpu" = x86_64 ] || tools+=("$CXX") # the C++ program runs on i686
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null ||
    { echo "$tool is missing (Debian: gcc-mingw-w64-${cpu//_/-}, g++-mingw-w64-${cpu//_/-})" >&2; exit 1; }
done
[ -x "$wine" ] || { echo "Wine is missing (Debian: $wine_package)" >&2; exit 1; }

# shellcheck source=tests/consumers/mock.sh
source "$consumers/mock.sh"
make_work_dir
cleanup() {
  # Debian keeps wineserver beside the loader, off PATH. Waiting for it to
  # go keeps its last writes from racing the removal of the prefix.
  local server
  server="$(command -v wineserver || echo "$(dirname "$wine")/wineserver")"
  WINEPREFIX="$work/wine" "$server" -k 2>/dev/null || true
  WINEPREFIX="$work/wine" "$server" -w 2>/dev/null || true
  clean_up_work
}
trap cleanup EXIT

echo "=== $zip"
(cd "$work" && unzip -q "$root/$zip")
unpacked="$work/$name"
expected="bin/chatwire.dll
include/chatwire.h
include/chatwire.hpp
lib/chatwire.def
lib/libchatwire.a
lib/libchatwire.dll.a
lib/pkgconfig/chatwire-static.pc
lib/pkgconfig/chatwire.pc
share/doc/chatwire/CHANGELOG.md
share/doc/chatwire/LICENSE-APACHE
share/doc/chatwire/LICENSE-MIT
share/doc/chatwire/README.md
$(cd "$root/docs" && for guide in *.md; do echo "share/doc/chatwire/docs/$guide"; done)"
diff <(echo "$expected") <(cd "$unpacked" && find . -type f -printf '%P\n' | LC_ALL=C sort) ||
  { echo "the zip holds other files than expected" >&2; exit 1; }
# Every function of the header is exported, under its C name (in the
# 32-bit .def with its arguments' size, chatwire_send@12, as dlltool wants).
exports="$(sed -n '/^EXPORTS/,$p' "$unpacked/lib/chatwire.def" | awk 'NR > 1 { print $1 }' | sed 's/@[0-9]*$//' | LC_ALL=C sort)"
declared="$(grep -vE '^\s*(\*|/)' "$unpacked/include/chatwire.h" | grep -oE '\bchatwire_[a-z0-9_]+\(' | tr -d '(' | LC_ALL=C sort -u)"
missing="$(LC_ALL=C comm -13 <(echo "$exports") <(echo "$declared"))"
[ -z "$missing" ] || { echo "chatwire.def lacks: $missing" >&2; exit 1; }
echo "chatwire.def exports all $(wc -l <<<"$declared") functions of the header"
# The DLL's own export table: the plain names, exactly the header's
# functions (GetProcAddress and Declare find them; no _name@12).
table="$("$OBJDUMP" -p "$unpacked/bin/chatwire.dll" | sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/p' | awk 'NR > 1 && NF > 2 { print $NF }' | LC_ALL=C sort)"
diff <(echo "$declared") <(echo "$table") ||
  { echo "chatwire.dll exports other names than the header's functions" >&2; exit 1; }
echo "chatwire.dll exports the $(wc -l <<<"$table") plain names"
if [ "$cpu" = i686 ]; then
  # Every entry of the 32-bit .def carries its arguments' size: __stdcall.
  if sed -n '/^EXPORTS/,$p' "$unpacked/lib/chatwire.def" | awk 'NR > 1' | grep -vE '^\s+chatwire_[a-z0-9_]+@[0-9]+$'; then
    echo "chatwire.def has entries that are not __stdcall" >&2; exit 1
  fi
fi
# Only Windows' own DLLs (and the C runtime every Windows has) at run time.
# The DLLs a Windows binary loads.
dlls() { "$OBJDUMP" -p "$1" | sed -n 's/^\tDLL Name: //p'; }
dlls "$unpacked/bin/chatwire.dll" | LC_ALL=C sort -f > "$work/needs"
echo "chatwire.dll needs: $(paste -sd ' ' "$work/needs")"
if grep -viE '^(kernel32|ntdll|ws2_32|advapi32|bcrypt|bcryptprimitives|crypt32|secur32|userenv|msvcrt|api-ms-win-[a-z0-9-]+)\.dll$' "$work/needs"; then
  echo "chatwire.dll needs a DLL that Windows does not ship" >&2
  exit 1
fi

# The test-only stand-in for the DLL Wine lacks (see bcryptprimitives.c).
# --kill-at: its ProcessPrng is WINAPI, exported as ProcessPrng@8 on i686 otherwise.
"$CC" -shared -O2 -Wall -Wextra -Werror "$here/bcryptprimitives.c" -o "$work/bcryptprimitives.dll" -lbcrypt \
  -Wl,--kill-at

# Where CHATWIRE_CALL is __stdcall, the header in every C and C++ dialect
# it promises, as tests/dialects.rs checks it where the macro is empty.
if [ "$cpu" = i686 ]; then
  for std in c89 c99 c11 c17; do
    echo '#include <chatwire.h>' | "$CC" -x c -std=$std -pedantic-errors -Wall -Wextra -Werror \
      -I"$unpacked/include" -fsyntax-only -
  done
  for std in c++98 c++11 c++14 c++17 c++20; do
    echo '#include <chatwire.h>' | "$CXX" -x c++ -std=$std -pedantic-errors -Wall -Wextra -Werror \
      -I"$unpacked/include" -fsyntax-only -
  done
  echo "chatwire.h compiles as C89 to C17 and C++98 to C++20 with CHATWIRE_CALL as __stdcall"
fi

export PKG_CONFIG_PATH="$unpacked/lib/pkgconfig"
warn=(-std=c11 -Wall -Wextra -Werror)
# shellcheck disable=SC2046 # pkg-config's output is a list of words.
{
  "$CC" "${warn[@]}" "$consumers/app.c" -o "$work/app.exe" $(pkg-config --cflags --libs chatwire)
  "$CC" "${warn[@]}" "$consumers/tour.c" -o "$work/tour.exe" $(pkg-config --cflags --libs chatwire)
  "$CC" "${warn[@]}" "$consumers/tour.c" -o "$work/tour-static.exe" -static \
    $(pkg-config --static --cflags --libs chatwire-static)
  "$CC" "${warn[@]}" "$here/cancel_connect.c" -o "$work/cancel_connect.exe" $(pkg-config --cflags --libs chatwire)
  if [ "$cpu" = i686 ]; then
    # No import library: the functions are found at run time by their names.
    "$CC" "${warn[@]}" "$here/stdcall.c" -o "$work/stdcall.exe" -I"$unpacked/include"
    "$CXX" -std=c++17 -Wall -Wextra -Werror -pedantic "$here/stdcall.cpp" -o "$work/stdcall_cpp.exe" \
      -static-libgcc -static-libstdc++ $(pkg-config --cflags --libs chatwire)
    # The import library Visual Studio users make from the .def (docs/install.md),
    # in Visual Studio's own format, which MinGW's linker reads too.
    llvm_dlltool="$(compgen -c llvm-dlltool | LC_ALL=C sort -V | tail -n 1 || true)"
    if [ -n "$llvm_dlltool" ]; then
      "$llvm_dlltool" -m i386 -k -d "$unpacked/lib/chatwire.def" -l "$work/chatwire.lib"
      "$CC" "${warn[@]}" "$consumers/app.c" -o "$work/app-lib.exe" -I"$unpacked/include" "$work/chatwire.lib"
    fi
  fi
}
cp "$unpacked/bin/chatwire.dll" "$work/"
for exe in app tour; do
  grep -qx chatwire.dll <<<"$(dlls "$work/$exe.exe")" ||
    { echo "$exe.exe does not load chatwire.dll" >&2; exit 1; }
done
if grep -qx chatwire.dll <<<"$(dlls "$work/tour-static.exe")"; then
  echo "tour-static.exe loads chatwire.dll" >&2
  exit 1
fi
if [ "$arch" != "$cpu" ]; then
  # The zip's DLL as make dist-windows audited it, and a program with the
  # zip's static library inside: neither imports what Windows 7 lacks.
  OBJDUMP="$OBJDUMP" "$root/packaging/check-win7.py" "$work/chatwire.dll" "$work/tour-static.exe"
fi

start_mock_server "$work/port" --lifetime 300

export WINEPREFIX="$work/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
echo "--- starting Wine ($("$wine" --version))"
started=$SECONDS
"$wine" wineboot --init > /dev/null 2>&1 || true
echo "Wine ready in $((SECONDS - started)) s"
if [ "$arch" != "$cpu" ]; then
  # This prefix (the run's own) reports Windows 7 SP1: winecfg's -v sets the
  # version without a window, and `ver` reads it back (Wine 8 makes new
  # prefixes Windows 7, later Wines Windows 10). Wine keeps every function
  # of later Windows whatever it reports (Windows 8's WaitOnAddress too,
  # which a DLL override cannot take away: Wine resolves its API set to
  # kernelbase), so this checks the zip under the version, and the import
  # audit checks what it needs.
  "$wine" winecfg -v win7 > /dev/null 2>&1
  reported="$("$wine" cmd /c ver 2>/dev/null | tr -d '\r' | grep . || true)"
  grep -q ' 6\.1\.7601$' <<<"$reported" ||
    { echo "the Wine prefix does not report Windows 7 SP1: $reported" >&2; exit 1; }
  echo "Wine reports $reported"
fi

run() {
  echo "--- $*"
  if ! (cd "$work" && timeout 120 "$wine" "$@") 2>&1 | tr -d '\r' | tee "$work/out"; then
    echo "$1 failed under Wine" >&2
    exit 1
  fi
}
run tour.exe "http://127.0.0.1:$port" "http://127.0.0.1:$stuck_port"
run tour-static.exe "http://127.0.0.1:$port" "http://127.0.0.1:$stuck_port"
run app.exe "http://127.0.0.1:$port"
grep -qx 'reply: pong: ping' "$work/out"
run cancel_connect.exe "http://127.0.0.1:$stuck_port"
grep -q '^cancel_connect: ok' "$work/out"
passed=4
if [ "$cpu" = i686 ]; then
  run stdcall.exe "http://127.0.0.1:$port"
  grep -q '^stdcall: [0-9]* calls, 0 left the stack unbalanced; [0-9]* passed, 0 failed$' "$work/out"
  run stdcall_cpp.exe "http://127.0.0.1:$port"
  grep -qx 'stdcall_cpp: ok' "$work/out"
  passed=$((passed + 2))
  if [ -n "$llvm_dlltool" ]; then
    run app-lib.exe "http://127.0.0.1:$port"
    grep -qx 'reply: pong: ping' "$work/out"
    passed=$((passed + 1))
  else
    echo "--- app.exe through llvm-dlltool's import library: skipped, no llvm-dlltool"
  fi
fi

# TLS: a server whose CA is trusted nowhere, then in a CA file, then in the
# Windows certificate store. SSL_CERT_FILE and SSL_CERT_DIR, which Wine
# passes on from this system, would replace the store: unset here.
if grep -q 'chatwire_client_set_ca_file' "$unpacked/include/chatwire.h"; then
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
  openssl x509 -in "$tls/ca.pem" -outform der -out "$work/ca.der"
  cp "$tls/ca.pem" "$work/ca-é中.pem"
  start_mock_server "$tls/port" --lifetime 120 --tls "$tls/server.pem" "$tls/server.key"
  "$CC" "${warn[@]}" "$here/tls.c" -o "$work/tls.exe" -I"$unpacked/include" -L"$unpacked/lib" -lchatwire -lcrypt32
  for mode in none ca-file store; do
    echo "--- tls.exe $mode"
    (cd "$work" && env -u SSL_CERT_FILE -u SSL_CERT_DIR timeout 60 \
      "$wine" tls.exe "https://localhost:$port" "$mode") 2>&1 | tr -d '\r' ||
      { echo "tls.exe $mode failed under Wine" >&2; exit 1; }
  done
  passed=$((passed + 3))
else
  echo "--- TLS: skipped, this chatwire has no CA-file setting"
fi
echo "windows $arch: $passed passed, 0 failed"
