//! Hostile servers: bombs, endless streams, huge lines and headers, resets,
//! redirects of every kind and echoed secrets, against the documented
//! limits, the redirect policy and the promise that no secret comes back
//! in a text chatwire composes (what the server wrote is left as it came). Peak memory is measured in a child process.

mod common;

use std::io::Write;
use std::ops::ControlFlow;
use std::process::Command;
use std::time::Duration;

use chatwire::{Client, Conversation, Error, Limit};
use common::cprog::{compile_sanitized, for_each_build, run};
use common::hostile::*;
use common::{completion, conversation, KEY, PATH};

/// A header value with a quote and a backslash, which a raw JSON body shows
/// escaped.
const GATEWAY_TOKEN: &str = r#"gw-"tok\en-77"#;
const GATEWAY_TOKEN_IN_JSON: &str = r#"gw-\"tok\\en-77"#;

fn client_for(url: &str, limits: &[(Limit, u64)]) -> Client {
    let mut builder = Client::builder()
        .base_url(url)
        .api_key(KEY)
        .header("X-Gateway-Key", GATEWAY_TOKEN)
        .timeout(Duration::from_secs(60))
        .max_retries(0);
    for &(limit, bytes) in limits {
        builder = builder.limit(limit, bytes);
    }
    builder.build().unwrap()
}

/// Sends and checks that the conversation did not change.
fn send_fails(client: &Client) -> Error {
    let mut conversation = conversation();
    let before = conversation.clone();
    let error = client.send(&mut conversation).unwrap_err();
    assert_eq!(
        conversation, before,
        "a failed send changed the conversation"
    );
    error
}

/// Streams, counting deltas; checks that the conversation did not change.
fn stream_fails(client: &Client) -> (Error, usize) {
    let mut conversation = conversation();
    let before = conversation.clone();
    let mut deltas = 0;
    let error = client
        .send_stream(&mut conversation, |_| {
            deltas += 1;
            ControlFlow::Continue(())
        })
        .unwrap_err();
    assert_eq!(
        conversation, before,
        "a failed stream changed the conversation"
    );
    (error, deltas)
}

fn assert_too_large(error: &Error, what: &str, limit: u64) {
    match error {
        Error::TooLarge {
            what: said,
            limit: over,
        } => {
            assert!(said.contains(what), "{error}");
            assert_eq!(*over, limit, "{error}");
        }
        other => panic!("expected too large ({what}), got {other:?}"),
    }
}

// --- 1. Memory is bounded by what chatwire keeps -------------------------

#[test]
fn a_gzip_bomb_stops_at_the_body_limit() {
    let server = HostileServer::start(|_, stream| gzip_bomb(stream, "application/json", 256));
    let client = client_for(&server.url, &[(Limit::Body, 1 << 20)]);
    assert_too_large(&send_fails(&client), "body", 1 << 20);
}

#[test]
fn a_gzip_bomb_answering_a_stream_stops_at_the_body_limit() {
    let server = HostileServer::start(|_, stream| gzip_bomb(stream, "application/json", 256));
    let client = client_for(&server.url, &[(Limit::Body, 1 << 20)]);
    let (error, _) = stream_fails(&client);
    assert_too_large(&error, "body", 1 << 20);
}

#[test]
fn an_endless_stream_stops_at_the_stream_limit_after_deltas() {
    let event = delta(&"x".repeat(16 * 1024));
    let server = HostileServer::start(move |_, stream| endless_stream(stream, &event, 1 << 30));
    let client = client_for(&server.url, &[(Limit::Stream, 1 << 20)]);
    let (error, deltas) = stream_fails(&client);
    assert_too_large(&error, "streamed reply", 1 << 20);
    assert!(
        deltas >= 60,
        "the callback saw {deltas} deltas before the end"
    );
}

#[test]
fn endless_tool_call_arguments_stop_at_the_stream_limit() {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "c", "function": {"name": "f", "arguments": "y".repeat(16 * 1024)}}]}}]});
    let event = format!("data: {chunk}\n\n");
    let server = HostileServer::start(move |_, stream| endless_stream(stream, &event, 1 << 30));
    let client = client_for(&server.url, &[(Limit::Stream, 1 << 20)]);
    assert_too_large(&stream_fails(&client).0, "streamed reply", 1 << 20);
}

