//! Compiling and running the C test programs under tests/c/: with the
//! system compiler, `-Wall -Wextra -Werror`, as C and as C++, linked to the
//! static or the shared library; under valgrind when CHATWIRE_VALGRIND=1.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug)]
pub enum Lang {
    C,
    Cxx,
}

#[derive(Clone, Copy, Debug)]
pub enum Link {
    Static,
    Shared,
}

/// The folder holding this profile's build output (target/debug, say).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/c_api-<hash>
    exe.parent()
        .and_then(Path::parent)
        .expect("profile dir")
        .to_path_buf()
}

/// Names the folder of an optimized libchatwire.a and libchatwire.so that
/// `make lib` built (target/release) for the C tests to link instead of the
/// libraries of the tests' own profile: `make check-many` checks the memory
/// goal of many requests in flight against what users link.
const RELEASE_LIB_DIR: &str = "CHATWIRE_RELEASE_LIB_DIR";

/// True when the C programs link an optimized library: the tests' own
/// profile is `release`, or [`RELEASE_LIB_DIR`] names one.
pub fn library_is_optimized() -> bool {
    std::env::var_os(RELEASE_LIB_DIR).is_some()
        || profile_dir()
            .file_name()
            .is_some_and(|name| name == "release")
}

/// Builds libchatwire.a and libchatwire.so with the C API (the crate's
/// default is the rlib alone, without the `capi` feature; `cargo rustc
/// --features capi --crate-type` widens it, as the Makefile does) into a
/// target folder of their own: built without the dev dependencies, their
/// dependencies differ in features, and two copies of a crate side by side
/// in one deps folder confuse the doctests. [`RELEASE_LIB_DIR`], when set,
/// names libraries built already.
pub fn library_dir() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        if let Some(dir) = std::env::var_os(RELEASE_LIB_DIR) {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("libchatwire.a").is_file(),
                "{RELEASE_LIB_DIR}={} holds no libchatwire.a (make lib builds it)",
                dir.display()
            );
            return dir;
        }
        let profile = profile_dir();
        let target = profile.parent().expect("target dir").join("c-api");
        let mut cargo = Command::new(option_env!("CARGO").unwrap_or("cargo"));
        cargo
            .args(["rustc", "--lib", "--quiet", "--manifest-path"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .args(["--features", "capi", "--crate-type", "staticlib,cdylib"])
            .env("CARGO_TARGET_DIR", &target);
        let release = profile.file_name().is_some_and(|name| name == "release");
        if release {
            cargo.arg("--release");
        }
        let status = cargo.status().expect("run cargo rustc");
        assert!(status.success(), "building the C libraries failed");
        target.join(if release { "release" } else { "debug" })
    })
}

/// Compiles tests/c/<name>.c and returns the executable.
pub fn compile(name: &str, lang: Lang, link: Link) -> PathBuf {
    compile_with(name, lang, link, &[])
}

/// Compiles tests/c/<name>.c as C, linked to the static library, under
/// AddressSanitizer (which also checks for leaks at exit).
pub fn compile_sanitized(name: &str) -> PathBuf {
    compile_with(
        name,
        Lang::C,
        Link::Static,
        &["-fsanitize=address", "-fno-omit-frame-pointer"],
    )
}

fn compile_with(name: &str, lang: Lang, link: Link, flags: &[&str]) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = root.join("tests/c").join(format!("{name}.c"));
    compile_source(&source, name, lang, link, flags)
}

/// Compiles a C source from anywhere (a generated one, say) as [`compile`]
/// does the programs of tests/c/; `name` names the executable. The
/// include path still holds tests/c/, for check.h.
pub fn compile_source(
    source: &Path,
    name: &str,
    lang: Lang,
    link: Link,
    flags: &[&str],
) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let out_dir = lib.join("c-tests");
    std::fs::create_dir_all(&out_dir).unwrap();
    let sanitized = if flags.is_empty() { "" } else { "-asan" };
    let exe = out_dir.join(format!("{name}-{lang:?}-{link:?}{sanitized}").to_lowercase());
    // Written aside and renamed into place: another test program running
    // the same C program at once (two `cargo test` runs side by side) keeps
    // its copy, instead of failing with "Text file busy".
    let written = exe.with_extension(format!("{}.part", std::process::id()));
    let mut cc = match lang {
        Lang::C => {
            let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
            cc.args(["-std=c11", "-pedantic"]);
            cc
        }
        Lang::Cxx => {
            let mut cxx = Command::new(std::env::var("CXX").unwrap_or_else(|_| "c++".into()));
            cxx.args(["-x", "c++", "-std=c++17"]);
            cxx
        }
    };
    cc.args(["-Wall", "-Wextra", "-Werror", "-g", "-pthread"])
        .args(flags)
        .arg("-I")
        .arg(root.join("include"))
        .arg("-I")
        .arg(root.join("tests/c"))
        .arg(source)
        .arg("-o")
        .arg(&written);
    if matches!(lang, Lang::Cxx) {
        // Stop treating the libraries after this point as C++ sources.
        cc.args(["-x", "none"]);
    }
    match link {
        Link::Static => {
            cc.arg(lib.join("libchatwire.a"));
            cc.args(["-lpthread", "-ldl", "-lm", "-lrt", "-lutil"]);
        }
        Link::Shared => {
            cc.arg("-L").arg(lib).arg("-lchatwire");
            cc.arg(format!("-Wl,-rpath,{}", lib.display()));
        }
    }
    let output = cc.output().expect("run the C compiler");
    assert!(
        output.status.success(),
        "compiling {name} as {lang:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&written, &exe).unwrap();
    exe
}

