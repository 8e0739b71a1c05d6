//! What the model wrote reaches the caller, the conversation, `to_json` and
//! the next request byte for byte, even when it holds the client's key or
//! the value of a header the client sets (`X-Title: my app`, as
//! docs/providers.md recommends for OpenRouter): whole, as a reply object,
//! streamed, as stream events, in the background, as tool-call arguments
//! and as the data of `send_json`. The secrets stay out of what chatwire
//! itself composes: an error that echoes them shows none of them.

mod common;

use std::ops::ControlFlow;
use std::time::Duration;

use chatwire::{Client, Conversation, DeltaKind};
use common::cprog::{compile_sanitized, for_each_build, run};
use common::hostile::HostileServer;
use common::model_output::{arguments, reasoning, server, text, TITLE};
use common::KEY;
use serde_json::{json, Value};

fn client(server: &HostileServer) -> Client {
    Client::builder()
        .base_url(&server.url)
        .api_key(KEY)
        .header("X-Title", TITLE)
        .timeout(Duration::from_secs(30))
        .max_retries(0)
        .build()
        .unwrap()
}

fn asking(model: &str) -> Conversation {
    let mut conversation = Conversation::new(model);
    conversation.user("Say hello.").unwrap();
    conversation
}

/// The conversation's last message, its JSON form and the next request
/// all hold `content` as the model wrote it.
fn assert_kept(
    server: &HostileServer,
    client: &Client,
    conversation: &mut Conversation,
    content: &str,
) {
    let last = conversation.messages().last().unwrap().clone();
    assert_eq!(last.content, content);
    let saved = Conversation::from_json(&conversation.to_json()).unwrap();
    assert_eq!(saved.messages().last().unwrap().content, content);
    conversation.set_model("text").unwrap();
    conversation.user("And again?").unwrap();
    client.send(conversation).unwrap();
    let sent: Value = serde_json::from_slice(&server.requests().last().unwrap().body).unwrap();
    let messages = sent["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2];
    assert_eq!(
        assistant["content"].as_str().unwrap_or(""),
        content,
        "{sent}"
    );
}

#[test]
fn a_whole_reply_is_kept_byte_for_byte() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("text");
    assert_eq!(client.send(&mut conversation).unwrap(), text());
    let reasoning_kept = conversation.messages().last().unwrap().reasoning.clone();
    assert_eq!(reasoning_kept.unwrap().text, reasoning());
    assert_kept(&server, &client, &mut conversation, &text());
}

#[test]
fn a_reply_object_keeps_content_reasoning_and_every_choice() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("text");
    let reply = client.send_reply(&mut conversation).unwrap();
    assert_eq!(reply.content(), text());
    assert_eq!(reply.reasoning().unwrap().text, reasoning());
    assert_eq!(reply.choices()[0].content(), text());
    assert_eq!(reply.choices()[1].content(), format!("{KEY} / {TITLE}"));
    assert_eq!(reply.choices()[0].reasoning().unwrap().text, reasoning());
}

#[test]
fn a_refusal_is_kept_byte_for_byte() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("refusal");
    let reply = client.send_reply(&mut conversation).unwrap();
    assert_eq!(reply.content(), text());
    assert_kept(&server, &client, &mut conversation, &text());
}