#[test]
fn an_endless_line_stops_at_the_event_limit() {
    let server = HostileServer::start(|_, stream| {
        if head(stream, "200 OK", &[("content-type", "text/event-stream")]) {
            let _ = stream.write_all(b"data: ");
            repeat(stream, &[b'x'; 16 * 1024], 1 << 30);
        }
    });
    let client = client_for(&server.url, &[(Limit::Event, 64 * 1024)]);
    assert_too_large(&stream_fails(&client).0, "event", 64 * 1024);
}

#[test]
fn huge_headers_stop_at_the_header_limit() {
    let server = HostileServer::start(|_, stream| {
        let pad = "p".repeat(3000);
        let headers: Vec<(&str, &str)> = (0..100).map(|_| ("x-pad", pad.as_str())).collect();
        respond(stream, "200 OK", &headers, completion("hi").as_bytes());
    });
    let client = client_for(&server.url, &[]);
    assert_too_large(&send_fails(&client), "headers", 64 * 1024);
    // A client that allows more reads the same answer.
    let roomy = client_for(&server.url, &[(Limit::Headers, 1024 * 1024)]);
    assert_eq!(roomy.send(&mut conversation()).unwrap(), "hi");
}

#[test]
fn resets_are_transport_errors() {
    let server = HostileServer::start(|request, stream| {
        let streamed = String::from_utf8_lossy(&request.body).contains("\"stream\":true");
        if streamed {
            endless_stream(stream, &delta("a"), 64);
        } else if head(stream, "200 OK", &[("content-length", "1000")]) {
            let _ = stream.write_all(b"{\"choices\":");
        }
        reset(stream);
    });
    let client = client_for(&server.url, &[]);
    assert!(matches!(send_fails(&client), Error::Transport { .. }));
    let (error, _) = stream_fails(&client);
    assert!(
        matches!(error, Error::Transport { .. } | Error::Decode { .. }),
        "{error:?}"
    );
}

#[test]
fn limits_out_of_range_are_refused() {
    let client = client_for("http://127.0.0.1:9", &[]);
    for (limit, bytes) in [
        (Limit::Body, 0),
        (Limit::Event, 1023),
        (Limit::Stream, u64::MAX),
        (Limit::Headers, 2 << 20),
    ] {
        let built = Client::builder()
            .base_url("http://127.0.0.1:9")
            .api_key(KEY)
            .limit(limit, bytes)
            .build();
        let error = built.unwrap_err();
        assert!(matches!(error, Error::InvalidArgument(_)), "{error}");
    }
    assert_eq!(client.limit(Limit::Body), chatwire::DEFAULT_MAX_BODY_BYTES);
    assert!(Client::builder()
        .base_url("http://127.0.0.1:9")
        .api_key(KEY)
        .max_retries(chatwire::MAX_RETRIES_CEILING + 1)
        .build()
        .is_err());
    let built = Client::builder()
        .base_url("http://127.0.0.1:9")
        .api_key(KEY)
        .max_retries(1000)
        .build();
    assert!(matches!(built, Err(Error::InvalidArgument(_))));
}

// --- 3. Redirects ----------------------------------------------------------

/// A server that would answer anything with a completion, to see whether
/// anything reached it.
fn elsewhere() -> HostileServer {
    HostileServer::start(|_, stream| {
        respond(stream, "200 OK", &[], completion("elsewhere").as_bytes())
    })
}

#[test]
fn redirects_that_change_the_request_are_not_followed() {
    let other = elsewhere();
    let target = format!("{}{PATH}", other.url);
    for status in ["301 Moved Permanently", "302 Found", "303 See Other"] {
        let location = target.clone();
        let server = HostileServer::start(move |_, stream| {
            respond(stream, status, &[("location", &location)], b"")
        });
        let error = send_fails(&client_for(&server.url, &[]));
        assert!(matches!(error, Error::Http(_)), "{status}: {error:?}");
        assert_eq!(error.http_status(), Some(status[..3].parse().unwrap()));
        assert!(error.to_string().contains(&target), "{error}");
    }
    assert!(
        other.requests().is_empty(),
        "a redirect reached another host"
    );
}

