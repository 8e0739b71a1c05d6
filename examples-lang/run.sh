#!/usr/bin/env bash
# Builds every example of docs/languages.md and runs it against the mock
# server of tests/consumers (answers "pong: " and the question, streamed in
# three pieces); each output must be expected.txt, line for line. Then
# checks that the VBA/VB6 module matches include/chatwire.h.
#
#   examples-lang/run.sh [LIBDIR]     LIBDIR: libchatwire.so's folder (default target/release,
#                                     which `make lib` fills)
#
# Needs python3, luajit, mcs and mono, fpc, gfortran and cobc (Debian 12:
# python3 luajit mono-mcs mono-runtime fp-compiler gfortran gnucobol3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
libdir="$(cd "${1:-$root/target/release}" && pwd)"
build="$root/target/languages"
version="$(awk -F'"' '/^\[/ { package = ($0 == "[package]") } package && /^version *=/ { print $2; exit }' "$root/Cargo.toml")"
[ -f "$libdir/libchatwire.so" ] || { echo "no libchatwire.so in $libdir: run make lib" >&2; exit 1; }

missing=()
for tool in python3:python3 luajit:luajit mcs:mono-mcs mono:mono-runtime fpc:fp-compiler gfortran:gfortran cobc:gnucobol3; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing compilers; on Debian 12: apt-get install ${missing[*]}" >&2
  exit 1
fi

# shellcheck source=tests/consumers/mock.sh
source "$root/tests/consumers/mock.sh"
make_work_dir
start_mock_server "$work/port" --lifetime 600
url="http://127.0.0.1:$port"
export OPENAI_API_KEY=sk-consumer-test LANG=C.UTF-8 LC_ALL=C.UTF-8
sed "s/VERSION/$version/" "$here/expected.txt" > "$work/expected"

rm -rf "$build"
mkdir -p "$build"/{csharp,pascal,fortran,cobol}
failed=0

# check NAME COMMAND...: runs the example and compares its output.
check() {
  local name="$1" status=0
  shift
  "$@" "$url" > "$work/$name.out" 2> "$work/$name.err" || status=$?
  local expected="$work/expected"
  if [ "$name" = cobol ]; then
    # Without a callback the pieces are read as they come: one to three.
    # COBOL shows an ingredient's quantity too, which it reads through
    # chatwire_ingredients_quantity_out (it cannot receive a double).
    sed -e 's/^pieces: 3$/pieces: [123]/' -e 's/^done$/ingredient: flour 1.50\ndone/' \
      "$work/expected" > "$work/expected-cobol"
    expected="$work/expected-cobol"
  fi
  local lines
  lines="$(wc -l < "$expected")"
  if [ "$status" -eq 0 ] && [ "$(wc -l < "$work/$name.out")" -eq "$lines" ] &&
     paste -d '\n' "$expected" "$work/$name.out" | awk 'NR % 2 { pattern = $0; next } $0 !~ "^" pattern "$" && $0 != pattern { exit 1 }'; then
    echo "ok      $name"
  else
    echo "FAILED  $name (exit $status)"
    diff "$expected" "$work/$name.out" || true
    cat "$work/$name.err"
    failed=1
  fi
}

echo "--- building"
mcs -warnaserror -out:"$build/csharp/Chat.exe" "$here/csharp/Chat.cs"
fpc -vewn -Sew -FU"$build/pascal" -o"$build/pascal/chat" -Fl"$libdir" -k-rpath -k"$libdir" "$here/pascal/chat.pas" > "$build/pascal/log" ||
  { cat "$build/pascal/log"; exit 1; }
gfortran -std=f2008 -Wall -Wextra -Werror -J"$build/fortran" "$here/fortran/chatwire.f90" "$here/fortran/chat.f90" \
  -L"$libdir" -lchatwire -Wl,-rpath,"$libdir" -o "$build/fortran/chat"
# The CALLs are resolved at run time among the program's libraries: the
# library stays linked although no symbol of it is named at link time.
cobc -x -Wall -Werror "$here/cobol/chat.cob" -L"$libdir" -lchatwire -Q -Wl,--no-as-needed -Q -Wl,-rpath,"$libdir" -o "$build/cobol/chat"

echo "--- running against $url"
CHATWIRE_LIB="$libdir/libchatwire.so" check python python3 -W error "$here/python/chat.py"
CHATWIRE_LIB="$libdir/libchatwire.so" check lua luajit "$here/lua/chat.lua"
LD_LIBRARY_PATH="$libdir" check csharp mono "$build/csharp/Chat.exe"
check pascal "$build/pascal/chat"
check fortran "$build/fortran/chat"
check cobol "$build/cobol/chat"

echo "--- VBA / VB6: the Declare module against include/chatwire.h"
python3 "$here/vba/generate.py" --check || failed=1

exit $failed
