//! Tool calling, images and reply metadata against a mock server: request
//! bodies (checked against the official schema), replies with tool calls,
//! plain and streamed, and the tool loop's ordering rules.

mod common;

use std::ops::ControlFlow;

use chatwire::{Error, Image, ImageDetail, Role, Tool};
use common::*;
use mockito::{Matcher, Server};
use serde_json::{json, Value};

fn weather_tool() -> Tool {
    Tool::new(
        "get_weather",
        Some("The weather in a city"),
        Some(json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})),
    )
    .unwrap()
}

fn tool_call_reply(calls: Value) -> String {
    json!({
        "id": "chatcmpl-t", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": null, "tool_calls": calls}}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
    })
    .to_string()
}

fn call(id: &str, city: &str) -> Value {
    json!({"id": id, "type": "function",
           "function": {"name": "get_weather", "arguments": format!("{{\"city\":\"{city}\"}}")}})
}

#[test]
fn a_full_tool_loop_sends_valid_bodies() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    // The first request ends with the user's question, the second with tool results.
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(
            r#""role":"user","content":"Weather in Paris and Oslo\?"\}\],"#.into(),
        ))
        .match_request(bodies.recorder())
        .with_body(tool_call_reply(json!([
            call("call_a", "Paris"),
            call("call_b", "Oslo")
        ])))
        .create();
    server
        .mock("POST", PATH)
        .match_body(Matcher::Regex(r#""role":"tool""#.into()))
        .match_request(bodies.recorder())
        .with_body(completion("Paris 18 C, Oslo 9 C."))
        .create();

    let client = client(&server.url());
    let mut conversation = chatwire::Conversation::new("gpt-4o-mini");
    conversation.add_tool(weather_tool());
    conversation
        .set_option("tool_choice", Some(json!("auto")))
        .unwrap();
    conversation.user("Weather in Paris and Oslo?").unwrap();

    let reply = client.send_reply(&mut conversation).unwrap();
    assert_eq!(reply.content(), "");
    assert_eq!(reply.finish_reason(), Some("tool_calls"));
    assert_eq!(reply.tool_calls().len(), 2);
    assert_eq!(
        reply.tool_calls()[1].arguments_json().unwrap(),
        json!({"city": "Oslo"})
    );
    assert_eq!(conversation.messages()[1].tool_calls, reply.tool_calls());

    // Sending before every call has its result is refused, naming the call.
    let err = client.send(&mut conversation).unwrap_err();
    assert!(
        err.to_string()
            .contains("missing a tool result for call call_a"),
        "{err}"
    );
    conversation.tool_result("call_b", "9 C").unwrap();
    let err = conversation.user("and?").unwrap_err();
    assert!(err.to_string().contains("call_a"), "{err}");
    conversation.tool_result("call_a", "18 C").unwrap();

    let answer = client.send(&mut conversation).unwrap();
    assert_eq!(answer, "Paris 18 C, Oslo 9 C.");
    let roles: Vec<Role> = conversation.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Tool,
            Role::Assistant
        ]
    );

    let sent = bodies.all();
    assert_eq!(sent.len(), 2);
    for body in &sent {
        assert_valid_request(body);
        let body: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(body["tools"][0]["function"]["name"], "get_weather");
        assert_eq!(body["tool_choice"], "auto");
    }
    let second: Value = serde_json::from_slice(&sent[1]).unwrap();
    assert_eq!(second["messages"][1]["tool_calls"][0]["id"], "call_a");
    // Not null: llama-cpp-python's server answers 500 to a null content.
    assert_eq!(second["messages"][1]["content"], "");
    assert_eq!(
        second["messages"][2],
        json!({"role": "tool", "content": "9 C", "tool_call_id": "call_b"})
    );
}