#[test]
fn redirects_to_another_origin_are_not_followed() {
    let other = elsewhere();
    let target = format!("{}{PATH}", other.url);
    for status in ["307 Temporary Redirect", "308 Permanent Redirect"] {
        let location = target.clone();
        let server = HostileServer::start(move |_, stream| {
            respond(stream, status, &[("location", &location)], b"")
        });
        let error = send_fails(&client_for(&server.url, &[]));
        assert!(matches!(error, Error::Http(_)), "{error:?}");
        assert!(error.to_string().contains("another origin"), "{error}");
    }
    assert!(
        other.requests().is_empty(),
        "a header of ours reached another origin"
    );
}

#[test]
fn a_307_within_the_origin_is_followed_with_method_body_and_headers() {
    let server = HostileServer::start(|request, stream| {
        if request.path == PATH {
            respond(
                stream,
                "307 Temporary Redirect",
                &[("location", "/moved/v1/chat/completions")],
                b"",
            );
        } else {
            respond(stream, "200 OK", &[], completion("moved").as_bytes());
        }
    });
    let mut conversation = conversation();
    let reply = client_for(&server.url, &[])
        .send(&mut conversation)
        .unwrap();
    assert_eq!(reply, "moved");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let (first, second) = (&requests[0], &requests[1]);
    assert_eq!(second.method, "POST");
    assert_eq!(second.path, "/moved/v1/chat/completions");
    assert_eq!(second.body, first.body);
    assert_eq!(second.header("x-gateway-key"), Some(GATEWAY_TOKEN));
}

#[test]
fn a_redirect_loop_stops_after_three_hops() {
    let server = HostileServer::start(|_, stream| {
        respond(stream, "308 Permanent Redirect", &[("location", PATH)], b"")
    });
    let error = send_fails(&client_for(&server.url, &[]));
    assert_eq!(error.http_status(), Some(308));
    assert!(error.to_string().contains("more than 3"), "{error}");
    assert_eq!(server.requests().len(), 4);
}

// --- 2. No secret in any text from a server ------------------------------

/// Fails if `text` holds any form of a secret.
fn assert_clean(text: &str) {
    for secret in [KEY, GATEWAY_TOKEN, GATEWAY_TOKEN_IN_JSON, &KEY[..8]] {
        assert!(!text.contains(secret), "{secret:?} leaked into {text:?}");
    }
}

fn assert_error_clean(error: &Error) {
    assert_clean(&error.to_string());
    assert_clean(&format!("{error:?}"));
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        assert_clean(&inner.to_string());
        source = inner.source();
    }
}

/// A server that echoes the request's secrets back in `answer`.
fn echo(answer: fn(&str, &str, &mut std::net::TcpStream)) -> HostileServer {
    HostileServer::start(move |request, stream| {
        let key = request.header("authorization").unwrap_or("").to_owned();
        let token = request.header("x-gateway-key").unwrap_or("").to_owned();
        answer(&key, &token, stream)
    })
}

#[test]
fn echoed_secrets_are_in_no_field_of_an_api_error() {
    let server = echo(|key, token, stream| {
        let body = serde_json::json!({"error": {
            "message": format!("bad key {key} with {token}"),
            "type": format!("type {key}"),
            "code": format!("code {token}"),
        }});
        respond(
            stream,
            "400 Bad Request",
            &[("x-request-id", key)],
            body.to_string().as_bytes(),
        );
    });
    let error = send_fails(&client_for(&server.url, &[]));
    assert_error_clean(&error);
    let api = error.api_error().expect("an API error");
    assert!(api.message.contains("[redacted]"), "{api:?}");
    for field in [&api.kind, &api.code, &api.request_id] {
        assert_clean(field.as_deref().unwrap_or(""));
    }
}

