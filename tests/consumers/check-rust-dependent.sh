#!/usr/bin/env bash
# A Rust program that depends on chatwire gets the Rust API alone: a tiny
# cdylib crate (a path dependency on this checkout, made under target/)
# exports no chatwire_* symbol, while the shared library `make lib` builds
# (with the `capi` feature) exports every function of include/chatwire.h.
# Expects `make lib` to have run. The cdylib is built in chatwire's own
# target folder from chatwire's Cargo.lock (offline: the versions stay), so
# that it reuses the debug build of the library's dependencies.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

dependent="target/rust-dependent"
rm -rf "$dependent"
mkdir -p "$dependent/src"
cat > "$dependent/Cargo.toml" <<TOML
[package]
name = "rust_dependent"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
crate-type = ["cdylib"]

[dependencies]
chatwire = { path = "$root" }

# Not part of chatwire's package.
[workspace]
TOML
cat > "$dependent/src/lib.rs" <<'RUST'
//! Calls chatwire's Rust API and exports one C function of its own.

/// The number of messages of a new conversation.
#[no_mangle]
pub extern "C" fn rust_dependent_messages() -> usize {
    chatwire::Conversation::new("m").messages().len()
}
RUST
cp Cargo.lock "$dependent/Cargo.lock"
cargo build --quiet --offline --lib --manifest-path "$dependent/Cargo.toml" --target-dir "$root/target"

# The dynamic symbol table: what a program linked to the library could call.
exported() { nm -D --defined-only "$1" | awk '{ print $NF }'; }

cdylib="target/debug/librust_dependent.so"
exported "$cdylib" | grep -qx rust_dependent_messages \
  || { echo "$cdylib does not export its own function: the check reads the wrong table"; exit 1; }
leaked="$(exported "$cdylib" | grep -c '^chatwire_' || true)"
if [ "$leaked" -ne 0 ]; then
  echo "a cdylib that depends on chatwire exports $leaked chatwire_* symbols:"
  exported "$cdylib" | grep '^chatwire_' | head -n 5
  exit 1
fi

# Every function the header declares, exported by the C library.
library="target/release/libchatwire.so"
declared="$(grep -o 'CHATWIRE_CALL chatwire_[a-z0-9_]*(' include/chatwire.h \
  | sed 's/^CHATWIRE_CALL //; s/($//' | LC_ALL=C sort -u)"
missing="$(LC_ALL=C comm -23 <(echo "$declared") <(exported "$library" | LC_ALL=C sort -u))"
if [ -n "$missing" ]; then
  echo "$library lacks functions of include/chatwire.h:"
  echo "$missing" | head -n 5
  exit 1
fi
echo "a Rust cdylib that depends on chatwire exports no chatwire_* symbol;" \
  "$library exports all $(echo "$declared" | wc -l) functions of the header"
