//! The Responses API's items both ways, against emulated servers: a
//! reasoning model's tool loop (its reasoning items, encrypted content
//! included, sent back in place, and a server that refuses a turn whose
//! reasoning item did not come back), the reasoning items kept through a
//! stream, and images and files as input parts.

mod common;

use std::ops::ControlFlow;

use chatwire::{Api, Attachment, Conversation, Error, Image, Tool};
use common::*;
use mockito::{Matcher, Server};
use serde_json::{json, Value};

const RESPONSES: &str = "/v1/responses";

fn responses_client(url: &str) -> chatwire::Client {
    builder(url).api(Api::Responses).build().unwrap()
}

/// The reasoning item the emulated model writes, with a field of its own.
fn reasoning_item() -> Value {
    json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA-enc-1",
           "summary": [{"type": "summary_text", "text": "The weather needs a tool."}],
           "x_server_hint": 7})
}

fn input_of(request: &mockito::Request) -> Vec<Value> {
    let body: Value = serde_json::from_slice(request.body().unwrap()).unwrap_or_default();
    body["input"].as_array().cloned().unwrap_or_default()
}

fn has_output(input: &[Value]) -> bool {
    input
        .iter()
        .any(|item| item["type"] == "function_call_output")
}

/// Whether the reasoning item came back whole, right before its call.
fn reasoning_in_place(input: &[Value]) -> bool {
    let call = input
        .iter()
        .position(|item| item["type"] == "function_call");
    call.is_some_and(|call| call > 0 && input[call - 1] == reasoning_item())
}

/// An emulated reasoning model: a first turn calls `get_weather` after its
/// reasoning; a turn with the call's output is answered only when the
/// reasoning item came back in its place, and refused with a 400 otherwise.
fn reasoning_server(server: &mut Server) -> (mockito::Mock, mockito::Mock, mockito::Mock) {
    let calling = json!({"id": "resp_1", "object": "response", "status": "completed",
        "output": [reasoning_item(),
                   {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                    "name": "get_weather", "arguments": "{\"city\":\"Paris\"}",
                    "status": "completed"}],
        "usage": {"input_tokens": 20, "output_tokens": 30,
                  "output_tokens_details": {"reasoning_tokens": 22}}});
    let answer = json!({"id": "resp_2", "object": "response", "status": "completed",
        "output": [{"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "18 C in Paris.",
                                 "annotations": []}]}]});
    let first = server
        .mock("POST", RESPONSES)
        .match_request(|request| !has_output(&input_of(request)))
        .with_header("content-type", "application/json")
        .with_body(calling.to_string())
        .create();
    let next = server
        .mock("POST", RESPONSES)
        .match_request(|request| {
            let input = input_of(request);
            has_output(&input) && reasoning_in_place(&input)
        })
        .with_header("content-type", "application/json")
        .with_body(answer.to_string())
        .create();
    let refused = server
        .mock("POST", RESPONSES)
        .match_request(|request| {
            let input = input_of(request);
            has_output(&input) && !reasoning_in_place(&input)
        })
        .with_status(400)
        .with_header("content-type", "application/json")
        .with_body(error_body(
            "Item 'fc_1' of type 'function_call' was provided without its required \
             'reasoning' item: 'rs_1'.",
            "invalid_request_error",
            Value::Null,
        ))
        .create();
    (first, next, refused)
}