#[test]
fn echoed_secrets_are_not_in_excerpts_of_bodies() {
    // A proxy's page, a 2xx that is not JSON (raw JSON escaping), and an
    // excerpt whose cut goes through the key.
    let proxy = echo(|key, token, stream| {
        let page = format!("<p>denied: {key} / {token}</p>");
        respond(stream, "502 Bad Gateway", &[], page.as_bytes());
    });
    let not_json = echo(|key, token, stream| {
        let body = format!(
            "{{\"echo\": {}, \"key\": \"{key}\"",
            serde_json::to_string(token).unwrap()
        );
        respond(stream, "200 OK", &[], body.as_bytes());
    });
    let cut = echo(|key, _, stream| {
        let body = format!("{}{key}", " x".repeat(96));
        respond(stream, "200 OK", &[], body.as_bytes());
    });
    for server in [&proxy, &not_json, &cut] {
        assert_error_clean(&send_fails(&client_for(&server.url, &[])));
    }
}

#[test]
fn echoed_secrets_are_not_in_errors_inside_a_stream() {
    let server = echo(|key, token, stream| {
        let error = serde_json::json!({"error": {"message": format!("{key} {token}"), "type": key, "code": token}});
        let events = format!("{}data: {error}\n\nerror: {error}\n\n", delta("a"));
        endless_stream(stream, &events, events.len() as u64);
    });
    let (error, _) = stream_fails(&client_for(&server.url, &[]));
    assert!(matches!(error, Error::Server(_)), "{error:?}");
    assert_error_clean(&error);
}

#[test]
fn echoed_secrets_are_not_in_a_redirect_error() {
    let server = echo(|key, token, stream| {
        let location = format!(
            "http://elsewhere.invalid/{}?t={token}",
            key.replace(' ', "%20")
        );
        respond(stream, "302 Found", &[("location", &location)], b"");
    });
    assert_error_clean(&send_fails(&client_for(&server.url, &[])));
}

#[test]
fn echoed_secrets_in_a_reply_are_left_as_the_server_sent_them() {
    // What a server or model wrote is the caller's: chatwire edits none of
    // it (tests/model_output.rs checks every path); only its own texts are
    // cleaned.
    let server = echo(|key, token, stream| {
        let body = serde_json::json!({"id": key, "model": token, "choices": [{"finish_reason": key,
            "message": {"content": format!("your key is {key}"), "tool_calls": [
                {"id": key, "type": "function", "function": {"name": token, "arguments": key}}]}}]});
        respond(
            stream,
            "200 OK",
            &[("x-request-id", token)],
            body.to_string().as_bytes(),
        );
    });
    let mut conversation = conversation();
    let reply = client_for(&server.url, &[])
        .send_reply(&mut conversation)
        .unwrap();
    let bearer = format!("Bearer {KEY}");
    assert_eq!(reply.content(), format!("your key is {bearer}"));
    assert_eq!(reply.tool_calls()[0].arguments, bearer);
    assert_eq!(reply.tool_calls()[0].name, GATEWAY_TOKEN);
    assert_eq!(reply.request_id.as_deref(), Some(GATEWAY_TOKEN));
    assert_eq!(
        conversation.messages().last().unwrap().content,
        reply.content()
    );
}

// --- From C ----------------------------------------------------------------

#[test]
fn c_programs_against_hostile_servers_under_asan_and_the_usual_builds() {
    let bomb = HostileServer::start(|_, stream| gzip_bomb(stream, "application/json", 64));
    let event = delta(&"x".repeat(16 * 1024));
    let endless = HostileServer::start(move |_, stream| endless_stream(stream, &event, 64 << 20));
    let target = "http://elsewhere.invalid/v1/chat/completions";
    let redirect = HostileServer::start(move |_, stream| {
        respond(stream, "302 Found", &[("location", target)], b"")
    });
    let echo_error = echo(|key, token, stream| {
        let body = serde_json::json!({"error": {"message": format!("{key} {token}"), "type": key, "code": token}});
        respond(
            stream,
            "400 Bad Request",
            &[("x-request-id", key)],
            body.to_string().as_bytes(),
        );
    });
    let echo_reply = echo(|key, token, stream| {
        let body = serde_json::json!({"choices": [{"finish_reason": token, "message": {
            "content": format!("your key is {key}\u{0}after"),
            "tool_calls": [{"id": key, "type": "function", "function": {"name": token, "arguments": key}}]}}]});
        respond(
            stream,
            "200 OK",
            &[("x-request-id", token)],
            body.to_string().as_bytes(),
        );
    });
    let args = [
        bomb.url.as_str(),
        endless.url.as_str(),
        redirect.url.as_str(),
        target,
        echo_error.url.as_str(),
        echo_reply.url.as_str(),
    ];
    for_each_build("hostile", |exe| {
        run(exe, &args);
    });
    run(&compile_sanitized("hostile"), &args);
}

