//! End-to-end tests against a real OpenAI-compatible server.
//!
//! They run when `CHATWIRE_E2E_BASE_URL` and `CHATWIRE_E2E_API_KEY` are set
//! (`CHATWIRE_E2E_MODEL` names the model; the server's default otherwise),
//! as `make -C examples-c test` and CI do with a local llama.cpp server and a
//! tiny model. Without them each test says it was skipped and passes. The
//! model is tiny, so the tests check what a real server guarantees (shape,
//! roles, statuses, growth of history and usage), never the wording.

mod common;

use std::ops::ControlFlow;
use std::time::Duration;

use chatwire::{Api, Client, Conversation, Error, Role, SchemaDelivery, Tool};
use common::cprog::{for_each_build, run};
use serde_json::json;

struct Server {
    base_url: String,
    api_key: String,
    model: String,
}

fn server(test: &str) -> Option<Server> {
    let base_url = std::env::var("CHATWIRE_E2E_BASE_URL")
        .ok()
        .filter(|v| !v.is_empty());
    let api_key = std::env::var("CHATWIRE_E2E_API_KEY")
        .ok()
        .filter(|v| !v.is_empty());
    match (base_url, api_key) {
        (Some(base_url), Some(api_key)) => Some(Server {
            base_url,
            api_key,
            model: std::env::var("CHATWIRE_E2E_MODEL").unwrap_or_else(|_| "local".into()),
        }),
        _ => {
            eprintln!(
                "e2e {test}: skipped (set CHATWIRE_E2E_BASE_URL and CHATWIRE_E2E_API_KEY, \
                 or run `make -C examples-c test`)"
            );
            None
        }
    }
}

impl Server {
    fn client(&self, api_key: &str) -> Client {
        self.builder(api_key).build().unwrap()
    }

    fn builder(&self, api_key: &str) -> chatwire::ClientBuilder {
        Client::builder()
            .base_url(&self.base_url)
            .api_key(api_key)
            .timeout(Duration::from_secs(120))
            .max_retries(1)
    }

    fn conversation(&self) -> Conversation {
        let mut conversation = Conversation::new(&self.model);
        conversation
            .set_option("max_tokens", Some(json!(24)))
            .unwrap();
        conversation
            .set_option("temperature", Some(json!(0)))
            .unwrap();
        conversation.set_system("You are a helpful assistant. Answer briefly.");
        conversation
    }
}

#[test]
fn e2e_multi_turn_history_and_usage_grow() {
    let Some(server) = server("multi-turn") else {
        return;
    };
    let client = server.client(&server.api_key);
    let mut conversation = server.conversation();

    conversation.user("Name a colour.").unwrap();
    let first = client.send_reply(&mut conversation).unwrap();
    assert_eq!(conversation.len(), 3);
    assert_eq!(conversation.messages()[2].role, Role::Assistant);
    assert_eq!(conversation.messages()[2].content, first.content());
    assert!(first.finish_reason().is_some());
    let first_usage = first.usage.expect("the server reports usage");
    assert!(first_usage.prompt_tokens > 0 && first_usage.completion_tokens > 0);

    conversation.user("Repeat your previous answer.").unwrap();
    let second = client.send_reply(&mut conversation).unwrap();
    assert_eq!(conversation.len(), 5);
    let second_usage = second.usage.expect("the server reports usage");
    // The second request carries the first question, the first reply and the
    // new question, so it is longer than the first by at least the reply.
    assert!(
        second_usage.prompt_tokens >= first_usage.prompt_tokens + first_usage.completion_tokens,
        "{first_usage:?} then {second_usage:?}"
    );
}

#[test]
fn e2e_wrong_key_is_auth_with_the_server_message() {
    let Some(server) = server("wrong key") else {
        return;
    };
    let mut conversation = server.conversation();
    conversation.user("Hello").unwrap();
    let err = server
        .client("sk-wrong-key")
        .send(&mut conversation)
        .unwrap_err();
    assert!(matches!(err, Error::Auth(_)), "{err:?}");
    assert_eq!(err.http_status(), Some(401));
    assert_eq!(err.api_error().unwrap().message, "Invalid API Key");
    assert!(!err.to_string().contains("sk-wrong-key"));
    assert_eq!(conversation.len(), 2);
}