#[test]
fn streamed_deltas_returned_text_and_history_are_equal() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("text");
    let mut seen = String::new();
    let reply = client
        .send_stream(&mut conversation, |delta| {
            seen.push_str(delta);
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(seen, text());
    assert_eq!(reply.content(), text());
    assert_eq!(reply.choices()[1].content(), format!("{KEY} / {TITLE}"));
    assert_kept(&server, &client, &mut conversation, &text());
}

#[test]
fn stream_events_reasoning_and_content_are_kept() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("text");
    let (mut thought, mut said) = (String::new(), String::new());
    let reply = client
        .send_stream_events(&mut conversation, |delta| {
            match delta.kind {
                DeltaKind::Reasoning => thought.push_str(&delta.text),
                _ => said.push_str(&delta.text),
            }
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(
        (thought.as_str(), said.as_str()),
        (reasoning().as_str(), text().as_str())
    );
    assert_eq!(reply.reasoning().unwrap().text, reasoning());
    let kept = conversation.messages().last().unwrap().reasoning.clone();
    assert_eq!(kept.unwrap().text, reasoning());
}

#[test]
fn the_stream_iterator_keeps_the_text() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("text");
    let mut stream = client.stream(&mut conversation).unwrap();
    let mut seen = String::new();
    for delta in &mut stream {
        seen.push_str(&delta.unwrap());
    }
    assert_eq!(stream.reply().unwrap().content(), text());
    drop(stream);
    assert_eq!(seen, text());
    assert_kept(&server, &client, &mut conversation, &text());
}

#[test]
fn a_background_reply_is_kept_whole_and_streamed() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("text");
    let reply = client.send_async(&conversation).unwrap().wait().unwrap();
    assert_eq!(reply.content(), text());
    conversation.append_reply(&reply).unwrap();
    assert_kept(&server, &client, &mut conversation, &text());

    let mut conversation = asking("text");
    let (sender, deltas) = std::sync::mpsc::channel();
    let pending = client
        .stream_async(&conversation, move |delta| {
            sender.send(delta.to_owned()).unwrap();
            ControlFlow::Continue(())
        })
        .unwrap();
    let reply = pending.wait().unwrap();
    assert_eq!(deltas.try_iter().collect::<String>(), text());
    assert_eq!(reply.content(), text());
    conversation.append_reply(&reply).unwrap();
    assert_eq!(conversation.messages().last().unwrap().content, text());
}

#[test]
fn tool_call_arguments_are_the_json_the_model_wrote() {
    let server = server();
    let client = client(&server);
    for streamed in [false, true] {
        let mut conversation = asking("tool");
        let reply = if streamed {
            client
                .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
                .unwrap()
        } else {
            client.send_reply(&mut conversation).unwrap()
        };
        assert_eq!(
            reply.tool_calls()[0].arguments,
            arguments(),
            "streamed: {streamed}"
        );
        let kept = &conversation.messages().last().unwrap().tool_calls[0];
        assert_eq!(kept.arguments, arguments(), "streamed: {streamed}");
        assert_eq!(kept.arguments_json().unwrap()["key"], KEY);
        conversation.tool_result("call_1", "done").unwrap();
        conversation.set_model("text").unwrap();
        client.send(&mut conversation).unwrap();
        let sent: Value = serde_json::from_slice(&server.requests().last().unwrap().body).unwrap();
        let call = &sent["messages"][1]["tool_calls"][0]["function"];
        assert_eq!(call["arguments"].as_str().unwrap(), arguments(), "{sent}");
    }
}

#[test]
fn send_json_hands_out_the_data_the_model_wrote() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("json");
    let schema = json!({"type": "object", "properties": {"title": {"type": "string"}, "key": {"type": "string"}},
        "required": ["title", "key"]});
    let data: Value = client.send_json(&mut conversation, &schema).unwrap();
    assert_eq!(data, json!({"title": TITLE, "key": KEY}));
    assert_eq!(conversation.messages().last().unwrap().content, arguments());
}

#[test]
fn an_error_that_echoes_the_secrets_shows_none_of_them() {
    let server = server();
    let client = client(&server);
    let mut conversation = asking("error");
    let error = client.send(&mut conversation).unwrap_err();
    for shown in [
        error.to_string(),
        format!("{error:?}"),
        format!("{error:#?}"),
    ] {
        assert!(!shown.contains(KEY), "{shown}");
        assert!(!shown.contains(TITLE), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }
    assert_eq!(
        conversation.messages().len(),
        1,
        "a failed send left the conversation as it was"
    );
}

#[test]
fn c_programs_get_what_the_model_wrote() {
    let server = server();
    for_each_build("model_output", |exe| {
        let out = run(exe, &[&server.url, KEY]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    let out = run(&compile_sanitized("model_output"), &[&server.url, KEY]);
    assert!(out.contains(", 0 failed"), "{out}");
}
