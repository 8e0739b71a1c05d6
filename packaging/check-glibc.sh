#!/usr/bin/env bash
# Fails unless a shared library needs at most the given glibc version:
#   check-glibc.sh lib/libchatwire.so.0.1.0 2.17
# The versions come from the library's dynamic symbol table (objdump -T).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 LIBRARY MAX_GLIBC_VERSION" >&2; exit 2; }
library="$1" max="$2"
command -v objdump >/dev/null || { echo "objdump is missing (binutils)" >&2; exit 1; }

symbols="$(objdump -T "$library")"
needed="$(grep -o 'GLIBC_[0-9][0-9.]*' <<<"$symbols" | sed 's/^GLIBC_//' | sort -uV | tail -n 1)"
if [ -z "$needed" ]; then
  echo "$library: no GLIBC_ symbol versions found" >&2
  exit 1
fi
highest="$(printf '%s\n%s\n' "$needed" "$max" | sort -V | tail -n 1)"
if [ "$highest" != "$max" ]; then
  echo "$library needs glibc $needed, more than $max:" >&2
  grep "GLIBC_$needed" <<<"$symbols" >&2 || true
  exit 1
fi
echo "$library: highest glibc symbol version GLIBC_$needed (at most $max)"
