//! Log lines from C: tests/c/log.c receives them through its callback
//! (compiled as C and C++, linked statically and dynamically; under valgrind
//! with `CHATWIRE_VALGRIND=1`), and CHATWIRE_LOG=debug writes them to
//! stderr for a program that sets nothing. No line holds a secret.

mod common;

use common::cprog::{compile, for_each_build, run, run_with_env, Lang, Link};
use common::*;
use mockito::{Matcher, Server};

fn server() -> (mockito::ServerGuard, String) {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .match_header("x-gateway-key", Matcher::Any)
        .with_status(503)
        .with_header("retry-after-ms", "10")
        // The server echoes the key and the header: the log lines must not.
        .with_body(error_body(
            "overloaded: sk-c-log-secret gateway-s3cret",
            "server_error",
            serde_json::Value::Null,
        ))
        .create();
    server
        .mock("POST", PATH)
        .match_header("x-gateway-key", Matcher::Missing)
        .with_body(completion("logged"))
        .create();
    let url = server.url();
    (server, url)
}

// One test, so that each build of the program is compiled once.
#[test]
fn c_programs_get_log_lines_through_the_callback_and_chatwire_log() {
    let (_server, url) = server();
    for_each_build("log", |exe| {
        let out = run(exe, &[&url]);
        assert!(out.contains("log: ") && out.contains(", 0 failed"), "{out}");
    });

    let exe = compile("log", Lang::C, Link::Shared);
    let (_, stderr) = run_with_env(&exe, &[&url], &[("CHATWIRE_LOG", "debug")]);
    assert!(stderr.contains("[chatwire INFO] POST http://"), "{stderr}");
    assert!(stderr.contains("[chatwire WARN] POST http://"), "{stderr}");
    assert!(stderr.contains("status 503"), "{stderr}");
    assert!(
        stderr.contains("overloaded: [redacted] [redacted]"),
        "{stderr}"
    );
    assert!(stderr.contains("[chatwire DEBUG] proxy: "), "{stderr}");
    for secret in ["sk-c-log-secret", "gateway-s3cret", "pr0xy-s3cret"] {
        assert!(!stderr.contains(secret), "{secret} in {stderr}");
    }
    // Only chatwire's own lines: none of the HTTP layer's trace lines.
    assert!(
        stderr.lines().all(|line| line.starts_with("[chatwire ")),
        "{stderr}"
    );

    let (_, quiet) = run_with_env(&exe, &[&url], &[]);
    assert!(!quiet.contains("[chatwire"), "{quiet}");
}
