//! Sending against a mock server: the exact request, decoding, every
//! failure mode, retries, and the conversation left unchanged on failure.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use chatwire::{Client, Conversation, Error, Role, TimeoutKind};
use common::*;
use mockito::{Matcher, Server};
use serde_json::{json, Value};

#[test]
fn sends_the_exact_request_and_appends_the_reply() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let mock = server
        .mock("POST", PATH)
        .match_header("authorization", format!("Bearer {KEY}").as_str())
        .match_header("content-type", "application/json")
        .match_header(
            "user-agent",
            Matcher::Regex(r"^chatwire/\d+\.\d+\.\d+$".into()),
        )
        .match_body(Matcher::Json(json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Name three colours."}
            ]
        })))
        .match_request(bodies.recorder())
        .with_header("content-type", "application/json")
        .with_body(completion("Red, green, blue."))
        .create();

    let mut conversation = conversation();
    let reply = client(&server.url()).send(&mut conversation).unwrap();

    mock.assert();
    assert_eq!(reply, "Red, green, blue.");
    assert_eq!(conversation.len(), 3);
    assert_eq!(conversation.messages()[2].role, Role::Assistant);
    assert_eq!(conversation.messages()[2].content, "Red, green, blue.");
    for body in bodies.all() {
        assert_valid_request(&body);
    }
}

#[test]
fn second_send_carries_the_whole_history() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    server
        .mock("POST", PATH)
        .match_request(bodies.recorder())
        .with_body(completion("first"))
        .expect(2)
        .create();
    let client = client(&server.url());
    let mut conversation = conversation();
    client.send(&mut conversation).unwrap();
    conversation.user("And then?").unwrap();
    client.send(&mut conversation).unwrap();

    let bodies = bodies.all();
    assert_eq!(bodies.len(), 2);
    let second: Value = serde_json::from_slice(&bodies[1]).unwrap();
    let roles: Vec<&str> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(second["messages"][2]["content"], "first");
    assert_eq!(conversation.len(), 5);
    for body in &bodies {
        assert_valid_request(body);
        assert!(!String::from_utf8_lossy(body).contains(KEY));
    }
}

#[test]
fn send_reply_reports_usage_finish_reason_and_request_id() {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .with_header("x-request-id", "req_42")
        .with_body(completion("hi"))
        .create();
    let mut conversation = conversation();
    let reply = client(&server.url()).send_reply(&mut conversation).unwrap();
    assert_eq!(reply.content(), "hi");
    assert_eq!(reply.finish_reason(), Some("stop"));
    assert_eq!(reply.request_id.as_deref(), Some("req_42"));
    assert_eq!(reply.usage.unwrap().total_tokens, 5);
    assert_eq!(reply.json(), completion("hi"));
}

#[test]
fn base_url_with_or_without_v1_and_slash_hits_the_same_path() {
    let mut server = Server::new();
    let mock = server
        .mock("POST", PATH)
        .with_body(completion("ok"))
        .expect(4)
        .create();
    let url = server.url();
    for base in [
        url.clone(),
        format!("{url}/"),
        format!("{url}/v1"),
        format!("{url}/v1/"),
    ] {
        let mut conversation = conversation();
        assert_eq!(
            client(&base).send(&mut conversation).unwrap(),
            "ok",
            "{base}"
        );
    }
    mock.assert();
}

#[test]
fn missing_key_and_bad_urls_fail_at_build() {
    // An explicit empty key falls back to the environment, which this test
    // process does not set (the environment tests live in config_env.rs).
    if std::env::var_os("OPENAI_API_KEY").is_none() && !std::path::Path::new(".env").exists() {
        let err = Client::builder()
            .base_url("http://localhost")
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::MissingApiKey), "{err}");
    }
    for url in ["localhost:8080", "ftp://x", "http://", ""] {
        let err = Client::builder()
            .base_url(url)
            .api_key(KEY)
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::Config(_)), "{url}: {err}");
    }
    let err = Client::builder()
        .base_url("http://localhost")
        .api_key(KEY)
        .timeout(Duration::ZERO)
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
}

