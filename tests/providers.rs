//! What chatwire does with each provider's documented behaviour, against
//! the provider test server (tests/common/providers.rs, which cites the
//! docs and issues it follows): reasoning, stream quirks, every choice,
//! usage details, headers and the odd error shapes.

mod common;

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use chatwire::{Client, Conversation, DeltaKind, Error, ReasoningField, Role, Tool};
use common::hostile::HostileServer;

fn setup(model: &str) -> (HostileServer, Client, Conversation) {
    let server = common::providers::start();
    let client = common::client(&server.url);
    let mut conversation = Conversation::new(model);
    conversation.user("What time is it?").unwrap();
    (server, client, conversation)
}

fn time_tool() -> Tool {
    Tool::new("get_time", Some("The time now"), None).unwrap()
}

#[test]
fn deepseek_tool_loop_sends_reasoning_back_only_in_the_loop() {
    for streamed in [false, true] {
        let (server, client, mut conversation) = setup("deepseek-reasoner");
        conversation.add_tool(time_tool());
        let reply = if streamed {
            client
                .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
                .unwrap()
        } else {
            client.send_reply(&mut conversation).unwrap()
        };
        assert_eq!(reply.tool_calls().len(), 1);
        let reasoning = reply.reasoning().cloned().expect("reasoning");
        assert_eq!(reasoning.text, "I need the time.");
        assert_eq!(reasoning.field, ReasoningField::ReasoningContent);
        conversation.tool_result("call_1", "12:00").unwrap();
        // Without reasoning_content on the calling message DeepSeek says 400.
        let reply = client.send_reply(&mut conversation).unwrap();
        assert_eq!(reply.content(), "It is noon.");
        // A new question: the earlier turns' reasoning stays home.
        conversation.user("And tomorrow?").unwrap();
        client.send_reply(&mut conversation).unwrap();
        let bodies: Vec<serde_json::Value> = server
            .requests()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect();
        assert_eq!(bodies.len(), 3, "streamed: {streamed}");
        let assistant_reasoning: Vec<bool> = bodies[2]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "assistant")
            .map(|m| m.get("reasoning_content").is_some())
            .collect();
        assert_eq!(assistant_reasoning, [false, false]);
        // Kept on the conversation all the same.
        let kept = conversation
            .messages()
            .iter()
            .filter(|m| m.reasoning.is_some());
        assert_eq!(kept.count(), 3);
    }
}

