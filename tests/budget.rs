//! Token budgets and the context-length error against mock servers: every
//! server's wording of the error, the estimate from the server's own count,
//! the one retry within a send, every kind of send, and the C API under
//! AddressSanitizer (tests/c/budget.c).

mod common;

use std::ops::ControlFlow;

use chatwire::{Conversation, Error};
use common::cprog::{compile_sanitized, for_each_build, run};
use common::*;
use mockito::{Matcher, Server, ServerGuard};
use serde_json::{json, Value};

/// The number of messages in a request body.
fn sent_messages(body: &[u8]) -> usize {
    let body: Value = serde_json::from_slice(body).unwrap();
    body["messages"].as_array().map_or(0, Vec::len)
}

/// A completion with the given usage.
fn completion_with_usage(content: &str, prompt: u64, completion: u64) -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}
    })
    .to_string()
}

/// A system message and `turns` exchanges of 400-byte messages (about 104
/// tokens each at the default 4 bytes per token), then a last question.
fn long_chat(turns: usize) -> Conversation {
    let mut c = Conversation::new("m");
    c.set_system("be brief");
    for turn in 0..turns {
        c.user(format!("{turn:>400}")).unwrap();
        c.assistant(format!("{turn:>400}")).unwrap();
    }
    c.user("last").unwrap();
    c
}

/// A mock that answers every request with `body` at `status`, recording bodies.
fn answering(server: &mut ServerGuard, status: usize, body: &str) -> (mockito::Mock, Bodies) {
    let bodies = Bodies::default();
    let record = bodies.recorder();
    let mock = server
        .mock("POST", PATH)
        .match_request(record)
        .with_status(status)
        .with_body(body)
        .create();
    (mock, bodies)
}

/// Each server's wording of "the conversation is longer than the context
/// window", as its documentation, source or users show it.
const WORDINGS: [(&str, &str); 8] = [
    // OpenAI: the API reference's error codes (code "context_length_exceeded").
    (
        "openai",
        r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
    ),
    // llama.cpp: tools/server/server-context.cpp sends ERROR_TYPE_EXCEED_CONTEXT_SIZE
    // as HTTP 400 with type "exceed_context_size_error", n_prompt_tokens and n_ctx
    // (the text as the local server answered in issue 21).
    (
        "llama.cpp",
        r#"{"error":{"code":400,"message":"request (15316 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":15316,"n_ctx":2048}}"#,
    ),
    // vLLM's OpenAI server (serving_engine.py's length check), in its bare
    // {"object": "error"} shape.
    (
        "vllm",
        r#"{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#,
    ),
    // vLLM v1: the input processor's check, as tests/v1/e2e/test_context_length.py expects it.
    (
        "vllm v1",
        r#"{"error":{"message":"The decoder prompt (length 2049) plus the number of requested output tokens (at least 1) is longer than the maximum model length of 2048. Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.","type":"BadRequestError","param":null,"code":400}}"#,
    ),
    // Anthropic (its OpenAI SDK compatibility passes Anthropic's message on):
    // "prompt is too long: N tokens > M maximum", quoted in entropy-research/Devon#88.
    (
        "anthropic",
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 209353 tokens > 199999 maximum"}}"#,
    ),
    // Gemini's OpenAI-compatible endpoint, as google-gemini/gemini-cli#4118 quotes it.
    (
        "gemini",
        r#"{"error":{"code":400,"message":"The input token count (132478) exceeds the maximum number of tokens allowed (131072).","status":"INVALID_ARGUMENT"}}"#,
    ),
    // Ollama truncates a chat silently at num_ctx (its FAQ); where it refuses
    // instead (truncate: false), its {"error": text} says this.
    (
        "ollama",
        r#"{"error":"the input length exceeds the context length"}"#,
    ),
    // OpenAI's newer wording.
    (
        "openai, newer",
        r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#,
    ),
];

#[test]
fn every_servers_wording_is_context_length_never_retried_and_changes_nothing() {
    for (server_name, body) in WORDINGS {
        let mut server = Server::new();
        let (mock, _) = answering(&mut server, 400, body);
        let mock = mock.expect(1);
        let client = chatwire::Client::builder()
            .base_url(server.url())
            .api_key(KEY)
            .max_retries(2)
            .build()
            .unwrap();
        let mut c = long_chat(2);
        let before = c.clone();
        let err = client.send(&mut c).unwrap_err();
        assert!(
            matches!(err, Error::ContextLength(_)),
            "{server_name}: {err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("context length exceeded: HTTP 400: "),
            "{err}"
        );
        assert_eq!(err.http_status(), Some(400));
        assert_eq!(c, before, "{server_name}");
        mock.assert();
    }
}

#[test]
fn other_bad_requests_stay_http_errors() {
    let mut server = Server::new();
    let body = error_body(
        "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens",
        "invalid_request_error",
        Value::Null,
    );
    answering(&mut server, 400, &body);
    let err = client(&server.url()).send(&mut long_chat(1)).unwrap_err();
    assert!(matches!(err, Error::Http(_)), "{err:?}");
}