#[test]
fn streamed_tool_calls_are_assembled_from_fragments() {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let body = [
        chunk(json!({"role": "assistant", "content": null}), Value::Null),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                      "function": {"name": "get_weather", "arguments": ""}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"ci"}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"Rome\"}"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let mut server = Server::new();
    server.mock("POST", PATH).with_body(body).create();
    let mut conversation = chatwire::Conversation::new("m");
    conversation.add_tool(weather_tool());
    conversation.user("Weather in Rome?").unwrap();
    let reply = client(&server.url())
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.tool_calls().len(), 1);
    assert_eq!(reply.tool_calls()[0].id, "call_1");
    assert_eq!(reply.tool_calls()[0].arguments, r#"{"city": "Rome"}"#);
    assert_eq!(reply.finish_reason(), Some("tool_calls"));
    assert_eq!(conversation.messages()[1].tool_calls, reply.tool_calls());
    let json: Value = serde_json::from_str(&reply.json()).unwrap();
    assert_eq!(
        json["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "get_weather"
    );
}

#[test]
fn the_json_round_trip_keeps_tools_calls_results_and_images() {
    let mut conversation = chatwire::Conversation::new("m");
    conversation.add_tool(weather_tool());
    conversation
        .user_with_images(
            "look",
            vec![Image::url("https://example.com/a.png").with_detail(ImageDetail::High)],
        )
        .unwrap();
    let mut calling = chatwire::Message::new(Role::Assistant, "");
    calling
        .tool_calls
        .push(chatwire::ToolCall::new("c1", "get_weather", "{}"));
    conversation.push_message(calling).unwrap();
    conversation.tool_result("c1", "sunny").unwrap();
    let json = conversation.to_json();
    let back = chatwire::Conversation::from_json(&json).unwrap();
    assert_eq!(back, conversation);
    assert_eq!(back.to_json(), json);
}

fn write_temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("chatwire-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

const TINY_PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

#[test]
fn images_from_files_and_urls_become_content_parts() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    server
        .mock("POST", PATH)
        .match_request(bodies.recorder())
        .with_body(completion("a pixel"))
        .expect(2)
        .create();
    let client = client(&server.url());
    let png = write_temp("pixel.png", TINY_PNG);

    let mut conversation = chatwire::Conversation::new("gpt-4o-mini");
    conversation
        .user_image("What is this?", png.to_str().unwrap())
        .unwrap();
    client.send(&mut conversation).unwrap();
    conversation
        .user_with_images(
            "And this?",
            vec![Image::url("https://example.com/b.jpg").with_detail(ImageDetail::Low)],
        )
        .unwrap();
    client.send(&mut conversation).unwrap();

    let sent = bodies.all();
    for body in &sent {
        assert_valid_request(body);
    }
    let first: Value = serde_json::from_slice(&sent[0]).unwrap();
    let parts = &first["messages"][0]["content"];
    assert_eq!(parts[0], json!({"type": "text", "text": "What is this?"}));
    let url = parts[1]["image_url"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("data:image/png;base64,iVBORw0KGgo"),
        "{url}"
    );
    let second: Value = serde_json::from_slice(&sent[1]).unwrap();
    assert_eq!(
        second["messages"][2]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "https://example.com/b.jpg", "detail": "low"}})
    );
    std::fs::remove_file(png).unwrap();
}

#[test]
fn bad_image_files_give_clear_errors_and_change_nothing() {
    let empty = write_temp("empty.png", b"");
    let text = write_temp("notes.png", b"just some text, not an image");
    let big = write_temp("big.png", &[]);
    // A sparse file larger than the limit, without writing 20 MiB.
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(chatwire::MAX_IMAGE_BYTES + 1)
        .unwrap();
    let mut conversation = chatwire::Conversation::new("m");
    for (path, words) in [
        (empty.to_str().unwrap().to_owned(), "empty"),
        (text.to_str().unwrap().to_owned(), "not an image"),
        (big.to_str().unwrap().to_owned(), "more than"),
        ("/no/such/image.png".to_owned(), "cannot read"),
    ] {
        let err = conversation.user_image("x", &path).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
        assert!(err.to_string().contains(words), "{path}: {err}");
        assert!(conversation.is_empty());
    }
    for path in [empty, text, big] {
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn tool_names_and_schemas_are_checked() {
    assert!(Tool::new("has space", None, None).is_err());
    assert!(Tool::new(&"x".repeat(65), None, None).is_err());
    assert!(Tool::from_schema_text("f", None, Some("{not json")).is_err());
    assert!(Tool::from_schema_text("f", None, Some("[]")).is_err());
    let mut conversation = chatwire::Conversation::new("m");
    conversation.add_tool(Tool::new("f", None, None).unwrap());
    conversation.add_tool(Tool::new("f", Some("replaced"), None).unwrap());
    assert_eq!(conversation.tools().len(), 1);
    assert!(conversation.set_option("tools", Some(json!([]))).is_err());
}