#[test]
fn ordering_errors_send_nothing() {
    let mut server = Server::new();
    let mock = server.mock("POST", PATH).expect(0).create();
    let client = client(&server.url());

    let mut empty = Conversation::new("m");
    assert!(matches!(
        client.send(&mut empty),
        Err(Error::InvalidConversation(_))
    ));

    let mut system_only = Conversation::new("m");
    system_only.set_system("s");
    assert!(matches!(
        client.send(&mut system_only),
        Err(Error::InvalidConversation(_))
    ));

    let mut answered = conversation();
    answered.assistant("done").unwrap();
    let before = answered.clone();
    let err = client.send(&mut answered).unwrap_err();
    assert!(
        err.to_string()
            .contains("last message must be a user message"),
        "{err}"
    );
    assert_eq!(answered, before);
    mock.assert();
}

/// Sends against a mock answering `status` and `body`, checks that the
/// conversation did not change, and returns the error.
fn failing_send(status: usize, body: &str) -> Error {
    let mut server = Server::new();
    server
        .mock("POST", PATH)
        .with_status(status)
        .with_header("x-request-id", "req_fail")
        .with_body(body)
        .create();
    let mut conversation = conversation();
    let before = conversation.clone();
    let err = client(&server.url()).send(&mut conversation).unwrap_err();
    assert_eq!(conversation, before, "conversation changed after {status}");
    assert!(!format!("{err} {err:?}").contains(KEY));
    err
}

#[test]
fn http_errors_map_to_their_variants() {
    let body = |code: &str| error_body("nope", "invalid_request_error", json!(code));
    type IsVariant = fn(&Error) -> bool;
    let cases: [(usize, IsVariant); 5] = [
        (400, |e| matches!(e, Error::Http(_))),
        (401, |e| matches!(e, Error::Auth(_))),
        (403, |e| matches!(e, Error::Auth(_))),
        (404, |e| matches!(e, Error::Http(_))),
        (422, |e| matches!(e, Error::Http(_))),
    ];
    for (status, check) in cases {
        let err = failing_send(status, &body("bad_thing"));
        assert!(check(&err), "{status}: {err:?}");
        assert_eq!(err.http_status(), Some(status as u16));
        let api = err.api_error().unwrap();
        assert_eq!(api.message, "nope");
        assert_eq!(api.kind.as_deref(), Some("invalid_request_error"));
        assert_eq!(api.code.as_deref(), Some("bad_thing"));
        assert_eq!(api.request_id.as_deref(), Some("req_fail"));
        assert!(err.to_string().contains("nope"), "{err}");
    }
}

#[test]
fn recorded_llamacpp_error_bodies_decode() {
    let err = failing_send(401, &read_data("spec/recorded/llamacpp-401.json"));
    assert!(matches!(err, Error::Auth(_)));
    assert_eq!(err.api_error().unwrap().message, "Invalid API Key");
    assert_eq!(err.api_error().unwrap().code.as_deref(), Some("401"));

    let err = failing_send(400, &read_data("spec/recorded/llamacpp-400.json"));
    assert!(matches!(err, Error::Http(_)));
    assert_eq!(
        err.api_error().unwrap().message,
        "Expected 'messages' to be an array"
    );
}

#[test]
fn recorded_llamacpp_completions_decode() {
    for (file, start) in [
        ("llamacpp-completion.json", "There are so many colors"),
        ("llamacpp-ingredients.json", "```json"),
    ] {
        let mut server = Server::new();
        server
            .mock("POST", PATH)
            .with_body(read_data(&format!("spec/recorded/{file}")))
            .create();
        let mut conversation = conversation();
        let reply = client(&server.url()).send_reply(&mut conversation).unwrap();
        assert!(
            reply.content().starts_with(start),
            "{file}: {}",
            reply.content()
        );
        assert_eq!(reply.finish_reason(), Some("stop"));
        assert!(reply.usage.unwrap().total_tokens > 0);
        assert_eq!(conversation.len(), 3);
    }
}