#[test]
fn over_the_budget_the_oldest_exchanges_are_left_out_and_dropped_on_success() {
    let mut server = Server::new();
    let (_, bodies) = answering(&mut server, 200, &completion("ok"));
    let mut c = long_chat(10);
    let whole = c.len();
    c.set_token_budget(c.estimated_tokens() - 300);
    client(&server.url()).send(&mut c).unwrap();
    // Down to three quarters of the budget: four exchanges of about 208 tokens.
    assert_eq!(c.last_dropped(), 8);
    assert_eq!(sent_messages(&bodies.all()[0]), whole - 8);
    assert_eq!(c.len(), whole - 8 + 1);
    let json: Value = serde_json::from_str(&c.to_json()).unwrap();
    assert_eq!(json["messages"][0]["content"], "be brief");
    assert_eq!(json["messages"][1]["content"].as_str().unwrap().trim(), "4");
}

#[test]
fn the_estimate_learns_from_the_servers_count() {
    let mut server = Server::new();
    // The server counts 2 bytes a token, half the default: after its first
    // reply the same history is estimated twice as large.
    let mut c = long_chat(4);
    let bytes_guess = c.estimated_tokens() * 4;
    let (_, bodies) = answering(
        &mut server,
        200,
        &completion_with_usage("ok", bytes_guess / 2, 1),
    );
    let client = client(&server.url());
    c.set_token_budget(100_000);
    client.send(&mut c).unwrap();
    assert_eq!(c.last_dropped(), 0);
    let learned = c.estimated_tokens();
    assert!(
        learned > bytes_guess / 2 - 20,
        "{learned} of {bytes_guess} bytes"
    );
    c.user("next").unwrap();
    // A budget the default ratio would meet without dropping anything.
    c.set_token_budget(learned * 3 / 4);
    client.send(&mut c).unwrap();
    assert!(c.last_dropped() >= 2, "{}", c.last_dropped());
    assert_eq!(bodies.all().len(), 2);
}

#[test]
fn context_length_from_the_server_drops_more_and_tries_once_more_in_the_same_send() {
    let mut server = Server::new();
    let full = long_chat(10).len();
    // Too long unless at least 10 messages are left out: more than the
    // budget's own trim (6, down to three quarters of it) leaves out.
    let refused = server
        .mock("POST", PATH)
        .match_request(move |request| sent_messages(request.body().unwrap()) > full - 10)
        .with_status(400)
        .with_body(WORDINGS[1].1)
        .expect(2)
        .create();
    let answered = server
        .mock("POST", PATH)
        .match_request(move |request| sent_messages(request.body().unwrap()) <= full - 10)
        .with_body(completion("fits"))
        .expect(1)
        .create();
    let client = client(&server.url());

    // Without a budget: the error, and the conversation as it was.
    let mut c = long_chat(10);
    let before = c.clone();
    assert!(matches!(client.send(&mut c), Err(Error::ContextLength(_))));
    assert_eq!(c, before);

    // With a budget the estimate meets, the server still refuses: once more.
    c.set_token_budget(c.estimated_tokens() - 100);
    assert_eq!(client.send(&mut c).unwrap(), "fits");
    assert!(c.last_dropped() >= 10, "{}", c.last_dropped());
    assert_eq!(c.messages().last().unwrap().content, "fits");
    // One refusal without a budget, one with it, then the answer.
    refused.assert();
    answered.assert();
}

/// A way to send a conversation and append the reply.
type SendAndAppend = fn(&chatwire::Client, &mut Conversation);

/// Every way to send and append, the plain send first.
const EVERY_ROAD: [(&str, SendAndAppend); 7] = [
    ("send", |client, c| {
        client.send(c).unwrap();
    }),
    ("send_stream", |client, c| {
        client
            .send_stream(c, |_| ControlFlow::Continue(()))
            .unwrap();
    }),
    ("stream", |client, c| {
        client.stream(c).unwrap().finish().unwrap();
    }),
    ("complete", |client, c| {
        let reply = client.complete(c).unwrap();
        c.append_reply(&reply).unwrap();
    }),
    ("send_async", |client, c| {
        let reply = client.send_async(c).unwrap().wait().unwrap();
        c.append_reply(&reply).unwrap();
    }),
    ("stream_async", |client, c| {
        let reply = client
            .stream_async(c, |_| ControlFlow::Continue(()))
            .unwrap()
            .wait()
            .unwrap();
        c.append_reply(&reply).unwrap();
    }),
    ("send_json", |client, c| {
        let _: Value = client.send_json(c, &json!({"type": "object"})).unwrap();
    }),
];

