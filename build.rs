//! With the `header` feature (`make header`), regenerates
//! `include/chatwire.h` from the C API in `src/ffi/`. Without it, the
//! default, this does nothing: Rust users of chatwire never build cbindgen.
//!
//! The header is committed; it is rewritten only when its content changes,
//! and CI regenerates it and fails when the committed copy differs.

fn main() {
    // Without this, cargo would rerun the script, and rebuild the crate,
    // whenever any file of the package changed (the README, say).
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "header")]
    header::generate();
}

#[cfg(feature = "header")]
mod header {
    use std::path::PathBuf;

    /// The version macros, from Cargo.toml's version: they cannot drift.
    fn version_macros() -> String {
        let part = |name: &str| std::env::var(name).expect("set by cargo");
        let (major, minor, patch) = (
            part("CARGO_PKG_VERSION_MAJOR"),
            part("CARGO_PKG_VERSION_MINOR"),
            part("CARGO_PKG_VERSION_PATCH"),
        );
        format!(
            "/**
 * The version of chatwire this header belongs to. Compare with
 * chatwire_version_number() at run time: CHATWIRE_VERSION_NUMBER is
 * MAJOR * 10000 + MINOR * 100 + PATCH, as that function returns.
 */
#define CHATWIRE_VERSION_MAJOR {major}
#define CHATWIRE_VERSION_MINOR {minor}
#define CHATWIRE_VERSION_PATCH {patch}
#define CHATWIRE_VERSION_STRING \"{major}.{minor}.{patch}\"
#define CHATWIRE_VERSION_NUMBER \
((CHATWIRE_VERSION_MAJOR) * 10000 + (CHATWIRE_VERSION_MINOR) * 100 + (CHATWIRE_VERSION_PATCH))
{EXPORT_MACRO}"
        )
    }

    /// `CHATWIRE_API`, which cbindgen.toml puts before every function: on
    /// Windows a DLL's functions are declared `__declspec(dllimport)` (one
    /// indirect call, no thunk), unless the program links the static
    /// library; elsewhere it is empty. x86-64 Windows has one C calling
    /// convention, which `extern "C"` and a C compiler's default both use.
    const EXPORT_MACRO: &str = "
/**
 * Put before every chatwire function. On Windows it declares the functions
 * as imported from chatwire.dll; define CHATWIRE_STATIC before including
 * this header when linking libchatwire.a instead. Empty on other systems.
 * Define CHATWIRE_API yourself to override both.
 */
#ifndef CHATWIRE_API
#  if defined(_WIN32) && !defined(CHATWIRE_STATIC)
#    define CHATWIRE_API __declspec(dllimport)
#  else
#    define CHATWIRE_API
#  endif
#endif
/**
 * The calling convention of every chatwire function, and of every callback
 * that chatwire calls: __stdcall (the Windows API's, WINAPI) on 32-bit x86
 * Windows, as Declare in VB6 and VBA, Delphi's stdcall and GetProcAddress
 * callers expect; empty, the C compiler's default, everywhere else. Declare
 * a callback handed to chatwire with it:
 *   static int CHATWIRE_CALL on_delta(void *userdata, const char *delta, size_t len);
 */
#if defined(_WIN32) && (defined(_M_IX86) || defined(__i386__))
#  define CHATWIRE_CALL __stdcall
#else
#  define CHATWIRE_CALL
#endif";

    /// What `CHATWIRE_CALL ` adds to a declaration's first line; its
    /// continuation lines, aligned on its opening parenthesis, move as much.
    const CALL: &str = "CHATWIRE_CALL ";

    pub fn generate() {
        println!("cargo:rerun-if-changed=src");
        println!("cargo:rerun-if-changed=cbindgen.toml");
        let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
        let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml"))
            .unwrap_or_else(|err| panic!("cbindgen.toml: {err}"));
        config.after_includes = Some(version_macros());
        let header = root.join("include").join("chatwire.h");
        let lib = abi_c_copy(&root);
        let generated = cbindgen::Builder::new()
            .with_config(config)
            .with_src(lib)
            .generate();
        match generated {
            Ok(bindings) => {
                let mut text = Vec::new();
                bindings.write(&mut text);
                let text = without_last_enumerator_commas(&String::from_utf8_lossy(&text));
                let text = with_calling_convention(&text);
                // Left alone when unchanged, so that its time stamp says when it last changed.
                if std::fs::read_to_string(&header).ok().as_deref() != Some(text.as_str()) {
                    std::fs::write(&header, text).unwrap_or_else(|err| panic!("chatwire.h: {err}"));
                }
            }
            // A half-written API (a syntax error elsewhere) must not break the
            // build before rustc gets to report the real problem.
            Err(err) => println!("cargo:warning=chatwire.h not regenerated: {err}"),
        }
    }