/// Runs a C test program in an empty folder with no key in its environment,
/// under valgrind when CHATWIRE_VALGRIND=1 (unless it was built with
/// AddressSanitizer), and fails on a non-zero exit.
pub fn run(exe: &Path, args: &[&str]) -> String {
    run_with_env(exe, args, &[]).0
}

/// Like [`run`], with extra environment variables; returns stdout and stderr.
pub fn run_with_env(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let dir = exe.with_extension("cwd");
    std::fs::create_dir_all(&dir).unwrap();
    // A program under AddressSanitizer checks itself; valgrind cannot run it.
    let sanitized = exe.to_string_lossy().ends_with("-asan");
    let valgrind = std::env::var("CHATWIRE_VALGRIND").is_ok_and(|v| v == "1");
    let mut command = if valgrind && !sanitized {
        let mut valgrind = Command::new("valgrind");
        valgrind.args([
            "--quiet",
            "--error-exitcode=97",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect",
        ]);
        valgrind.arg(format!(
            "--suppressions={}",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/valgrind.supp")
                .display()
        ));
        valgrind.arg(exe);
        valgrind
    } else {
        Command::new(exe)
    };
    let output = command
        .args(args)
        .current_dir(&dir)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        // cargo test points LD_LIBRARY_PATH at target/<profile>/deps, whose
        // libchatwire.so may be older than the one the program was linked
        // with; the program's own run path must decide.
        .env_remove("LD_LIBRARY_PATH")
        .envs(env.iter().copied())
        .output()
        .expect("run the C test");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} failed ({}):\n{stdout}\n{}",
        exe.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    (stdout, String::from_utf8_lossy(&output.stderr).into_owned())
}

pub fn for_each_build(name: &str, check: impl Fn(&Path)) {
    for (lang, link) in [
        (Lang::C, Link::Static),
        (Lang::Cxx, Link::Static),
        (Lang::C, Link::Shared),
    ] {
        check(&compile(name, lang, link));
    }
}

/// Whether clang's `tools` (clang, clang++) are installed; when
/// CHATWIRE_REQUIRE_CLANG=1, their absence fails the test instead.
pub fn clang_found(tools: &[&str]) -> bool {
    let present = |tool: &&str| Command::new(tool).arg("--version").output().is_ok();
    if tools.iter().all(present) {
        return true;
    }
    assert!(
        std::env::var("CHATWIRE_REQUIRE_CLANG").as_deref() != Ok("1"),
        "{tools:?} required (CHATWIRE_REQUIRE_CLANG=1) but not found"
    );
    eprintln!("{tools:?} not found: built with gcc only");
    false
}

/// A named pipe through which the test tells a C program that something
/// has happened (its server holds the request): the program blocks
/// reading the pipe until the test writes a byte, once `told` says so.
pub struct TellPipe {
    pub path: PathBuf,
    writer: std::thread::JoinHandle<bool>,
}

impl TellPipe {
    pub fn new(told: std::sync::mpsc::Receiver<()>) -> TellPipe {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "chatwire-tell-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_file(&path);
        let made = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
        assert!(made.success(), "mkfifo {}", path.display());
        let pipe = path.clone();
        let writer = std::thread::spawn(move || {
            // Ten seconds at most: without the event, the program is still
            // let go (to fail its checks rather than hang), and
            // [`told_in_time`](Self::told_in_time) says so.
            let in_time = told
                .recv_timeout(std::time::Duration::from_secs(10))
                .is_ok();
            // Opening blocks until the program opens its end.
            if let Ok(mut pipe) = std::fs::OpenOptions::new().write(true).open(&pipe) {
                let _ = std::io::Write::write_all(&mut pipe, b"!");
            }
            let _ = std::fs::remove_file(&pipe);
            in_time
        });
        TellPipe { path, writer }
    }

    /// The pipe's path, for the program's arguments.
    pub fn arg(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// Whether the event came before the program was let go; call after
    /// the program has ended.
    pub fn told_in_time(self) -> bool {
        self.writer.join().unwrap()
    }
}

/// A named pipe through which a C program tells the test that something
/// has happened (it took a piece of text): each byte it writes is passed
/// on, in turn, to the next of the receivers [`HearPipe::new`] returns
/// (a [`Step::WaitFor`](super::paced::Step::WaitFor) of a server that
/// holds until then).
pub struct HearPipe {
    pub path: PathBuf,
}

impl HearPipe {
    pub fn new(events: usize) -> (HearPipe, Vec<std::sync::mpsc::Receiver<()>>) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "chatwire-hear-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_file(&path);
        let made = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
        assert!(made.success(), "mkfifo {}", path.display());
        let (senders, receivers): (Vec<_>, Vec<_>) =
            (0..events).map(|_| std::sync::mpsc::channel()).unzip();
        let pipe = path.clone();
        std::thread::spawn(move || {
            // Opening blocks until the program opens its end; the reads end
            // when it closes it.
            let Ok(mut opened) = std::fs::File::open(&pipe) else {
                return;
            };
            let _ = std::fs::remove_file(&pipe);
            let pipe = &mut opened;
            let mut senders = senders.into_iter();
            let mut byte = [0u8];
            while matches!(std::io::Read::read(pipe, &mut byte), Ok(1)) {
                if let Some(sender) = senders.next() {
                    let _ = sender.send(());
                }
            }
        });
        (HearPipe { path }, receivers)
    }

    /// The pipe's path, for the program's arguments.
    pub fn arg(&self) -> &str {
        self.path.to_str().unwrap()
    }
}
