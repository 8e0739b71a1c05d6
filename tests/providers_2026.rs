//! What servers of 2026 send and want back, against the provider test
//! server (tests/common/providers_2026.rs cites the docs and issues each
//! emulation follows, and refuses with 400, as the provider does, a request
//! that lacks what it wants back): Gemini 3's thought signatures, Kimi's
//! reasoning on every tool-call turn, OpenRouter's streamed
//! reasoning_details, Mistral's thinking chunks, free-form tools. Each
//! whole and streamed; every request body is checked against the official
//! schema.

mod common;

use std::ops::ControlFlow;

use chatwire::{
    Client, Conversation, DeltaKind, Error, ReasoningField, ReasoningReplay, Reply, Tool, ToolCall,
};
use common::hostile::HostileServer;
use serde_json::{json, Value};

fn setup(model: &str) -> (HostileServer, Client, Conversation) {
    let server = common::providers::start();
    let client = common::client(&server.url);
    let mut conversation = Conversation::new(model);
    conversation.user("What time is it?").unwrap();
    conversation.add_tool(Tool::new("get_time", Some("The time now"), None).unwrap());
    (server, client, conversation)
}

fn send(
    client: &Client,
    conversation: &mut Conversation,
    streamed: bool,
) -> chatwire::Result<Reply> {
    if streamed {
        client.send_stream(conversation, |_| ControlFlow::Continue(()))
    } else {
        client.send_reply(conversation)
    }
}

/// Every request the server saw, as JSON, each checked against the schema.
fn bodies(server: &HostileServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .map(|request| {
            common::assert_valid_request(&request.body);
            serde_json::from_slice(&request.body).unwrap()
        })
        .collect()
}

fn answer_every_call(conversation: &mut Conversation, reply: &Reply) {
    for call in reply.tool_calls() {
        conversation.tool_result(&call.id, "12:00").unwrap();
    }
}