#[test]
fn vllm_reasoning_streams_apart_from_the_content() {
    let (_server, client, mut conversation) = setup("vllm-reasoning");
    let mut seen = Vec::new();
    let reply = client
        .send_stream_events(&mut conversation, |delta| {
            seen.push((delta.kind, delta.text.clone()));
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(reply.content(), "4");
    let reasoning = reply.reasoning().unwrap();
    assert_eq!(
        (reasoning.text.as_str(), reasoning.field),
        ("Two and two.", ReasoningField::Reasoning)
    );
    assert_eq!(seen[0], (DeltaKind::Reasoning, "Two and ".to_owned()));
    assert_eq!(seen.last().unwrap(), &(DeltaKind::Content, "4".to_owned()));
    // The streamed reply's JSON keeps the reasoning in its field.
    let json: serde_json::Value = serde_json::from_str(&reply.json()).unwrap();
    assert_eq!(json["choices"][0]["message"]["reasoning"], "Two and two.");
}

#[test]
fn raw_think_tags_never_reach_the_content() {
    let (_server, client, mut conversation) = setup("raw-think");
    let mut content = String::new();
    let reply = client
        .send_stream(&mut conversation, |delta| {
            content.push_str(delta);
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(content, "Four");
    assert_eq!(reply.content(), "Four");
    assert_eq!(reply.reasoning().unwrap().text, "Hmm, 2+2.");
    let last = conversation.messages().last().unwrap();
    assert_eq!(
        (last.role, last.content.as_str()),
        (Role::Assistant, "Four")
    );
}

#[test]
fn mistral_refusing_stream_options_is_asked_again_without_and_remembered() {
    let (server, client, mut conversation) = setup("mistral-small");
    let reply = client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.content(), "Bonjour");
    // A clone sends without it at once.
    let clone = client.clone();
    conversation.user("Encore").unwrap();
    clone
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    let asked: Vec<bool> = server
        .requests()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).contains("stream_options"))
        .collect();
    assert_eq!(asked, [true, false, false]);
}

#[test]
fn stream_usage_can_be_turned_off() {
    let server = common::providers::start();
    let client = Client::builder()
        .base_url(&server.url)
        .api_key(common::KEY)
        .stream_usage(false)
        .build()
        .unwrap();
    let mut conversation = Conversation::new("mistral-small");
    conversation.user("Salut").unwrap();
    client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(server.requests().len(), 1, "no refusal to begin with");
}

#[test]
fn a_finished_stream_on_an_open_connection_completes_within_the_grace() {
    let (_server, client, mut conversation) = setup("tgi-open");
    let started = Instant::now();
    let reply = client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.content(), "Done");
    // The server holds the connection open until the client hangs up: the
    // reply came through the grace. Its length is time: three seconds
    // past it allowed, so that only a grace that ran long fails.
    assert!(
        started.elapsed() < chatwire::STREAM_END_GRACE + Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_2xx_error_body_is_the_servers_error() {
    let (_server, client, mut conversation) = setup("tgi-error");
    let error = client.send(&mut conversation).unwrap_err();
    let api = error
        .api_error()
        .expect("the server's error, not a decode error");
    assert!(api.message.contains("top_p"), "{error}");
    assert_eq!(api.kind.as_deref(), Some("validation"));
}

#[test]
fn openrouter_error_chunk_is_the_servers_error() {
    let (_server, client, mut conversation) = setup("openrouter-error");
    let error = client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap_err();
    assert!(matches!(error, Error::Server(_)), "{error:?}");
    assert_eq!(error.http_status(), Some(502));
    assert!(error.to_string().contains("Provider disconnected"));
    assert_eq!(conversation.messages().len(), 1);
}

#[test]
fn a_tool_call_without_an_id_gets_one_that_is_sent_back() {
    let (server, client, mut conversation) = setup("llamacpp-old");
    conversation.add_tool(time_tool());
    let reply = client.send_reply(&mut conversation).unwrap();
    let id = reply.tool_calls()[0].id.clone();
    assert!(id.starts_with("call_"), "{id}");
    conversation.tool_result(&id, "12:00").unwrap();
    let _ = client.send_reply(&mut conversation);
    let body = String::from_utf8_lossy(&server.requests()[1].body).into_owned();
    assert_eq!(body.matches(&id).count(), 2, "{body}");
}

#[test]
fn ollama_calls_without_index_stay_apart() {
    let (_server, client, mut conversation) = setup("ollama");
    let reply = client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    let names: Vec<_> = reply.tool_calls().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["get_time", "get_date"]);
}

#[test]
fn every_choice_is_kept_whole_and_streamed() {
    for streamed in [false, true] {
        let (_server, client, mut conversation) = setup("n2");
        let reply = if streamed {
            client
                .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
                .unwrap()
        } else {
            client.send_reply(&mut conversation).unwrap()
        };
        let texts: Vec<_> = reply.choices().iter().map(|c| c.content()).collect();
        assert_eq!(texts, ["red", "blue"], "streamed: {streamed}");
        assert_eq!(conversation.messages().last().unwrap().content, "red");
        let json: serde_json::Value = serde_json::from_str(&reply.json()).unwrap();
        assert_eq!(json["choices"].as_array().unwrap().len(), 2);
        if streamed {
            assert_eq!(
                json["choices"][1]["logprobs"]["content"]
                    .as_array()
                    .unwrap()
                    .len(),
                2
            );
        }
    }
}

#[test]
fn usage_details_and_headers_are_read_as_sent() {
    let (_server, client, mut conversation) = setup("openai-usage");
    let reply = client.send_reply(&mut conversation).unwrap();
    let usage = reply.usage.unwrap();
    assert_eq!(
        (usage.cached_tokens, usage.reasoning_tokens),
        (Some(1920), Some(256))
    );
    assert_eq!(reply.header("X-RateLimit-Remaining-Requests"), Some("59"));
    // A reply is what the server sent: a header echoing the key included.
    assert_eq!(reply.header("x-echo"), Some(common::KEY));
    assert_eq!(reply.header("x-missing"), None);
}

#[test]
fn groq_stream_usage_is_read_from_x_groq() {
    let (_server, client, mut conversation) = setup("groq");
    let reply = client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    let usage = reply.usage.expect("usage");
    assert_eq!((usage.total_tokens, usage.cached_tokens), (6, Some(4)));
}

#[test]
fn azure_content_filter_is_its_own_error_and_not_retried() {
    let server = common::providers::start();
    let client = Client::builder()
        .base_url(&server.url)
        .api_key(common::KEY)
        .max_retries(2)
        .build()
        .unwrap();
    let mut conversation = Conversation::new("azure-filtered");
    conversation.user("something filtered").unwrap();
    let error = client.send(&mut conversation).unwrap_err();
    assert!(matches!(error, Error::ContentFiltered(_)), "{error:?}");
    assert_eq!(server.requests().len(), 1);
    let mut conversation = Conversation::new("azure-finish-filtered");
    conversation.user("x").unwrap();
    let reply = client.send_reply(&mut conversation).unwrap();
    assert_eq!(reply.finish_reason(), Some("content_filter"));
}