/// The twin of the retry test above for every road: the server's window
/// holds `full - 8` messages, more than the budget's own trim leaves out,
/// so the send drops more and tries once more; the conversation then drops
/// what that request left out, and the next send fits at once.
#[test]
fn every_road_keeps_what_a_context_length_retry_dropped() {
    let full = long_chat(10).len();
    let window = full - 8;
    let mut wrong = Vec::new();
    for (name, send) in EVERY_ROAD {
        let mut server = Server::new();
        let fits =
            move |request: &mockito::Request| sent_messages(request.body().unwrap()) <= window;
        // Records the refused requests.
        let refused = Bodies::default();
        let record = refused.recorder();
        server
            .mock("POST", PATH)
            .match_request(move |request| !fits(request) && record(request))
            .with_status(400)
            .with_body(WORDINGS[1].1)
            .create();
        // Disjoint matchers: mockito prefers a mock not hit yet.
        let streamed = |request: &mockito::Request| {
            String::from_utf8_lossy(request.body().unwrap()).contains("\"stream\":true")
        };
        server
            .mock("POST", PATH)
            .match_request(move |request| fits(request) && streamed(request))
            .with_header("content-type", "text/event-stream")
            .with_body("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{}\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
            .create();
        server
            .mock("POST", PATH)
            .match_request(move |request| fits(request) && !streamed(request))
            .with_body(completion("{}"))
            .create();
        let client = client(&server.url());
        let mut c = long_chat(10);
        c.set_token_budget(c.estimated_tokens() - 100);
        send(&client, &mut c);
        let first = (refused.all().len(), c.last_dropped(), c.len());
        let kept_the_system_message = c.messages()[0].content == "be brief";
        c.user("next").unwrap();
        send(&client, &mut c);
        let next = (refused.all().len(), c.last_dropped());
        // One refusal, then the retry; the budget's trim left out 6, the
        // retry 4 more; then the next send fits at once.
        if (first, next) != ((1, 10, full - 10 + 1), (1, 0)) || !kept_the_system_message {
            wrong.push(format!(
                "{name}: (refusals, last dropped, length) {first:?}, then {next:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_last_exchange_over_the_budget_fails_before_any_request() {
    let mut server = Server::new();
    let (mock, _) = answering(&mut server, 200, &completion("ok"));
    let mock = mock.expect(0);
    let mut c = long_chat(2);
    c.truncate(c.len() - 1).unwrap();
    c.user("x".repeat(10_000)).unwrap();
    c.set_token_budget(1000);
    let before = c.clone();
    let err = client(&server.url()).send(&mut c).unwrap_err();
    assert!(matches!(err, Error::ContextLength(_)), "{err:?}");
    assert!(err.to_string().contains("token budget of 1000"), "{err}");
    assert_eq!(err.http_status(), None);
    assert_eq!(c, before);
    mock.assert();
}

#[test]
fn a_failed_send_under_a_budget_changes_nothing() {
    let mut server = Server::new();
    answering(&mut server, 404, r#"{"error":{"message":"no such model"}}"#);
    let mut c = long_chat(10);
    c.set_token_budget(500);
    let before = c.to_json();
    assert!(client(&server.url()).send(&mut c).is_err());
    assert_eq!(c.to_json(), before);
    assert_eq!(c.last_dropped(), 0);
}

/// The kinds of send, each under the same budget: what was sent and what the
/// conversation became.
#[test]
fn every_kind_of_send_keeps_the_budget() {
    let stream_body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{}\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    for (name, send) in EVERY_ROAD {
        let mut server = Server::new();
        let bodies = Bodies::default();
        let record = bodies.recorder();
        server
            .mock("POST", PATH)
            .match_request(move |request| record(request))
            .match_body(Matcher::Regex("\"stream\":true".into()))
            .with_header("content-type", "text/event-stream")
            .with_body(stream_body)
            .create();
        server
            .mock("POST", PATH)
            .with_body(completion("{}"))
            .create();
        let mut c = long_chat(10);
        let whole = c.len();
        c.set_token_budget(c.estimated_tokens() - 300);
        send(&client(&server.url()), &mut c);
        assert_eq!(c.last_dropped(), 8, "{name}");
        assert_eq!(c.len(), whole - 8 + 1, "{name}");
        assert_eq!(c.messages()[0].content, "be brief", "{name}");
        if let Some(body) = bodies.all().first() {
            assert_eq!(sent_messages(body), whole - 8, "{name}");
        }
    }
}

/// tests/c/budget.c, whose second server holds `full - 8` messages of
/// [`long_chat`]`(10)`, as in [`every_road_keeps_what_a_context_length_retry_dropped`].
#[test]
fn c_budget_remove_and_tool_calls_under_the_sanitizer() {
    let mut server = Server::new();
    answering(&mut server, 200, &completion("ok"));
    let url = server.url();
    let check = |exe: &std::path::Path| {
        let mut windowed = Server::new();
        let window = long_chat(10).len() - 8;
        let fits =
            move |request: &mockito::Request| sent_messages(request.body().unwrap()) <= window;
        let refused = Bodies::default();
        let record = refused.recorder();
        windowed
            .mock("POST", PATH)
            .match_request(move |request| !fits(request) && record(request))
            .with_status(400)
            .with_body(WORDINGS[1].1)
            .create();
        windowed
            .mock("POST", PATH)
            .match_request(move |request| fits(request))
            .with_header("content-type", "application/json")
            .with_body(completion("{}"))
            .create();
        run(exe, &[&url, &windowed.url()]);
        // One refusal on each of the three roads, none on their next sends.
        assert_eq!(refused.all().len(), 3, "{}", exe.display());
    };
    check(&compile_sanitized("budget"));
    for_each_build("budget", check);
}
