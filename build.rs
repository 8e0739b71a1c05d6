//! Regenerates `include/chatwire.h` from the C API in `src/ffi/`.
//!
//! The header is committed; it is rewritten only when its content changes,
//! so builds do not touch it needlessly and CI can check it for drift.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml"))
        .unwrap_or_else(|err| panic!("cbindgen.toml: {err}"));
    let header = root.join("include").join("chatwire.h");
    match cbindgen::generate_with_config(&root, config) {
        // `write_to_file` leaves the file alone when the content is unchanged.
        Ok(bindings) => {
            bindings.write_to_file(&header);
        }
        // A half-written API (a syntax error elsewhere) must not break the
        // build before rustc gets to report the real problem.
        Err(err) => println!("cargo:warning=chatwire.h not regenerated: {err}"),
    }
}
