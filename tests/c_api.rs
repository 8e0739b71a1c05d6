//! The C API from C: programs under tests/c/ are compiled with the system C
//! compiler (`-Wall -Wextra -Werror`, as C and as C++), linked to the built
//! library, and run against mock servers. Set `CHATWIRE_VALGRIND=1` to run
//! them under valgrind, failing on any error or leak (CI does).

mod common;

use common::cprog::{for_each_build, run, TellPipe};
use common::*;
use mockito::{Matcher, Server, ServerGuard};
use serde_json::json;

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
    // Records every body and answers none: the mocks below answer.
    let schema_checks = Bodies::default();
    let record = schema_checks.recorder();
    server
        .mock("POST", PATH)
        .match_request(move |request| !record(request))
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
    let bodies = schema_checks.all();
    assert!(!bodies.is_empty());
    for body in bodies {
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
    use common::paced::{delta, signal, Framing, PacedServer, Step};

    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""stream":true"#.into()))
        .with_header("content-type", "text/event-stream")
        .with_body(read_data("spec/recorded/llamacpp-stream.sse"))
        .create();
    // An error event naming a status, in the middle of a stream (created
    // last: when every mock has had its hit, mockito picks the last match).
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""content":"slow down please"\}\]"#.into()))
        .with_header("content-type", "text/event-stream")
        .with_body(format!(
            "{}data: {{\"error\":{{\"code\":429,\"message\":\"slow down\"}}}}\n\n",
            delta("par")
        ))
        .create();
    server
        .mock("POST", PATH)
        // A background request streams; a server may still answer whole.
        .match_body(Matcher::Regex(r#""content":"whole please"\}\]"#.into()))
        .with_header("content-type", "application/json")
        .with_body(completion("whole reply"))
        .create();
    server
        .mock("POST", PATH)
        // Text holding U+0000, taken whole from a background request.
        .match_body(Matcher::Regex(r#""content":"nul please"\}\]"#.into()))
        .with_header("content-type", "text/event-stream")
        .with_body(format!(
            "{}{}{}",
            delta("a\u{0}b"),
            delta("c"),
            common::paced::finish()
        ))
        .create();
    let url = server.url();
    for_each_build("stream", |exe| {
        let (keep_first, first_waits) = signal();
        let (keep_second, second_waits) = signal();
        let (keep_third, third_waits) = signal();
        let (keep_fourth, fourth_waits) = signal();
        // Each silent server tells the program (through a pipe) once it
        // holds the request, so that the cancel and the free come then.
        let (first_holds, first_holding) = signal();
        let (second_holds, second_holding) = signal();
        let silent = PacedServer::start(vec![Step::Tell(first_holds), Step::WaitFor(first_waits)]);
        let also_silent =
            PacedServer::start(vec![Step::Tell(second_holds), Step::WaitFor(second_waits)]);
        let first_pipe = TellPipe::new(first_holding);
        let second_pipe = TellPipe::new(second_holding);
        // Framed by the connection's end: a cancel closes the connection,
        // which must not read as a stream that ended early.
        let one_delta = PacedServer::start_framed(
            Framing::UntilClose,
            vec![Step::Send(delta("one")), Step::WaitFor(third_waits)],
        );
        let another_delta = PacedServer::start_framed(
            Framing::UntilClose,
            vec![Step::Send(delta("one")), Step::WaitFor(fourth_waits)],
        );
        let out = run(
            exe,
            &[
                &url,
                &silent.url,
                &also_silent.url,
                &one_delta.url,
                first_pipe.arg(),
                second_pipe.arg(),
                &another_delta.url,
            ],
        );
        assert!(out.contains(", 0 failed"), "{out}");
        assert!(first_pipe.told_in_time() && second_pipe.told_in_time());
        drop((keep_first, keep_second, keep_third, keep_fourth));
        assert!(
            one_delta.finish().client_hung_up,
            "cancel after a delta closes the connection"
        );
        assert!(
            another_delta.finish().client_hung_up,
            "a cancel from another thread during a wait closes the connection"
        );
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

/// The same checks of where a refusal goes on a server that streams it and
/// on one that answers whole (tests/refusals.rs does the same in Rust).
#[test]
fn c_a_refusal_goes_the_same_way_streamed_and_whole() {
    use common::refusal::{refusing_server, Answer};

    let streamed = refusing_server(Answer::Streamed);
    let whole = refusing_server(Answer::Whole);
    for_each_build("refusal", |exe| {
        let out = run(exe, &[&streamed.url(), &whole.url()]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
}

#[test]
fn c_reply_metadata_tools_and_images() {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""content":"meta"\}\]\}$"#.into()))
        .with_header("x-request-id", "req_meta")
        .with_body(completion("meta reply"))
        .create();
    answer(
        &mut server,
        "no usage",
        200,
        r#"{"choices":[{"message":{"role":"assistant","content":"counted nothing"}}]}"#,
    );
    let calls = json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
    "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
        {"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}
    ]}}]});
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(
            r#""content":"tool please"\}\],"tools""#.into(),
        ))
        .with_body(calls.to_string())
        .create();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(
            r#""tool_call_id":"call_a"\}\],"tools""#.into(),
        ))
        .with_body(completion("Paris 18 C, Oslo 9 C."))
        .create();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""type":"image_url""#.into()))
        .with_body(completion("a pixel"))
        .create();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""stream":true"#.into()))
        .with_body(read_data("spec/recorded/llamacpp-stream.sse"))
        .create();
    // A background send streams (its text goes to chatwire_request_take_text
    // as it comes): made last, so that it wins over the mock above.
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(
            r#""content":"meta"\}\],"stream":true"#.into(),
        ))
        .with_header("x-request-id", "req_meta")
        .with_body(read_data("spec/recorded/llamacpp-stream.sse"))
        .create();
    let png = std::env::temp_dir().join(format!("chatwire-c-{}.png", std::process::id()));
    std::fs::write(
        &png,
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89",
    )
    .unwrap();
    let url = server.url();
    for_each_build("tools", |exe| {
        let out = run(exe, &[&url, png.to_str().unwrap()]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    std::fs::remove_file(png).unwrap();
}

/// A mock for chatwire_send_json: answers by the question, and by whether
/// the request carries a correction turn.
fn answer_json(
    server: &mut ServerGuard,
    bodies: &Bodies,
    question: &'static str,
    correction: bool,
    content: &str,
) {
    let record = bodies.recorder();
    server
        .mock("POST", PATH)
        .match_request(move |request| {
            let body: serde_json::Value =
                serde_json::from_slice(request.body().map_or(&[][..], Vec::as_slice))
                    .unwrap_or_default();
            let first = body["messages"][0]["content"].as_str().unwrap_or("");
            let corrected = body["messages"].as_array().is_some_and(|m| m.len() > 1);
            first.starts_with(question) && corrected == correction && record(request)
        })
        .with_body(completion(content))
        .create();
}

#[test]
fn c_send_json_corrects_and_reports_against_a_mock_server() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let many = r#"{"name": "Paris", "population": "many"}"#;
    answer_json(&mut server, &bodies, "city", false, many);
    let right = "```json\n{\"name\": \"Paris\", \"population\": 2102650}\n```";
    answer_json(&mut server, &bodies, "city", true, right);
    answer_json(&mut server, &bodies, "never", false, many);
    answer_json(&mut server, &bodies, "never", true, many);
    let items = r#"[{"ingredient": "flour", "quantity": 1 1/2, "unit": "cup"}]"#;
    answer_json(&mut server, &bodies, "recipe", false, items);

    let url = server.url();
    for_each_build("send_json", |exe| {
        let out = run(exe, &[&url]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    let bodies = bodies.all();
    // Per build: city twice, never twice, recipe once.
    assert_eq!(bodies.len(), 3 * 5);
    for body in bodies {
        assert_valid_request(&body);
    }
}