/// llama.cpp lists the model it serves at /v1/models, under the alias the
/// server was started with, `models` beside `data`
/// (tests/data/spec/recorded/llamacpp-models.json).
#[test]
fn e2e_models_lists_the_served_model() {
    let Some(server) = server("models") else {
        return;
    };
    let models = server.client(&server.api_key).models().unwrap();
    let served = models
        .iter()
        .find(|model| model.id == server.model)
        .unwrap_or_else(|| panic!("{} not among {models:?}", server.model));
    assert_eq!(served.owned_by.as_deref(), Some("llamacpp"));
    assert!(served.created.is_some(), "{served:?}");
    let whole: serde_json::Value = serde_json::from_str(&served.to_json()).unwrap();
    assert_eq!(whole["id"], server.model.as_str());
    assert_eq!(whole["object"], "model");
    // A wrong key is refused here as on a send.
    let err = server.client("sk-wrong-key").models().unwrap_err();
    assert!(matches!(err, Error::Auth(_)), "{err:?}");
    assert!(!err.to_string().contains("sk-wrong-key"));
}

#[test]
fn e2e_malformed_request_is_400_with_the_server_message() {
    let Some(server) = server("malformed request") else {
        return;
    };
    let mut conversation = server.conversation();
    conversation
        .set_option(
            "response_format",
            Some(json!({"type": "json_schema",
                        "json_schema": {"name": "x", "schema": {"type": "no_such_type"}}})),
        )
        .unwrap();
    conversation.user("Hello").unwrap();
    let err = server
        .client(&server.api_key)
        .send(&mut conversation)
        .unwrap_err();
    assert!(matches!(err, Error::Http(_)), "{err:?}");
    assert_eq!(err.http_status(), Some(400));
    assert!(!err.api_error().unwrap().message.is_empty());
    assert_eq!(conversation.len(), 2);
}

#[test]
fn e2e_streamed_reply_equals_the_deltas() {
    let Some(server) = server("streaming") else {
        return;
    };
    let client = server.client(&server.api_key);
    let mut conversation = server.conversation();
    conversation.user("Count from one to five.").unwrap();
    let mut deltas = Vec::new();
    let reply = client
        .send_stream(&mut conversation, |delta| {
            deltas.push(delta.to_owned());
            ControlFlow::Continue(())
        })
        .unwrap();
    assert!(deltas.len() > 1, "{deltas:?}");
    assert_eq!(deltas.concat(), reply.content());
    assert_eq!(conversation.messages()[2].content, reply.content());
    assert!(reply.usage.is_some_and(|usage| usage.completion_tokens > 0));
}

#[test]
fn e2e_stream_cancelled_from_the_callback_leaves_the_conversation() {
    let Some(server) = server("stream cancel") else {
        return;
    };
    let client = server.client(&server.api_key);
    let mut conversation = server.conversation();
    conversation.user("Tell me a long story.").unwrap();
    let before = conversation.clone();
    let err = client
        .send_stream(&mut conversation, |_| ControlFlow::Break(()))
        .unwrap_err();
    assert!(matches!(err, Error::Cancelled), "{err:?}");
    assert_eq!(conversation, before);
}