    /// cbindgen (0.29) takes only `extern "C"` functions, and the C API's
    /// are `extern "system"`, stdcall on 32-bit Windows. It reads a copy of
    /// src/ under OUT_DIR in which they, and the callback types, say
    /// `extern "C"` (blocks of imported functions stay); the convention
    /// goes back into the header as CHATWIRE_CALL (with_calling_convention).
    /// Returns the copy's lib.rs, from which cbindgen follows the modules.
    fn abi_c_copy(root: &std::path::Path) -> PathBuf {
        fn copy(from: &std::path::Path, to: &std::path::Path) {
            std::fs::create_dir_all(to).unwrap_or_else(|err| panic!("{}: {err}", to.display()));
            let entries =
                std::fs::read_dir(from).unwrap_or_else(|err| panic!("{}: {err}", from.display()));
            for entry in entries {
                let path = entry.expect("a readable folder").path();
                let target = to.join(path.file_name().expect("an entry has a name"));
                if path.is_dir() {
                    copy(&path, &target);
                } else if path.extension().is_some_and(|ext| ext == "rs") {
                    let text = std::fs::read_to_string(&path)
                        .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
                    // The header says CHATWIRE_CALL of every function: one
                    // of the C convention would be called wrongly on 32-bit
                    // Windows.
                    let in_ffi = path.components().any(|part| part.as_os_str() == "ffi");
                    if in_ffi && text.contains("extern \"C\"") {
                        panic!(
                            "{}: extern \"C\" in the C API; write extern \"system\" (__stdcall on 32-bit Windows, as CHATWIRE_CALL says)",
                            path.display()
                        );
                    }
                    let text = text.replace("extern \"system\" fn", "extern \"C\" fn");
                    std::fs::write(&target, text)
                        .unwrap_or_else(|err| panic!("{}: {err}", target.display()));
                }
            }
        }
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("header-src");
        // A file deleted from src/ must not linger in the copy.
        let _ = std::fs::remove_dir_all(&out);
        copy(&root.join("src"), &out);
        out.join("lib.rs")
    }

    /// Puts CHATWIRE_CALL where C wants a calling convention: before the
    /// name of each function (after the return type and its `*`), and
    /// inside the parentheses of each function pointer typedef, as in
    /// `typedef int (CHATWIRE_CALL *chatwire_delta_callback)(...)`. The
    /// lines that continue a declaration move right as far as its first.
    /// Panics when a function (a line that starts with CHATWIRE_API, the
    /// [fn] prefix) would be left without it.
    fn with_calling_convention(text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 4096);
        let mut continues = false;
        let (mut functions, mut marked) = (0, 0);
        for line in text.lines() {
            let code = !(line.starts_with(' ') || line.starts_with('/') || line.starts_with('#'));
            functions += usize::from(line.starts_with("CHATWIRE_API"));
            let at = if line.starts_with("typedef ") {
                line.find("(*").map(|at| at + 1)
            } else if code && !continues {
                let at = function_name_at(line);
                marked += usize::from(at.is_some());
                at
            } else {
                None
            };
            if let Some(at) = at {
                out.push_str(&line[..at]);
                out.push_str(CALL);
                out.push_str(&line[at..]);
                continues = !line.ends_with(';');
            } else if continues {
                out.push_str(&" ".repeat(CALL.len()));
                out.push_str(line);
                continues = !line.ends_with(';');
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        assert_eq!(
            functions, marked,
            "functions declared, and given CHATWIRE_CALL"
        );
        out
    }

    /// Where the name of the function that a line declares begins: the
    /// name before the line's first `(`, when it starts with `chatwire_`,
    /// on a line that is neither a comment nor a preprocessor line and
    /// opens no type (`typedef`, `struct`, `enum`).
    fn function_name_at(line: &str) -> Option<usize> {
        if ["typedef", "struct", "enum", "union", "}", "extern"]
            .iter()
            .any(|opening| line.starts_with(opening))
        {
            return None;
        }
        let open = line.find('(')?;
        let name = line[..open].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))? + 1;
        line[name..open].starts_with("chatwire_").then_some(name)
    }

    /// cbindgen ends every enumerator with a comma, the last one too, which
    /// C89 and C++98 refuse (`-pedantic-errors`) and no option turns off:
    /// the comma of a line that a closing brace follows goes.
    fn without_last_enumerator_commas(text: &str) -> String {
        let lines: Vec<&str> = text.lines().collect();
        let mut out = String::with_capacity(text.len());
        for (index, line) in lines.iter().enumerate() {
            let closes = lines
                .get(index + 1)
                .is_some_and(|next| next.starts_with('}'));
            let line = match line.strip_suffix(',') {
                Some(kept) if closes => kept,
                _ => line,
            };
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}
