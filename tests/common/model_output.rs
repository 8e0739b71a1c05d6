//! A server whose model writes the client's key and the value of a header
//! the client sets, by the request's `model`; see tests/model_output.rs,
//! which drives it from Rust and from C, and tests/cpp.rs, from C++.

use std::net::TcpStream;

use serde_json::{json, Value};

use super::hostile::{respond, HostileServer, Request};
use super::KEY;

/// The value of the client's `X-Title` header.
pub const TITLE: &str = "my app";

/// What the model writes: the header's value and the key, in words.
pub fn text() -> String {
    format!("Welcome to {TITLE}! Your key is {KEY}.")
}

/// Its reasoning, which quotes both too.
pub fn reasoning() -> String {
    format!("They named {TITLE} and gave {KEY}.")
}

/// A tool call's arguments naming both.
pub fn arguments() -> String {
    json!({"title": TITLE, "key": KEY}).to_string()
}

/// What the server answers, by the conversation's model: `text` (content,
/// reasoning, a second choice), `tool` (a tool call), `refusal`, `json`
/// (an object for `send_json`), `error` (a 400 echoing both secrets).
/// Streamed when the request asks for it, cut so that the key is split
/// between two deltas.
fn answer(request: &Request, stream: &mut TcpStream) {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let model = body["model"].as_str().unwrap_or("");
    let message = match model {
        "tool" => json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "open", "arguments": arguments()}}]}),
        "refusal" => json!({"role": "assistant", "content": null, "refusal": text()}),
        "json" => json!({"role": "assistant", "content": arguments()}),
        "error" => {
            let error = json!({"error": {"message": format!("bad key {KEY} for {TITLE}"),
                "type": "invalid_request_error", "code": KEY}});
            return respond(stream, "400 Bad Request", &[], error.to_string().as_bytes());
        }
        _ => json!({"role": "assistant", "content": text(), "reasoning_content": reasoning()}),
    };
    let finish = if model == "tool" {
        "tool_calls"
    } else {
        "stop"
    };
    let mut choices = vec![json!({"index": 0, "finish_reason": finish, "message": message})];
    if model == "text" {
        let second = json!({"role": "assistant", "content": format!("{KEY} / {TITLE}")});
        choices.push(json!({"index": 1, "finish_reason": "stop", "message": second}));
    }
    if body["stream"] == json!(true) {
        respond(
            stream,
            "200 OK",
            &[("content-type", "text/event-stream")],
            sse(&choices).as_bytes(),
        );
    } else {
        let whole =
            json!({"id": "c1", "object": "chat.completion", "model": model, "choices": choices});
        respond(
            stream,
            "200 OK",
            &[("content-type", "application/json")],
            whole.to_string().as_bytes(),
        );
    }
}

/// The choices as a stream: each text field in pieces of 7 bytes.
fn sse(choices: &[Value]) -> String {
    let mut events = String::new();
    let mut chunk = |index: &Value, delta: Value, finish: Value| {
        let chunk = json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}]});
        events.push_str(&format!("data: {chunk}\n\n"));
    };
    for choice in choices {
        let (index, message) = (&choice["index"], &choice["message"]);
        chunk(index, json!({"role": "assistant"}), Value::Null);
        for field in ["reasoning_content", "refusal", "content"] {
            let text = message[field].as_str().unwrap_or("");
            for piece in text.as_bytes().chunks(7) {
                let piece = std::str::from_utf8(piece).unwrap();
                chunk(index, json!({ field: piece }), Value::Null);
            }
        }
        for (position, call) in message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let start = json!({"index": position, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""}});
            chunk(index, json!({"tool_calls": [start]}), Value::Null);
            let arguments = call["function"]["arguments"].as_str().unwrap();
            for piece in arguments.as_bytes().chunks(7) {
                let piece = std::str::from_utf8(piece).unwrap();
                let more = json!({"index": position, "function": {"arguments": piece}});
                chunk(index, json!({"tool_calls": [more]}), Value::Null);
            }
        }
        chunk(index, json!({}), choice["finish_reason"].clone());
    }
    events.push_str("data: [DONE]\n\n");
    events
}

pub fn server() -> HostileServer {
    HostileServer::start(answer)
}