#[test]
fn bodies_that_are_not_completions_give_decode() {
    for body in [
        "not json at all",
        r#"{"choices":[{"message":{"role":"assistant","content":"cut o"#,
        r#"{"choices":[]}"#,
        r#"{"object":"chat.completion"}"#,
        r#"{"choices":[{"finish_reason":"stop"}]}"#,
        "",
    ] {
        let err = failing_send(200, body);
        match &err {
            Error::Decode { excerpt, .. } => assert!(body.starts_with(excerpt.as_str())),
            other => panic!("{body:?} gave {other:?}"),
        }
    }
}

#[test]
fn rate_limit_is_retried_after_retry_after() {
    let mut server = Server::new();
    let limited = server
        .mock("POST", PATH)
        .with_status(429)
        .with_header("retry-after", "0.2")
        .with_body(error_body(
            "slow down",
            "rate_limit_exceeded",
            json!("rate_limit"),
        ))
        .expect(1)
        .create();
    let ok = server
        .mock("POST", PATH)
        .with_body(completion("after the pause"))
        .expect(1)
        .create();
    let client = builder(&server.url()).max_retries(2).build().unwrap();
    let mut conversation = conversation();
    log_lines::record();
    let started = Instant::now();
    assert_eq!(client.send(&mut conversation).unwrap(), "after the pause");
    // The pause chosen is the server's, as the attempt's line says; and it
    // was taken (a lower bound, which no busy machine can break).
    assert!(started.elapsed() >= Duration::from_millis(200));
    let lines = log_lines::about(&server.url());
    assert!(
        lines
            .iter()
            .any(|line| line.contains("retrying in 0.200 s")),
        "{lines:?}"
    );
    limited.assert();
    ok.assert();
}

#[test]
fn retry_after_ms_wins_over_retry_after() {
    let mut server = Server::new();
    let limited = server
        .mock("POST", PATH)
        .with_status(429)
        .with_header("retry-after-ms", "30")
        .with_header("retry-after", "100")
        .expect(1)
        .create();
    server
        .mock("POST", PATH)
        .with_body(completion("ok"))
        .create();
    let client = builder(&server.url()).max_retries(1).build().unwrap();
    log_lines::record();
    assert_eq!(client.send(&mut conversation()).unwrap(), "ok");
    // The pause the attempt's line names is the milliseconds', not 100 s.
    let lines = log_lines::about(&server.url());
    assert!(
        lines
            .iter()
            .any(|line| line.contains("retrying in 0.030 s")),
        "{lines:?}"
    );
    limited.assert();
}

#[test]
fn retry_after_beyond_the_limit_fails_at_once() {
    let mut server = Server::new();
    let limited = server
        .mock("POST", PATH)
        .with_status(429)
        .with_header("retry-after", "3600")
        .expect(1)
        .create();
    let client = builder(&server.url()).max_retries(2).build().unwrap();
    let err = client.send(&mut conversation()).unwrap_err();
    assert!(matches!(err, Error::RateLimited(_)), "{err}");
    limited.assert();
}

#[test]
fn insufficient_quota_is_not_retried() {
    let mut server = Server::new();
    let mock = server
        .mock("POST", PATH)
        .with_status(429)
        .with_body(error_body(
            "out of credit",
            "insufficient_quota",
            json!("insufficient_quota"),
        ))
        .expect(1)
        .create();
    let client = builder(&server.url()).max_retries(2).build().unwrap();
    let mut conversation = conversation();
    let err = client.send(&mut conversation).unwrap_err();
    assert!(matches!(err, Error::RateLimited(_)), "{err}");
    assert_eq!(conversation.len(), 2);
    mock.assert();
}