#[test]
fn gemini_3_tool_loop_sends_each_signature_back_whole_and_streamed() {
    for streamed in [false, true] {
        let (server, client, mut conversation) = setup("gemini-3-pro-preview");
        let reply = send(&client, &mut conversation, streamed).unwrap();
        assert_eq!(reply.tool_calls().len(), 2, "streamed: {streamed}");
        let first = &reply.tool_calls()[0];
        assert_eq!(first.arguments, r#"{"zone":"UTC"}"#);
        assert_eq!(
            first.extra["extra_content"]["google"]["thought_signature"],
            common::providers_2026::gemini_signature(&first.id)
        );
        assert!(reply.tool_calls()[1].extra.is_empty());
        answer_every_call(&mut conversation, &reply);
        // Gemini refuses this request unless the signature comes back.
        let reply = send(&client, &mut conversation, streamed).unwrap();
        assert_eq!(reply.content(), "It is noon.");
        // A provider's own key on the message is kept too.
        assert_eq!(
            reply.extra()["extra_content"]["google"]["thought_signature"],
            "CiQBtextSig=="
        );
        // Saved and loaded, nothing is lost; the next turn sends it all back.
        let saved = conversation.to_json();
        let mut conversation = Conversation::from_json(&saved).unwrap();
        assert_eq!(conversation.to_json(), saved);
        conversation.user("And in Tokyo?").unwrap();
        conversation.add_tool(Tool::new("get_time", Some("The time now"), None).unwrap());
        send(&client, &mut conversation, streamed).unwrap();
        let sent = bodies(&server);
        assert_eq!(sent.len(), 3);
        let history = sent[2]["messages"].as_array().unwrap();
        assert_eq!(
            history[1]["tool_calls"][0]["extra_content"],
            json!({"google": {"thought_signature": common::providers_2026::gemini_signature(
                history[1]["tool_calls"][0]["id"].as_str().unwrap())}})
        );
        assert_eq!(
            history[4]["extra_content"]["google"]["thought_signature"],
            "CiQBtextSig=="
        );
    }
}

#[test]
fn gemini_3_refuses_a_call_whose_signature_was_lost() {
    let (_server, client, mut conversation) = setup("gemini-3-pro-preview");
    let reply = client.send_reply(&mut conversation).unwrap();
    answer_every_call(&mut conversation, &reply);
    // Rebuilt by hand without the signature: what chatwire used to send.
    let mut json: Value = serde_json::from_str(&conversation.to_json()).unwrap();
    json["messages"][1]["tool_calls"][0]
        .as_object_mut()
        .unwrap()
        .remove("extra_content");
    let mut stripped = Conversation::from_json(&json.to_string()).unwrap();
    let error = client.send_reply(&mut stripped).unwrap_err();
    assert_eq!(error.http_status(), Some(400), "{error}");
    assert!(error.to_string().contains("thought_signature"), "{error}");
}

/// Two questions, each answered through a tool call, the first turn's call
/// in the history of the second.
fn kimi_two_turns(
    conversation: &mut Conversation,
    client: &Client,
    streamed: bool,
) -> chatwire::Result<()> {
    for question in ["And in Tokyo?", ""] {
        let reply = send(client, conversation, streamed)?;
        assert_eq!(reply.tool_calls().len(), 1);
        assert_eq!(
            reply.reasoning().unwrap().field,
            ReasoningField::ReasoningContent
        );
        answer_every_call(conversation, &reply);
        let reply = send(client, conversation, streamed)?;
        assert_eq!(reply.content(), "It is noon.");
        if !question.is_empty() {
            conversation.user(question).unwrap();
        }
    }
    Ok(())
}

#[test]
fn kimi_gets_reasoning_back_on_every_tool_call_turn_whole_and_streamed() {
    for streamed in [false, true] {
        let (server, client, mut conversation) = setup("kimi-k2.5");
        kimi_two_turns(&mut conversation, &client, streamed).unwrap();
        let sent = bodies(&server);
        assert_eq!(sent.len(), 4, "streamed: {streamed}");
        let history = sent[3]["messages"].as_array().unwrap();
        // The first turn's calling message carries its reasoning, as it came;
        // its plain answer does not need to.
        assert_eq!(history[1]["reasoning_content"], "Turn 1: I need the time.");
        assert!(
            history[3].get("reasoning_content").is_none(),
            "{}",
            history[3]
        );
        assert_eq!(history[5]["reasoning_content"], "Turn 2: I need the time.");
    }
}

#[test]
fn kimi_refuses_the_loop_when_earlier_turns_go_without_reasoning() {
    let (_server, client, mut conversation) = setup("kimi-k2.5");
    conversation.set_reasoning_replay(ReasoningReplay::CurrentLoop);
    let error = kimi_two_turns(&mut conversation, &client, false).unwrap_err();
    assert_eq!(error.http_status(), Some(400));
    assert!(
        error
            .to_string()
            .contains("reasoning_content is missing in assistant tool call message at index 1"),
        "{error}"
    );
}

#[test]
fn kimi_takes_a_hand_built_calling_turn_with_an_empty_reasoning() {
    // A history built by hand has no reasoning to send; Kimi refuses a
    // missing field but takes an empty one
    // (https://github.com/Lapis0x0/obsidian-yolo/pull/243).
    let (server, client, mut conversation) = setup("kimi-k2.5");
    conversation
        .assistant_tool_calls("", vec![ToolCall::new("call_old", "get_time", "{}")])
        .unwrap();
    conversation.tool_result("call_old", "11:00").unwrap();
    conversation.assistant("It was eleven.").unwrap();
    conversation.user("And now?").unwrap();
    let reply = client.send_reply(&mut conversation).unwrap();
    assert_eq!(reply.tool_calls().len(), 1);
    assert_eq!(bodies(&server)[0]["messages"][1]["reasoning_content"], "");
}

#[test]
fn openrouter_reasoning_details_go_back_as_sent_whole_and_streamed() {
    for streamed in [false, true] {
        let (server, client, mut conversation) = setup("openrouter-reasoning");
        let reply = send(&client, &mut conversation, streamed).unwrap();
        let reasoning = reply.reasoning().cloned().expect("reasoning");
        assert_eq!(reasoning.text, "I should check the time.");
        assert_eq!(reasoning.field, ReasoningField::Reasoning);
        let details: Value = serde_json::from_str(reasoning.details.as_deref().unwrap()).unwrap();
        assert_eq!(details, common::providers_2026::openrouter_details());
        answer_every_call(&mut conversation, &reply);
        // Refused unless the details come back joined, signature included.
        let reply = send(&client, &mut conversation, streamed).unwrap();
        assert_eq!(reply.content(), "Noon.", "streamed: {streamed}");
        assert_eq!(bodies(&server).len(), 2);
    }
}

#[test]
fn mistral_thinking_chunks_are_reasoning_whole_and_streamed() {
    for streamed in [false, true] {
        let (server, client, mut conversation) = setup("magistral-medium-latest");
        let mut seen = Vec::new();
        let reply = if streamed {
            client
                .send_stream_events(&mut conversation, |delta| {
                    seen.push((delta.kind, delta.text.clone()));
                    ControlFlow::Continue(())
                })
                .unwrap()
        } else {
            client.send_reply(&mut conversation).unwrap()
        };
        assert_eq!(reply.content(), "4", "streamed: {streamed}");
        let reasoning = reply.reasoning().cloned().unwrap();
        assert_eq!(
            (reasoning.text.as_str(), reasoning.field),
            ("Two and two make four.", ReasoningField::ContentChunks)
        );
        if streamed {
            assert_eq!(
                seen,
                [
                    (DeltaKind::Reasoning, "Two and two ".to_owned()),
                    (DeltaKind::Reasoning, "make four.".to_owned()),
                    (DeltaKind::Content, "4".to_owned()),
                ]
            );
            // The streamed reply's JSON has the chunks as Mistral sends them.
            let json: Value = serde_json::from_str(&reply.json()).unwrap();
            assert_eq!(
                json["choices"][0]["message"]["content"][0]["type"],
                "thinking"
            );
        }
        let last = conversation.messages().last().unwrap();
        assert_eq!(last.content, "4");
        conversation.user("Times two?").unwrap();
        send(&client, &mut conversation, streamed).unwrap();
        // An earlier turn goes back as plain text.
        assert_eq!(bodies(&server)[1]["messages"][1]["content"], "4");
    }
}

fn sql_tool() -> Tool {
    let grammar = json!({"type": "grammar",
        "grammar": {"syntax": "lark", "definition": "start: \"SELECT \" NUMBER \";\"\n%import common.NUMBER"}});
    Tool::custom("run_sql", Some("Runs one SQL query"), Some(grammar)).unwrap()
}

#[test]
fn custom_tool_calls_live_in_the_history_whole_and_streamed() {
    for streamed in [false, true] {
        let server = common::providers::start();
        let client = common::client(&server.url);
        let mut conversation = Conversation::new("gpt-5-custom");
        conversation.user("How many rows?").unwrap();
        conversation.add_tool(sql_tool());
        let reply = send(&client, &mut conversation, streamed).unwrap();
        let call = &reply.tool_calls()[0];
        assert!(call.is_custom(), "streamed: {streamed}: {call:?}");
        assert_eq!(
            (call.name.as_str(), call.arguments.as_str()),
            ("run_sql", "SELECT 1;")
        );
        conversation.tool_result(&call.id, "1").unwrap();
        // Refused unless the custom call and its result come back.
        let reply = send(&client, &mut conversation, streamed).unwrap();
        assert_eq!(reply.content(), "One row.");
        let saved = conversation.to_json();
        let loaded = Conversation::from_json(&saved).unwrap();
        assert_eq!(loaded, conversation);
        assert!(loaded.messages()[1].tool_calls[0].is_custom());
        assert!(loaded.tools()[0].custom);
        let sent = bodies(&server);
        assert_eq!(sent[0]["tools"][0]["custom"]["name"], "run_sql");
        assert_eq!(
            sent[1]["messages"][1]["tool_calls"][0],
            json!({"id": "call_sql", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1;"}})
        );
    }
}

#[test]
fn a_bad_custom_format_is_refused() {
    let mut conversation = Conversation::new("gpt-5-custom");
    let error = Tool::custom_from_text("run_sql", None, Some(r#"{"type":"grammar"}"#)).unwrap_err();
    assert!(matches!(error, Error::InvalidArgument(_)), "{error:?}");
    conversation.add_tool(sql_tool());
    assert_eq!(conversation.tools().len(), 1);
}