#[test]
fn e2e_from_c() {
    let Some(server) = server("C program") else {
        return;
    };
    for_each_build("e2e", |exe| {
        let out = run(exe, &[&server.base_url, &server.api_key, &server.model]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
}

/// Schema-valid data from the real model: the schema as `response_format`,
/// which llama.cpp's server turns into a grammar, checked by chatwire.
#[test]
fn e2e_send_json_gives_schema_valid_data() {
    let Some(server) = server("send_json") else {
        return;
    };
    let client = server
        .builder(&server.api_key)
        .schema_delivery(SchemaDelivery::ResponseFormat)
        .build()
        .unwrap();
    let mut conversation = Conversation::new(&server.model);
    conversation
        .set_option("max_tokens", Some(json!(200)))
        .unwrap();
    conversation
        .set_option("temperature", Some(json!(0)))
        .unwrap();
    // Greedy decoding of a small model may repeat items until max_tokens.
    conversation
        .set_option("frequency_penalty", Some(json!(1)))
        .unwrap();
    conversation
        .user("List the ingredients: 2 eggs, 1 cup of flour.")
        .unwrap();
    let schema: serde_json::Value = serde_json::from_str(chatwire::INGREDIENTS_SCHEMA).unwrap();
    let items: Vec<chatwire::Ingredient> = client.send_json(&mut conversation, &schema).unwrap();
    assert!(!items.is_empty());
    assert!(items
        .iter()
        .all(|item| !item.ingredient.is_empty() && item.quantity >= 0.0));
    assert_eq!(conversation.len(), 2);
    let kept: Vec<chatwire::Ingredient> =
        serde_json::from_str(&conversation.messages()[1].content).unwrap();
    assert_eq!(kept, items);
}

fn weather_conversation(server: &Server) -> Conversation {
    let mut conversation = Conversation::new(&server.model);
    conversation.add_tool(
        Tool::new(
            "get_weather",
            Some("Current weather for a city"),
            Some(json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})),
        )
        .unwrap(),
    );
    for (name, value) in [
        ("max_tokens", json!(120)),
        ("temperature", json!(0)),
        ("tool_choice", json!("required")),
        ("parallel_tool_calls", json!(false)),
    ] {
        conversation.set_option(name, Some(value)).unwrap();
    }
    conversation
        .user("What is the weather in Paris right now?")
        .unwrap();
    conversation
}

/// The tool loop of examples-c/tools.c against the real server, whole or
/// streamed: a call the server's grammar made, its result, then an answer
/// with no call. The assistant message that carries the call goes back to
/// the server with `"content": ""`, which it accepts.
fn tool_loop(server: &Server, streamed: bool, api: Api) {
    let client = server.builder(&server.api_key).api(api).build().unwrap();
    let mut conversation = weather_conversation(server);
    let send = |conversation: &mut Conversation| {
        if streamed {
            client.send_stream(conversation, |_| ControlFlow::Continue(()))
        } else {
            client.send_reply(conversation)
        }
    };
    let reply = send(&mut conversation).unwrap();
    assert_eq!(reply.tool_calls().len(), 1, "{reply:?}");
    let call = &reply.tool_calls()[0];
    assert_eq!(call.name, "get_weather");
    assert!(
        call.arguments_json().unwrap()["city"].is_string(),
        "{call:?}"
    );
    assert!(!call.id.is_empty());
    conversation
        .tool_result(
            &call.id,
            r#"{"city":"Paris","forecast":"sunny","temperature_c":21}"#,
        )
        .unwrap();
    conversation
        .set_option("tool_choice", Some(json!("none")))
        .unwrap();
    let answer = send(&mut conversation).unwrap();
    assert!(answer.tool_calls().is_empty(), "{answer:?}");
    assert!(!answer.content().is_empty());
    let roles: Vec<Role> = conversation.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
}

#[test]
fn e2e_tool_loop_with_a_real_call() {
    let Some(server) = server("tool loop") else {
        return;
    };
    tool_loop(&server, false, Api::ChatCompletions);
}

#[test]
fn e2e_streamed_tool_loop_with_a_real_call() {
    let Some(server) = server("streamed tool loop") else {
        return;
    };
    tool_loop(&server, true, Api::ChatCompletions);
}

#[test]
fn e2e_responses_tool_loop_with_a_real_call() {
    let Some(server) = server("Responses tool loop") else {
        return;
    };
    tool_loop(&server, false, Api::Responses);
    tool_loop(&server, true, Api::Responses);
}

/// The server's `/v1/responses`: a whole reply, a second turn in context,
/// a streamed reply equal to its deltas, and the same conversation going
/// on over chat completions.
#[test]
fn e2e_responses_whole_streamed_and_in_context() {
    let Some(server) = server("Responses") else {
        return;
    };
    let responses = server
        .builder(&server.api_key)
        .api(Api::Responses)
        .build()
        .unwrap();
    let mut conversation = server.conversation();
    conversation.user("Name a colour.").unwrap();
    let first = responses.send_reply(&mut conversation).unwrap();
    assert!(first.finish_reason().is_some(), "{first:?}");
    let first_usage = first.usage.expect("the server reports usage");
    assert!(first_usage.prompt_tokens > 0 && first_usage.completion_tokens > 0);
    conversation.user("Repeat your previous answer.").unwrap();
    let second = responses.send_reply(&mut conversation).unwrap();
    let second_usage = second.usage.expect("the server reports usage");
    assert!(
        second_usage.prompt_tokens >= first_usage.prompt_tokens + first_usage.completion_tokens,
        "{first_usage:?} then {second_usage:?}"
    );
    conversation.user("Count from one to five.").unwrap();
    let mut deltas = Vec::new();
    let streamed = responses
        .send_stream(&mut conversation, |delta| {
            deltas.push(delta.to_owned());
            ControlFlow::Continue(())
        })
        .unwrap();
    assert!(deltas.len() > 1, "{deltas:?}");
    assert_eq!(deltas.concat(), streamed.content());
    conversation.user("Thanks.").unwrap();
    server
        .client(&server.api_key)
        .send(&mut conversation)
        .unwrap();
    assert_eq!(conversation.len(), 9);
}

/// The server whose template makes the model think first
/// (examples-c/local-model/smollm2-think.jinja), when it runs.
fn reasoning_server(test: &str) -> Option<Server> {
    let mut server = server(test)?;
    match std::env::var("CHATWIRE_E2E_REASONING_BASE_URL") {
        Ok(url) if !url.is_empty() => {
            server.base_url = url;
            Some(server)
        }
        _ => {
            eprintln!("e2e {test}: skipped (no CHATWIRE_E2E_REASONING_BASE_URL)");
            None
        }
    }
}

fn reasoning_conversation(server: &Server) -> Conversation {
    let mut conversation = Conversation::new(&server.model);
    conversation
        .set_option("max_tokens", Some(json!(60)))
        .unwrap();
    conversation
        .set_option("temperature", Some(json!(0)))
        .unwrap();
    conversation.user("What is 2 plus 2?").unwrap();
    conversation
}

fn assert_reasoned(reply: &chatwire::Reply, field: chatwire::ReasoningField) {
    let reasoning = reply.reasoning().expect("the model reasoned");
    assert!(!reasoning.text.trim().is_empty(), "{reply:?}");
    assert_eq!(reasoning.field, field, "{reply:?}");
    for tag in ["<think>", "</think>"] {
        assert!(!reply.content().contains(tag), "{reply:?}");
        assert!(!reasoning.text.contains(tag), "{reply:?}");
    }
}

#[test]
fn e2e_reasoning_parsed_by_the_server() {
    let Some(server) = reasoning_server("reasoning parsed by the server") else {
        return;
    };
    let client = server.client(&server.api_key);
    let mut conversation = reasoning_conversation(&server);
    let reply = client.send_reply(&mut conversation).unwrap();
    assert_reasoned(&reply, chatwire::ReasoningField::ReasoningContent);
    assert!(reply.json().contains("\"reasoning_content\""));
    assert_eq!(
        conversation.messages().last().unwrap().reasoning.as_ref(),
        reply.reasoning()
    );

    let mut conversation = reasoning_conversation(&server);
    let (mut reasoning, mut content) = (String::new(), String::new());
    let reply = client
        .send_stream_events(&mut conversation, |delta| {
            match delta.kind {
                chatwire::DeltaKind::Reasoning => reasoning.push_str(&delta.text),
                _ => content.push_str(&delta.text),
            }
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_reasoned(&reply, chatwire::ReasoningField::ReasoningContent);
    assert_eq!(reasoning, reply.reasoning().unwrap().text);
    assert_eq!(content, reply.content());
}

#[test]
fn e2e_reasoning_from_raw_think_tags_in_content() {
    let Some(server) = reasoning_server("reasoning from raw think tags") else {
        return;
    };
    let client = server.client(&server.api_key);
    for streamed in [false, true] {
        let mut conversation = reasoning_conversation(&server);
        // llama.cpp's own option: leave the thinking in the content, tags and all.
        conversation
            .set_option_unchecked("reasoning_format", Some(json!("none")))
            .unwrap();
        let reply = if streamed {
            client
                .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
                .unwrap()
        } else {
            client.send_reply(&mut conversation).unwrap()
        };
        assert_reasoned(&reply, chatwire::ReasoningField::ThinkTags);
        assert!(reply.json().contains("</think>"), "streamed: {streamed}");
    }
}

// Long conversations: without a budget a growing chat ends in
// `Error::ContextLength` with the conversation unchanged; with a budget,
// 200 turns all succeed, the server's own prompt count stays within 10% of
// the budget, and once the history is long the prompt stays above half of
// it (trimming leaves out little more than it must). The local server's
// slots hold 2,048 tokens each.

/// The token budget: well inside a 2,048-token slot with the reply's few
/// tokens, small enough that 200 turns run quickly.
const BUDGET: u64 = 512;
const TURNS: usize = 200;

/// A conversation with replies of a few tokens, to keep 200 turns fast.
fn budget_conversation(server: &Server) -> Conversation {
    let mut conversation = server.conversation();
    conversation
        .set_option("max_tokens", Some(json!(4)))
        .unwrap();
    conversation
}

/// A question of about `words` words.
fn question(turn: usize, words: usize) -> String {
    let filler = "the quick brown fox jumps over the lazy dog";
    let mut text = format!("Question {turn}:");
    while text.split_whitespace().count() < words {
        text.push(' ');
        text.push_str(filler);
    }
    text + ". What colour is the fox?"
}

#[test]
fn e2e_without_a_budget_a_growing_chat_ends_in_context_length_unchanged() {
    let Some(server) = server("budget") else {
        return;
    };
    let client = server.client(&server.api_key);
    let mut c = budget_conversation(&server);
    for turn in 0..60 {
        c.user(question(turn, 150)).unwrap();
        let before = c.clone();
        match client.send(&mut c) {
            Ok(_) => continue,
            Err(Error::ContextLength(api)) => {
                assert_eq!(c, before, "a failed send changes nothing");
                assert_eq!(api.status, Some(400));
                eprintln!(
                    "e2e budget: context length after {turn} turns: {}",
                    api.message
                );
                return;
            }
            Err(other) => panic!("turn {turn}: {other}"),
        }
    }
    eprintln!("e2e budget: the server's context holds 60 long turns; nothing to check");
}

#[test]
fn e2e_with_a_budget_200_turns_fit() {
    let Some(server) = server("budget") else {
        return;
    };
    let client = server.client(&server.api_key);
    let mut c = budget_conversation(&server);
    c.set_token_budget(BUDGET);
    let mut dropped = 0;
    let mut lowest_after_drops = u64::MAX;
    for turn in 0..TURNS {
        c.user(question(turn, 20)).unwrap();
        let reply = client
            .send_reply(&mut c)
            .unwrap_or_else(|err| panic!("turn {turn}: {err}"));
        let prompt = reply.usage.expect("the server reports usage").prompt_tokens;
        assert!(
            prompt <= BUDGET + BUDGET / 10,
            "turn {turn}: {prompt} prompt tokens, over the budget of {BUDGET} by more than 10%"
        );
        dropped += c.last_dropped();
        if dropped > 0 {
            lowest_after_drops = lowest_after_drops.min(prompt);
        }
    }
    assert!(dropped > 0, "200 turns never reached the budget");
    assert!(
        lowest_after_drops > BUDGET / 2,
        "once the history was long, a prompt fell to {lowest_after_drops} tokens"
    );
    eprintln!(
        "e2e budget: {TURNS} turns, {dropped} messages dropped, \
         lowest prompt once dropping {lowest_after_drops} of {BUDGET}"
    );
}
