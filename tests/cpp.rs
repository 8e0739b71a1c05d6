//! The C++ layer, chatwire.hpp: the programs under tests/cpp/ are compiled
//! with g++ and clang++ (each one found; clang++ is required when
//! CHATWIRE_REQUIRE_CLANG=1), as C++17 and C++20, `-Wall -Wextra -Werror
//! -pedantic`, under AddressSanitizer (which also fails on leaks), linked to
//! the static library, and run against a mock server.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::cprog::{clang_found, library_dir, run};
use common::stuck::StuckListener;
use common::*;
use mockito::{Request, Server, ServerGuard};
use serde_json::{json, Value};

/// The C++ compilers to build with: g++ always, clang++ when present.
fn compilers() -> Vec<&'static str> {
    let mut found = vec!["g++"];
    if clang_found(&["clang++"]) {
        found.push("clang++");
    }
    found
}

/// Compiles tests/cpp/<name>.cpp with `compiler` in `std`, sanitized.
fn compile(name: &str, compiler: &str, std: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let out_dir = lib.join("cpp-tests");
    std::fs::create_dir_all(&out_dir).unwrap();
    // The "-asan" suffix tells cprog::run not to wrap it in valgrind.
    let exe = out_dir.join(format!("{name}-{compiler}-{std}-asan"));
    let output = Command::new(compiler)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-pthread"])
        .args(["-fsanitize=address", "-fno-omit-frame-pointer"])
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("tests/cpp").join(format!("{name}.cpp")))
        .arg(lib.join("libchatwire.a"))
        .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lutil", "-o"])
        .arg(&exe)
        .output()
        .expect("run the C++ compiler");
    assert!(
        output.status.success(),
        "compiling {name}.cpp with {compiler} -std={std} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// Every build of a test program: each compiler, C++17 and C++20.
fn for_each_build(name: &str, check: impl Fn(&Path)) {
    for compiler in compilers() {
        for std in ["c++17", "c++20"] {
            check(&compile(name, compiler, std));
        }
    }
}

#[test]
fn cpp_wrappers_without_a_server() {
    for_each_build("offline", |exe| {
        let out = run(exe, &[]);
        assert!(
            out.contains("offline: ") && out.contains(", 0 failed"),
            "{out}"
        );
    });
}

/// The request's JSON body.
fn body_of(request: &Request) -> Value {
    serde_json::from_slice(request.body().unwrap_or(&Vec::new())).unwrap_or(Value::Null)
}

/// The content of the request's last user message.
fn question_of(body: &Value) -> Option<String> {
    body["messages"]
        .as_array()?
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .and_then(|message| message["content"].as_str())
        .map(str::to_owned)
}

/// True when the request carries a tool result.
fn has_tool_result(body: &Value) -> bool {
    body["messages"]
        .as_array()
        .is_some_and(|messages| messages.iter().any(|message| message["role"] == "tool"))
}

/// A mock answering the requests whose last user message holds `question`
/// (send_json adds an instruction to it; no question holds another) and,
/// if `tool_result` is given, that do or do not carry a tool result.
fn answer(
    server: &mut ServerGuard,
    question: &'static str,
    tool_result: Option<bool>,
    status: usize,
    body: String,
) -> mockito::Mock {
    server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer sk-cpp-test")
        .match_request(move |request| {
            let body = body_of(request);
            question_of(&body).is_some_and(|asked| asked.contains(question))
                && tool_result.is_none_or(|wanted| has_tool_result(&body) == wanted)
        })
        .with_status(status)
        .with_body(body)
}

fn tool_call_reply() -> String {
    json!({
        "id": "chatcmpl-t", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": null, "tool_calls": [
                         {"id": "call_1", "type": "function",
                          "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]}}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
    })
    .to_string()
}

/// The mock server of tests/cpp/send.cpp.
fn mock_server() -> ServerGuard {
    let mut server = Server::new();
    let ok = |server: &mut ServerGuard, question, text: &str| {
        answer(server, question, None, 200, completion(text)).create();
    };
    ok(&mut server, "turn-1", "reply one");
    ok(&mut server, "turn-2", "reply two");
    // Background requests always stream, so this one answers with events.
    let streamed = format!(
        "{}{}",
        common::paced::delta("async reply"),
        common::paced::finish()
    );
    answer(&mut server, "async-whole", None, 200, streamed)
        .with_header("content-type", "text/event-stream")
        .create();
    ok(&mut server, "nul", "a\u{0}b");
    ok(&mut server, "json-please", "```json\n{\"a\": 1}\n```");
    answer(&mut server, "meta", None, 200, completion("meta reply"))
        .with_header("x-request-id", "req_meta")
        .create();
    let bare = r#"{"choices":[{"message":{"role":"assistant","content":"counted nothing"}}]}"#;
    answer(&mut server, "no usage", None, 200, bare.into()).create();
    let refusal =
        r#"{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't"}}]}"#;
    answer(&mut server, "refuse", None, 200, refusal.into()).create();
    let unauthorized = read_data("spec/recorded/llamacpp-401.json");
    answer(&mut server, "auth", None, 401, unauthorized).create();
    let quota = error_body("out of credit", "insufficient_quota", json!(null));
    answer(&mut server, "quota", None, 429, quota).create();
    answer(&mut server, "server", None, 503, String::new()).create();
    let missing = error_body("model not found", "invalid_request_error", json!(null));
    answer(&mut server, "not-found", None, 404, missing).create();
    answer(
        &mut server,
        "not-json",
        None,
        200,
        "<html>oops</html>".into(),
    )
    .create();
    let stream = read_data("spec/recorded/llamacpp-stream.sse");
    answer(&mut server, "stream-me", None, 200, stream)
        .with_header("content-type", "text/event-stream")
        .create();
    answer(&mut server, "weather?", Some(false), 200, tool_call_reply()).create();
    let sunny = completion("sunny, 22C");
    answer(&mut server, "weather?", Some(true), 200, sunny).create();
    let models = json!({"object": "list", "data": [
        {"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"},
        {"id": "local-model", "meta": {"n_ctx": 2048}}
    ]});
    server
        .mock("GET", "/v1/models")
        .match_header("authorization", "Bearer sk-cpp-test")
        .with_body(models.to_string())
        .create();
    server
}

#[test]
fn cpp_wrappers_against_a_mock_server() {
    let server = mock_server();
    let url = server.url();
    // Every request to it waits in connect(), however late it comes.
    let silent = StuckListener::start();
    for_each_build("send", |exe| {
        let out = run(exe, &[&url, &silent.url]);
        assert!(
            out.contains("send: ") && out.contains(", 0 failed"),
            "{out}"
        );
    });
}

#[test]
fn cpp_wrappers_hand_out_what_the_model_wrote() {
    let server = common::model_output::server();
    for_each_build("model_output", |exe| {
        let out = run(exe, &[&server.url, KEY]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
}

#[test]
fn cpp_wrappers_hold_custom_calls_and_signatures() {
    let server = common::providers::start();
    for_each_build("providers_2026", |exe| {
        let out = run(exe, &[&server.url, KEY]);
        assert!(
            out.contains("providers_2026: ") && out.contains(", 0 failed"),
            "{out}"
        );
    });
}

#[test]
fn cpp_batch_against_the_emulated_batch_api() {
    use common::batches::{BatchServer, Life, Outcome};
    let answer = |_: &str, body: &Value| {
        let question = body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if question == "rate me" {
            return Outcome::Fail(
                429,
                json!({"error": {"message": "slow down", "type": "requests"}}),
            );
        }
        Outcome::Reply(serde_json::from_str(&completion(&format!("answer to {question}"))).unwrap())
    };
    for_each_build("batch", |exe| {
        let server = BatchServer::start(Life::Completes, answer);
        let out = run(exe, &[&server.url, KEY]);
        assert!(
            out.contains("batch: ") && out.contains(", 0 failed"),
            "{out}"
        );
    });
}