fn weather_conversation() -> Conversation {
    let mut conversation = Conversation::new("o4-mini");
    conversation.set_system("Use the tools.");
    conversation.user("Weather in Paris?").unwrap();
    let parameters = json!({"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]});
    let tool = Tool::new("get_weather", Some("The weather now"), Some(parameters)).unwrap();
    conversation.add_tool(tool);
    conversation
}

#[test]
fn a_reasoning_models_tool_loop_sends_its_reasoning_items_back_in_place() {
    let mut server = Server::new();
    let (first, next, refused) = reasoning_server(&mut server);
    let client = responses_client(&server.url());
    let mut conversation = weather_conversation();
    let reply = client.send_reply(&mut conversation).unwrap();
    assert_eq!(reply.finish_reason(), Some("tool_calls"));
    let call = &reply.tool_calls()[0];
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("call_1", "get_weather")
    );
    assert_eq!(call.arguments, r#"{"city":"Paris"}"#);
    assert_eq!(reply.reasoning().unwrap().text, "The weather needs a tool.");
    assert_eq!(reply.usage.unwrap().reasoning_tokens, Some(22));
    conversation.tool_result("call_1", "18 C").unwrap();
    // The conversation's own JSON keeps the item for a later run.
    let saved = Conversation::from_json(&conversation.to_json()).unwrap();
    assert_eq!(client.send(&mut conversation).unwrap(), "18 C in Paris.");
    first.assert();
    next.assert();
    refused.expect(0).assert();

    // A saved and restored conversation sends the item back too.
    let mut restored = saved;
    assert_eq!(client.send(&mut restored).unwrap(), "18 C in Paris.");

    // The same turn without its reasoning item is refused by the server.
    let mut bare = weather_conversation();
    let call = chatwire::ToolCall::new("call_1", "get_weather", r#"{"city":"Paris"}"#);
    bare.assistant_tool_calls("", vec![call]).unwrap();
    bare.tool_result("call_1", "18 C").unwrap();
    let err = client.send(&mut bare).unwrap_err();
    assert!(matches!(err, Error::Http(_)), "{err:?}");
    assert!(
        err.to_string().contains("required 'reasoning' item"),
        "{err}"
    );
}

#[test]
fn the_tools_and_items_of_a_turn_are_those_the_responses_api_names() {
    let mut server = Server::new();
    let (_first, _next, _refused) = reasoning_server(&mut server);
    let bodies = Bodies::default();
    let client = responses_client(&server.url());
    let mut conversation = weather_conversation();
    conversation
        .set_option(
            "tool_choice",
            Some(json!({"type": "function",
        "function": {"name": "get_weather"}})),
        )
        .unwrap();
    client.send(&mut conversation).unwrap();
    conversation.tool_result("call_1", "18 C").unwrap();
    let mut checking = Server::new();
    let seen = checking
        .mock("POST", RESPONSES)
        .match_request(bodies.recorder())
        .with_header("content-type", "application/json")
        .with_body(read_data("spec/recorded/llamacpp-responses.json"))
        .create();
    responses_client(&checking.url())
        .send(&mut conversation)
        .unwrap();
    seen.assert();
    let sent: Value = serde_json::from_slice(&bodies.all()[0]).unwrap();
    assert_eq!(
        sent["tools"],
        json!([{"type": "function", "name": "get_weather", "description": "The weather now",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"]}}])
    );
    assert_eq!(
        sent["tool_choice"],
        json!({"type": "function", "name": "get_weather"})
    );
    let input = sent["input"].as_array().unwrap();
    assert_eq!(input[2], reasoning_item());
    assert_eq!(
        input[3],
        json!({"type": "function_call", "call_id": "call_1", "name": "get_weather",
               "arguments": "{\"city\":\"Paris\"}"})
    );
    assert_eq!(
        input[4],
        json!({"type": "function_call_output", "call_id": "call_1", "output": "18 C"})
    );
}

#[test]
fn a_streamed_reasoning_item_is_kept_and_sent_back() {
    let event = |data: Value| {
        format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap()
        )
    };
    let sse = [
        json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1",
               "delta": "The weather needs a tool."}),
        json!({"type": "response.output_item.done", "item": reasoning_item()}),
        json!({"type": "response.output_item.done", "item": {"type": "function_call",
               "id": "fc_1", "call_id": "call_1", "name": "get_weather",
               "arguments": "{\"city\":\"Paris\"}"}}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ]
    .map(event)
    .concat();
    let mut server = Server::new();
    let _stream = server
        .mock("POST", RESPONSES)
        .match_body(Matcher::PartialJson(json!({"stream": true})))
        .with_header("content-type", "text/event-stream")
        .with_body(sse)
        .create();
    let (_first, next, _refused) = reasoning_server(&mut server);
    let client = responses_client(&server.url());
    let mut conversation = weather_conversation();
    let reply = client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.reasoning().unwrap().text, "The weather needs a tool.");
    conversation.tool_result("call_1", "18 C").unwrap();
    assert_eq!(client.send(&mut conversation).unwrap(), "18 C in Paris.");
    next.assert();
}

#[test]
fn images_and_files_are_input_parts_and_audio_is_refused() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let _mock = server
        .mock("POST", RESPONSES)
        .match_request(bodies.recorder())
        .with_header("content-type", "application/json")
        .with_body(read_data("spec/recorded/llamacpp-responses.json"))
        .create();
    let client = responses_client(&server.url());
    let mut conversation = Conversation::new("gpt-4o");
    let mut message = chatwire::Message::new(chatwire::Role::User, "What are these?");
    let image = Image::url("https://example.com/cat.png").with_detail(chatwire::ImageDetail::Low);
    message.images.push(image);
    message
        .files
        .push(Attachment::from_bytes("report.pdf", b"%PDF-1.4 tiny").unwrap());
    conversation.push_message(message).unwrap();
    client.send(&mut conversation).unwrap();
    let sent: Value = serde_json::from_slice(&bodies.all()[0]).unwrap();
    let parts = &sent["input"][0]["content"];
    assert_eq!(
        parts.as_array().unwrap()[..2],
        [
            json!({"type": "input_text", "text": "What are these?"}),
            json!({"type": "input_image", "image_url": "https://example.com/cat.png",
                "detail": "low"})
        ]
    );
    let file = &parts[2];
    assert_eq!(file["type"], "input_file");
    assert_eq!(file["filename"], "report.pdf");
    assert!(file["file_data"]
        .as_str()
        .unwrap()
        .starts_with("data:application/pdf;base64,"));

    let mut spoken = Conversation::new("gpt-4o");
    let wav = [b"RIFF\x24\x00\x00\x00WAVEfmt ".as_slice(), &[0; 24]].concat();
    spoken
        .user_with_files(
            "Transcribe.",
            vec![Attachment::from_bytes("a.wav", &wav).unwrap()],
        )
        .unwrap();
    let err = client.send(&mut spoken).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert_eq!(bodies.all().len(), 1, "nothing more was sent");
}
