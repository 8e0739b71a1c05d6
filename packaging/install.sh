#!/usr/bin/env bash
# Installs chatwire's C library, or removes exactly what it installed.
#
#   install.sh install   --from DIR --version X.Y.Z --prefix PREFIX [--libdir NAME] [--destdir DIR] [--relocatable]
#   install.sh uninstall            --version X.Y.Z --prefix PREFIX [--libdir NAME] [--destdir DIR]
#
# --libdir is the libraries' folder under PREFIX: lib (the default), lib64
# (Red Hat and SUSE), lib/x86_64-linux-gnu (Debian's multiarch).
# --from is the build folder holding libchatwire.a, libchatwire.so and
# native-static-libs.txt (the system libraries the static archive needs, as
# rustc lists them). --relocatable writes a chatwire.pc that finds its
# prefix from its own place (for the dist tarball); the CMake package always
# does. Called by the top-level Makefile.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

usage() {
  sed -n '2,15p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

[ $# -ge 1 ] || usage
action="$1"
shift
from="" version="" prefix="" libdir="lib" destdir="" relocatable=0
while [ $# -gt 0 ]; do
  case "$1" in
    --from) from="$2"; shift 2 ;;
    --version) version="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --libdir) libdir="$2"; shift 2 ;;
    --destdir) destdir="$2"; shift 2 ;;
    --relocatable) relocatable=1; shift ;;
    *) usage ;;
  esac