// --- Peak memory, in a child process ----------------------------------------

/// The limit every memory scenario sets.
const MEMORY_LIMIT: u64 = 8 << 20;

/// What a scenario may add to the peak resident memory: a small multiple
/// of the limit (a buffer growing by doubling holds up to twice what it
/// keeps, and the decoded reply is a copy).
const MEMORY_ALLOWANCE: u64 = 4 * MEMORY_LIMIT;

#[test]
fn peak_memory_under_hostile_servers_stays_near_the_limits() {
    let exe = std::env::current_exe().unwrap();
    for scenario in [
        "bomb",
        "stream-json-bomb",
        "endless-stream",
        "endless-line",
        "bomb-default-limit",
    ] {
        let (limit, allowance) = match scenario {
            // The documented default, against a bomb eight times its size.
            "bomb-default-limit" => (
                chatwire::DEFAULT_MAX_BODY_BYTES,
                4 * chatwire::DEFAULT_MAX_BODY_BYTES,
            ),
            _ => (MEMORY_LIMIT, MEMORY_ALLOWANCE),
        };
        let server = match scenario {
            "bomb" | "stream-json-bomb" | "bomb-default-limit" => {
                HostileServer::start(|_, stream| gzip_bomb(stream, "application/json", 512))
            }
            "endless-stream" => {
                let event = delta(&"x".repeat(64 * 1024));
                HostileServer::start(move |_, stream| endless_stream(stream, &event, 512 << 20))
            }
            _ => HostileServer::start(|_, stream| {
                if head(stream, "200 OK", &[("content-type", "text/event-stream")]) {
                    let _ = stream.write_all(b"data: ");
                    repeat(stream, &[b'x'; 64 * 1024], 512 << 20);
                }
            }),
        };
        let output = Command::new(&exe)
            .args([
                "--exact",
                "memory_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CHATWIRE_HOSTILE_URL", &server.url)
            .env("CHATWIRE_HOSTILE_SCENARIO", scenario)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let growth: u64 = stdout
            .lines()
            .find_map(|line| line.split("peak growth KiB: ").nth(1))
            .and_then(|kib| kib.trim().parse().ok())
            .unwrap_or_else(|| panic!("{scenario}: no measurement in {stdout}"));
        println!(
            "{scenario}: peak resident memory grew by {growth} KiB (limit {} KiB)",
            limit >> 10
        );
        assert!(
            growth * 1024 <= allowance,
            "{scenario}: peak resident memory grew by {growth} KiB, more than {} KiB",
            allowance >> 10
        );
        assert!(
            output.status.success(),
            "{scenario}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// One memory scenario, run in a child process by the test above.
#[test]
#[ignore = "run in a child process by peak_memory_under_hostile_servers_stays_near_the_limits"]
fn memory_child() {
    let (Ok(url), Ok(scenario)) = (
        std::env::var("CHATWIRE_HOSTILE_URL"),
        std::env::var("CHATWIRE_HOSTILE_SCENARIO"),
    ) else {
        return;
    };
    let limits = [
        (Limit::Body, MEMORY_LIMIT),
        (Limit::Event, MEMORY_LIMIT),
        (Limit::Stream, MEMORY_LIMIT),
    ];
    let defaults = scenario.ends_with("default-limit");
    let client = client_for(&url, if defaults { &[] } else { &limits });
    let mut conversation = Conversation::new("m");
    conversation.user("hi").unwrap();
    let before = peak_rss_kib();
    let result = match scenario.as_str() {
        "bomb" | "bomb-default-limit" => client.send(&mut conversation).map(drop),
        _ => client
            .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
            .map(drop),
    };
    let growth = peak_rss_kib().saturating_sub(before);
    println!("peak growth KiB: {growth}");
    assert!(
        matches!(result, Err(Error::TooLarge { .. })),
        "{scenario}: {result:?}"
    );
}