#[test]
fn server_errors_are_retried_then_fail_with_server() {
    for (status, retry_header) in [(500, None), (503, Some("10"))] {
        let mut server = Server::new();
        let mut mock = server
            .mock("POST", PATH)
            .with_status(status)
            .with_body(error_body("overloaded", "server_error", Value::Null));
        if let Some(ms) = retry_header {
            mock = mock.with_header("retry-after-ms", ms);
        }
        let mock = mock.expect(3).create();
        let client = builder(&server.url()).max_retries(2).build().unwrap();
        let mut conversation = conversation();
        let err = client.send(&mut conversation).unwrap_err();
        assert!(matches!(err, Error::Server(_)), "{status}: {err}");
        assert_eq!(err.http_status(), Some(status as u16));
        assert_eq!(conversation.len(), 2);
        mock.assert();
    }
}

#[test]
fn bad_request_is_not_retried() {
    let mut server = Server::new();
    let mock = server
        .mock("POST", PATH)
        .with_status(400)
        .expect(1)
        .create();
    let client = builder(&server.url()).max_retries(3).build().unwrap();
    let err = client.send(&mut conversation()).unwrap_err();
    assert_eq!(err.api_error().unwrap().message, "Bad Request");
    mock.assert();
}

#[test]
fn refused_connection_gives_transport() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut conversation = conversation();
    let err = client(&format!("http://127.0.0.1:{port}"))
        .send(&mut conversation)
        .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(err.to_string().contains(&port.to_string()), "{err}");
    assert_eq!(conversation.len(), 2);
}

#[test]
fn slow_server_gives_timeout() {
    // Accepts the connection, reads the request, and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // Holds the connection until the send has returned (ten seconds at
    // most): only the timeout can end the send.
    let (done, until_done) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut buffer = [0u8; 4096];
        let _ = stream.read(&mut buffer);
        let _ = until_done.recv_timeout(Duration::from_secs(10));
    });
    let client = Client::builder()
        .base_url(&url)
        .api_key(KEY)
        .timeout(Duration::from_millis(300))
        .max_retries(0)
        .build()
        .unwrap();
    let mut conversation = conversation();
    let started = Instant::now();
    let err = client.send(&mut conversation).unwrap_err();
    assert_eq!(err.timeout_kind(), Some(TimeoutKind::Request), "{err:?}");
    // A timeout is time: ten times the timeout allowed, so that only one
    // that ran long fails.
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(conversation.len(), 2);
    drop(done);
    holder.join().unwrap();
}

#[test]
fn dropped_connection_gives_transport() {
    // Answers with a promise of 1000 bytes and hangs up after a few.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut buffer = [0u8; 4096];
        let _ = stream.read(&mut buffer);
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n{\"choices\"");
    });
    let mut conversation = conversation();
    let err = client(&url).send(&mut conversation).unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert_eq!(conversation.len(), 2);
    server.join().unwrap();
}

#[test]
fn a_server_echoing_the_key_does_not_leak_it() {
    let err = failing_send(
        401,
        &error_body(&format!("bad key {KEY}"), "auth", Value::Null),
    );
    let text = format!("{err} {err:?}");
    assert!(!text.contains(KEY), "{text}");
    assert!(text.contains("[redacted]"), "{text}");
}

#[test]
fn debug_output_never_shows_the_key() {
    let client = client("http://127.0.0.1:1");
    let builder = Client::builder().api_key(KEY);
    assert!(!format!("{client:?} {builder:?}").contains(KEY));
}

#[test]
fn one_client_serves_threads_at_once() {
    let mut server = Server::new();
    let mock = server
        .mock("POST", PATH)
        .with_body(completion("pong"))
        .expect(8)
        .create();
    let client = client(&server.url());
    std::thread::scope(|scope| {
        for _ in 0..8 {
            let client = client.clone();
            scope.spawn(move || {
                let mut conversation = conversation();
                assert_eq!(client.send(&mut conversation).unwrap(), "pong");
            });
        }
    });
    mock.assert();
}