done
if [ -z "$version" ] || [ -z "$prefix" ]; then usage; fi
case "$prefix" in
  /*) ;;
  *) echo "PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
libdir="${libdir%/}"
if ! [[ "$libdir" =~ ^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*$ ]] || [[ "/$libdir/" == */../* || "/$libdir/" == */./* ]]; then
  echo "LIBDIR must be a folder name under PREFIX (lib, lib64, lib/x86_64-linux-gnu), not '$libdir'" >&2
  exit 2
fi
# From a folder under the libraries' folder back up to PREFIX, one ../ per level.
up_from_libdir="$(sed -e 's|[^/][^/]*|..|g' <<<"$libdir")"
if ! [[ "$version" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "unexpected version '$version'" >&2
  exit 2
fi
major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[2]}" patch="${BASH_REMATCH[3]}"

prefix="${prefix%/}"
base="${destdir%/}${prefix}"
include_dir="$base/include"
lib_dir="$base/$libdir"
pc_dir="$lib_dir/pkgconfig"
cmake_dir="$lib_dir/cmake/chatwire"
doc_dir="$base/share/doc/chatwire"

real_name="libchatwire.so.$version"
so_name="libchatwire.so.$major"

# Everything install puts, for uninstall (folders of chatwire's own last).
files=(
  "$include_dir/chatwire.h"
  "$include_dir/chatwire.hpp"
  "$lib_dir/$real_name"
  "$lib_dir/$so_name"
  "$lib_dir/libchatwire.so"
  "$lib_dir/libchatwire.a"
  "$pc_dir/chatwire.pc"
  "$pc_dir/chatwire-static.pc"
  "$cmake_dir/chatwireConfig.cmake"
  "$cmake_dir/chatwireConfigVersion.cmake"
  "$doc_dir/LICENSE-MIT"
  "$doc_dir/LICENSE-APACHE"
  "$doc_dir/README.md"
  "$doc_dir/CHANGELOG.md"
)
# The guides the README links to, beside it as in the source tree.
guides=("$root"/docs/*.md)
for guide in "${guides[@]}"; do
  files+=("$doc_dir/docs/$(basename "$guide")")
done
own_dirs=("$cmake_dir" "$doc_dir/docs" "$doc_dir")

# What the templates' @NAME@ placeholders become.
declare -A values=()

# Fills a template from $values.
fill() {
  local template="$1" out="$2"
  local -a edits=()
  local name value
  for name in "${!values[@]}"; do
    value="${values[$name]}"
    # Escape what sed's replacement treats specially.
    value="$(printf '%s' "$value" | sed -e 's/[\\&|]/\\&/g')"
    edits+=(-e "s|@${name}@|${value}|g")
  done
  sed "${edits[@]}" "$template" > "$out.tmp"
  if grep -n '@[A-Z_]*@' "$out.tmp" >&2; then
    rm -f "$out.tmp"
    echo "$template: a placeholder was left unfilled" >&2
    exit 1
  fi
  chmod 644 "$out.tmp"
  mv -f "$out.tmp" "$out"
}

case "$action" in
  install)
    [ -n "$from" ] || usage
    for built in libchatwire.a libchatwire.so native-static-libs.txt; do
      [ -e "$from/$built" ] || { echo "$from/$built is missing: build first (make)" >&2; exit 1; }
    done
    # Shared: the real file, then the SONAME link, then the link to build with.
    # Folders that exist keep their owner and mode.
    for dir in "$include_dir" "$lib_dir" "$pc_dir" "$cmake_dir" "$doc_dir" "$doc_dir/docs"; do
      [ -d "$dir" ] || install -d -m 755 "$dir"
    done
    install -m 644 "$root/include/chatwire.h" "$include_dir/chatwire.h"
    install -m 644 "$root/include/chatwire.hpp" "$include_dir/chatwire.hpp"
    install -m 755 "$from/libchatwire.so" "$lib_dir/$real_name"
    ln -sfn "$real_name" "$lib_dir/$so_name"
    ln -sfn "$so_name" "$lib_dir/libchatwire.so"
    install -m 644 "$from/libchatwire.a" "$lib_dir/libchatwire.a"

    libs="$(tr -s ' \n' '  ' < "$from/native-static-libs.txt" | sed -e 's/^ *//' -e 's/ *$//')"
    [ -n "$libs" ] || { echo "$from/native-static-libs.txt is empty" >&2; exit 1; }
    values[LIBS_PRIVATE]="$libs"
    # The same libraries for CMake: -lm becomes m.
    values[CMAKE_LIBS]="$(tr ' ' '\n' <<<"$libs" | sed -n 's/^-l//p' | paste -sd ';' -)"
    values[VERSION]="$version" values[MAJOR]="$major" values[MINOR]="$minor" values[PATCH]="$patch"
    values[LIBDIR]="$libdir"
    # The CMake package finds PREFIX from its own folder, LIBDIR/cmake/chatwire.
    values[UP_TO_PREFIX]="$up_from_libdir/../.."
    if [ "$relocatable" = 1 ]; then
      # shellcheck disable=SC2016 # pkg-config expands it, not the shell.
      values[PREFIX]='${pcfiledir}/'"$up_from_libdir/.."
    else
      values[PREFIX]="$prefix"
    fi
    fill "$here/chatwire.pc.in" "$pc_dir/chatwire.pc"
    fill "$here/chatwire-static.pc.in" "$pc_dir/chatwire-static.pc"
    fill "$here/chatwireConfig.cmake.in" "$cmake_dir/chatwireConfig.cmake"
    fill "$here/chatwireConfigVersion.cmake.in" "$cmake_dir/chatwireConfigVersion.cmake"

    for doc in LICENSE-MIT LICENSE-APACHE README.md CHANGELOG.md; do
      install -m 644 "$root/$doc" "$doc_dir/$doc"
    done
    install -m 644 "${guides[@]}" "$doc_dir/docs/"
    echo "installed chatwire $version into ${destdir}${prefix}"
    ;;
  uninstall)
    # The header, the links and the package files are shared by every
    # version: leave another version's install alone.
    header="$include_dir/chatwire.h"
    if [ -f "$header" ] && ! grep -qxF "#define CHATWIRE_VERSION_STRING \"$version\"" "$header"; then
      installed="$(sed -n 's/^#define CHATWIRE_VERSION_STRING "\(.*\)"$/\1/p' "$header")"
      echo "${destdir}${prefix} holds chatwire ${installed:-of another version}, not $version:" \
        "uninstall it with that version's make uninstall" >&2
      exit 1
    fi
    for file in "${files[@]}"; do
      rm -f -- "$file"
    done
    for dir in "${own_dirs[@]}"; do
      [ ! -d "$dir" ] || rmdir -- "$dir" 2>/dev/null || echo "left $dir: it holds other files" >&2
    done
    echo "removed chatwire $version from ${destdir}${prefix}"
    ;;
  *)
    usage
    ;;
esac
