//! The C API from C: programs under tests/c/ are compiled with the system C
//! compiler (`-Wall -Wextra -Werror`, as C and as C++), linked to the built
//! library, and run against mock servers. Set `CHATWIRE_VALGRIND=1` to run
//! them under valgrind, failing on any error or leak (CI does).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::*;
use mockito::{Matcher, Server, ServerGuard};
use serde_json::json;

#[derive(Clone, Copy, Debug)]
enum Lang {
    C,
    Cxx,
}

#[derive(Clone, Copy, Debug)]
enum Link {
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

/// Builds libchatwire.a and libchatwire.so (cargo test builds only the
/// rlib) into a target folder of their own: built without the dev
/// dependencies, their dependencies differ in features, and two copies of a
/// crate side by side in one deps folder confuse the doctests.
fn library_dir() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let profile = profile_dir();
        let target = profile.parent().expect("target dir").join("c-api");
        let mut cargo = Command::new(option_env!("CARGO").unwrap_or("cargo"));
        cargo
            .args(["build", "--lib", "--quiet", "--manifest-path"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target);
        let release = profile.file_name().is_some_and(|name| name == "release");
        if release {
            cargo.arg("--release");
        }
        let status = cargo.status().expect("run cargo build");
        assert!(status.success(), "cargo build --lib failed");
        target.join(if release { "release" } else { "debug" })
    })
}

/// Compiles tests/c/<name>.c and returns the executable.
fn compile(name: &str, lang: Lang, link: Link) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let out_dir = lib.join("c-tests");
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join(format!("{name}-{lang:?}-{link:?}").to_lowercase());
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
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("tests/c").join(format!("{name}.c")))
        .arg("-o")
        .arg(&exe);
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
    exe
}

/// Runs a C test program in an empty folder with no key in its environment,
/// under valgrind when CHATWIRE_VALGRIND=1, and fails on a non-zero exit.
fn run(exe: &Path, args: &[&str]) -> String {
    let dir = exe.with_extension("cwd");
    std::fs::create_dir_all(&dir).unwrap();
    let mut command = if std::env::var("CHATWIRE_VALGRIND").is_ok_and(|v| v == "1") {
        let mut valgrind = Command::new("valgrind");
        valgrind.args([
            "--quiet",
            "--error-exitcode=97",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect",
        ]);
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
    stdout
}

fn for_each_build(name: &str, check: impl Fn(&Path)) {
    for (lang, link) in [
        (Lang::C, Link::Static),
        (Lang::Cxx, Link::Static),
        (Lang::C, Link::Shared),
    ] {
        check(&compile(name, lang, link));
    }
}

#[test]
fn c_api_without_a_server() {
    for_each_build("api_basics", |exe| {
        let out = run(exe, &[]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
}

/// A mock answering by the last user message of the request.
fn answer(server: &mut ServerGuard, last_user: &str, status: usize, body: &str) -> mockito::Mock {
    let pattern = format!(r#""content":"{last_user}"\}}\]\}}$"#);
    server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer sk-c-test")
        .match_body(Matcher::Regex(pattern))
        .with_status(status)
        .with_body(body)
        .create()
}

#[test]
fn c_send_against_a_mock_server() {
    let mut server = Server::new();
    let schema_checks = Bodies::default();
    server
        .mock("POST", PATH)
        .match_request(schema_checks.recorder())
        .match_request(|_| false)
        .create();
    answer(&mut server, "turn-1", 200, &completion("reply one"));
    answer(&mut server, "turn-2", 200, &completion("reply two"));
    answer(
        &mut server,
        "auth",
        401,
        &read_data("spec/recorded/llamacpp-401.json"),
    );
    answer(&mut server, "forbidden", 403, "");
    answer(
        &mut server,
        "bad-request",
        400,
        &read_data("spec/recorded/llamacpp-400.json"),
    );
    answer(
        &mut server,
        "not-found",
        404,
        &error_body(
            "model not found",
            "invalid_request_error",
            json!("model_not_found"),
        ),
    );
    answer(&mut server, "unprocessable", 422, "{}");
    answer(
        &mut server,
        "quota",
        429,
        &error_body("out of credit", "insufficient_quota", json!(null)),
    );
    answer(&mut server, "server", 503, "");
    answer(&mut server, "not-json", 200, "<html>oops</html>");
    answer(
        &mut server,
        "truncated",
        200,
        r#"{"choices":[{"message":{"content":"cut"#,
    );
    answer(&mut server, "no-choices", 200, r#"{"choices":[]}"#);
    answer(&mut server, "flaky", 500, "").expect(2);
    answer(&mut server, "flaky", 200, &completion("third time lucky"));
    let pattern = r#""content":"slow"\}\]\}$"#;
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(pattern.into()))
        .with_chunked_body(|writer| {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            writer.write_all(completion("too late").as_bytes())
        })
        .create();

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let url = server.url();
    for_each_build("send", |exe| {
        let out = run(exe, &[&url, &closed]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    for body in schema_checks.all() {
        assert_valid_request(&body);
    }
}

#[test]
fn c_one_client_shared_by_four_threads() {
    let mut server = Server::new();
    let mock = server
        .mock("POST", PATH)
        .with_body(completion("pong"))
        .expect(3 * 4 * 3)
        .create();
    let url = server.url();
    for_each_build("threads", |exe| {
        let out = run(exe, &[&url]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    mock.assert();
}

#[test]
fn c_streamed_and_background_sends() {
    use common::paced::{signal, PacedServer, Step};

    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""stream":true"#.into()))
        .with_header("content-type", "text/event-stream")
        .with_body(read_data("spec/recorded/llamacpp-stream.sse"))
        .create();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""content":"whole please"\}\]\}$"#.into()))
        .with_body(completion("whole reply"))
        .create();
    let url = server.url();
    for_each_build("stream", |exe| {
        let (keep_first, first_waits) = signal();
        let (keep_second, second_waits) = signal();
        let silent = PacedServer::start(vec![Step::WaitFor(first_waits)]);
        let also_silent = PacedServer::start(vec![Step::WaitFor(second_waits)]);
        let out = run(exe, &[&url, &silent.url, &also_silent.url]);
        assert!(out.contains(", 0 failed"), "{out}");
        drop((keep_first, keep_second));
        assert!(
            silent.finish().client_hung_up,
            "cancel closes the connection"
        );
        assert!(
            also_silent.finish().client_hung_up,
            "free closes the connection"
        );
    });
}