#[test]
fn a_handshake_that_never_completes_is_a_connect_timeout() {
    let stuck = common::stuck::StuckListener::start();
    let client = Client::builder()
        .base_url(&stuck.url)
        .api_key(KEY)
        .connect_timeout(Duration::from_millis(300))
        .timeout(Duration::from_secs(20))
        .max_retries(0)
        .build()
        .unwrap();
    let mut conversation = conversation();
    let started = Instant::now();
    let err = client.send(&mut conversation).unwrap_err();
    assert_eq!(err.timeout_kind(), Some(TimeoutKind::Connect), "{err:?}");
    assert!(err.to_string().contains("connect timeout"), "{err}");
    // A timeout is time: the whole request's is 20 s, the connect's 0.3 s,
    // and 5 s allowed, so that only a connect timeout that ran long fails.
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(conversation.len(), 2);
}

#[test]
fn an_empty_model_name_is_refused_before_anything_is_sent() {
    let mut server = mockito::Server::new();
    let never = server.mock("POST", PATH).expect(0).create();
    let client = client(&server.url());
    let mut conversation = Conversation::new("");
    conversation.user("hello").unwrap();
    let err = client.send(&mut conversation).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert!(err.to_string().contains("model name is empty"), "{err}");
    assert_eq!(conversation.len(), 1);
    assert!(Conversation::with_model(" ").is_err());
    assert!(conversation.set_model("").is_err());
    assert!(Conversation::from_json(r#"{"model":"","messages":[]}"#).is_err());
    never.assert();
}

#[test]
fn truncate_past_the_end_is_refused_and_changes_nothing() {
    let mut conversation = conversation();
    let err = conversation.truncate(3).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert_eq!(conversation.len(), 2);
    conversation.truncate(1).unwrap();
    assert_eq!(conversation.len(), 1);
}

/// The request id of a reply (and of an error) from the headers gateways
/// send when there is no `x-request-id`: each alone, and in order of
/// preference when several come.
#[test]
fn request_id_comes_from_gateway_headers_too() {
    type Headers = &'static [(&'static str, &'static str)];
    let cases: [(Headers, Option<&str>); 7] = [
        (&[("request-id", "req_anthropic")], Some("req_anthropic")),
        (&[("apim-request-id", "azure-1")], Some("azure-1")),
        (&[("x-amzn-RequestId", "aws-1")], Some("aws-1")),
        (&[("x-litellm-call-id", "call-1")], Some("call-1")),
        (
            &[("cf-ray", "8f00-CDG"), ("x-kong-request-id", "kong-1")],
            Some("kong-1"),
        ),
        (
            &[
                ("cf-ray", "8f00-CDG"),
                ("x-request-id", "req_1"),
                ("request-id", "r2"),
            ],
            Some("req_1"),
        ),
        (
            &[("x-request-id", " "), ("cf-ray", "8f00-CDG")],
            Some("8f00-CDG"),
        ),
    ];
    for (headers, expected) in cases {
        for status in [200, 429] {
            let mut server = Server::new();
            let mut mock = server.mock("POST", PATH).with_status(status);
            for (name, value) in headers {
                mock = mock.with_header(*name, value);
            }
            mock.with_body(completion("ok")).create();
            let client = chatwire::Client::builder()
                .base_url(server.url())
                .api_key(KEY)
                .max_retries(0)
                .build()
                .unwrap();
            let found = match client.send_reply(&mut conversation()) {
                Ok(reply) => reply.request_id,
                Err(err) => err.api_error().and_then(|api| api.request_id.clone()),
            };
            assert_eq!(found.as_deref(), expected, "{headers:?} {status}");
        }
    }
}
