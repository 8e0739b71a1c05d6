//! The providers of 2026 against the provider test server
//! (tests/common/providers/recent.rs, which cites each provider's page or
//! issue): chatwire set up as docs/providers.md says reaches each one's
//! documented path with its auth, sends none of the fields it refuses
//! unless asked to, reads its reasoning, and keeps what it adds; and the
//! same set up from C (tests/c/providers_recent.c, as C and C++, under
//! valgrind when CHATWIRE_VALGRIND=1 and under AddressSanitizer).

mod common;

use std::ops::ControlFlow;

use chatwire::{Auth, Client, Conversation, Error, ReasoningField, Tool};
use common::hostile::HostileServer;
use common::providers::recent::*;
use serde_json::{json, Value};

fn client(configure: impl FnOnce(chatwire::ClientBuilder) -> chatwire::ClientBuilder) -> Client {
    configure(Client::builder().api_key(common::KEY).max_retries(0))
        .build()
        .unwrap()
}

fn asking(model: &str) -> Conversation {
    let mut conversation = Conversation::new(model);
    conversation.user("What is 101 times 3?").unwrap();
    conversation
}

fn streamed(client: &Client, conversation: &mut Conversation) -> chatwire::Result<chatwire::Reply> {
    client.send_stream(conversation, |_| ControlFlow::Continue(()))
}

fn bodies(server: &HostileServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

/// The server's 400 (or other) error, and that the conversation did not change.
fn refused(result: chatwire::Result<chatwire::Reply>, status: u16, words: &str) {
    let error = result.unwrap_err();
    assert!(matches!(error, Error::Http(_)), "{error:?}");
    assert_eq!(error.http_status(), Some(status), "{error:?}");
    let message = &error.api_error().unwrap().message;
    assert!(message.contains(words), "{message}");
}

#[test]
fn cerebras_gets_none_of_the_fields_it_refuses_unless_they_are_set() {
    let server = common::providers::start();
    let client = client(|b| b.base_url(&server.url));
    let mut conversation = asking(CEREBRAS);
    conversation.add_tool(Tool::new("get_time", Some("The time"), None).unwrap());
    // With tools, whole and streamed: no parallel_tool_calls, no penalties.
    client.send_reply(&mut conversation).unwrap();
    conversation.user("Again").unwrap();
    streamed(&client, &mut conversation).unwrap();
    conversation.user("And with a penalty?").unwrap();
    conversation
        .set_option("presence_penalty", Some(json!(0.5)))
        .unwrap();
    let before = conversation.len();
    refused(
        client.send_reply(&mut conversation),
        400,
        "presence_penalty",
    );
    assert_eq!(conversation.len(), before);
    conversation.set_option("presence_penalty", None).unwrap();
    client.send_reply(&mut conversation).unwrap();
    assert_eq!(bodies(&server).len(), 4);
}

#[test]
fn perplexity_gets_alternating_turns_and_its_sources_are_kept() {
    let server = common::providers::start();
    let url = format!("{}{PERPLEXITY_PATH}", server.url);
    let client = client(|b| b.endpoint_url(&url));
    let mut conversation = Conversation::new(PERPLEXITY);
    conversation.set_system("Be precise.");
    conversation
        .user("How many stars are in our galaxy?")
        .unwrap();
    let reply = client.send_reply(&mut conversation).unwrap();
    let json: Value = serde_json::from_str(&reply.json()).unwrap();
    assert_eq!(json["citations"][0], "https://example.org/milky-way");
    assert_eq!(json["search_results"][0]["title"], "The Milky Way");
    conversation.user("And in Andromeda?").unwrap();
    // A streamed reply's body, built from its chunks, keeps them too.
    let reply = streamed(&client, &mut conversation).unwrap();
    assert_eq!(reply.content(), "About 100 to 400 billion [1].");
    let json: Value = serde_json::from_str(&reply.json()).unwrap();
    assert_eq!(json["citations"][0], "https://example.org/milky-way");
    assert_eq!(json["search_results"][0]["title"], "The Milky Way");
    assert_eq!(json["choices"][0]["message"]["content"], reply.content());
    // Two user messages in a row never reach the server: chatwire's own
    // ordering rules are Perplexity's.
    let error = conversation
        .user("Hello?")
        .and_then(|()| conversation.user("Anyone?"));
    assert!(
        matches!(error, Err(Error::InvalidConversation(_))),
        "{error:?}"
    );
    let saved = json!({"model": PERPLEXITY, "messages": [
        {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]});
    assert!(Conversation::from_json(&saved.to_string()).is_err());
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn zai_is_reached_by_its_whole_url_and_thinks_in_reasoning_content() {
    let server = common::providers::start();
    let url = format!("{}{ZAI_PATH}", server.url);
    let client = client(|b| b.endpoint_url(&url));
    for stream in [false, true] {
        let mut conversation = asking(ZAI);
        conversation
            .set_option_unchecked("thinking", Some(json!({"type": "enabled"})))
            .unwrap();
        let reply = if stream {
            streamed(&client, &mut conversation).unwrap()
        } else {
            client.send_reply(&mut conversation).unwrap()
        };
        assert_eq!(reply.content(), "303");
        let reasoning = reply.reasoning().expect("reasoning");
        assert_eq!(reasoning.text, "101 times 3 is 303.");
        assert_eq!(reasoning.field, ReasoningField::ReasoningContent);
    }
    assert!(bodies(&server)
        .iter()
        .all(|body| body["thinking"] == json!({"type": "enabled"})));
    // A base URL gets /v1/chat/completions appended, which Z.ai does not serve.
    let base = format!("{}/api/paas/v4", server.url);
    let wrong = client_base(&base);
    refused(wrong.send_reply(&mut asking(ZAI)), 404, "no route");
}

fn client_base(base: &str) -> Client {
    client(|b| b.base_url(base))
}

#[test]
fn bedrock_takes_its_api_key_as_a_bearer_token_under_openai_v1() {
    let server = common::providers::start();
    let client = client_base(&format!("{}/openai/v1", server.url));
    let reply = client.send_reply(&mut asking(BEDROCK)).unwrap();
    assert_eq!(reply.content(), format!("hello from {BEDROCK}"));
    let request = &server.requests()[0];
    assert_eq!(request.path, BEDROCK_PATH);
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {}", common::KEY).as_str())
    );
}

#[test]
fn azure_v1_route_takes_a_bearer_key_or_an_api_key_and_no_version() {
    let server = common::providers::start();
    let base = format!("{}/openai/v1", server.url);
    for auth in [Auth::Bearer, Auth::ApiKey] {
        let client = client(|b| b.base_url(&base).auth(auth));
        let reply = client.send_reply(&mut asking(AZURE_V1)).unwrap();
        assert_eq!(reply.content(), format!("hello from {AZURE_V1}"));
    }
    let requests = server.requests();
    assert!(requests.iter().all(|r| r.path == AZURE_V1_PATH));
    assert!(requests[0].header("api-key").is_none());
    assert!(requests[1].header("authorization").is_none());
    // No key at all is the server's 401, chatwire's Auth error.
    let keyless = client(|b| b.base_url(&base).auth(Auth::None));
    let error = keyless.send(&mut asking(AZURE_V1)).unwrap_err();
    assert!(matches!(error, Error::Auth(_)), "{error:?}");
}

#[test]
fn dashscope_thinking_needs_a_stream_and_streams_reasoning_apart() {
    let server = common::providers::start();
    let client = client_base(&format!("{}/compatible-mode/v1", server.url));
    let mut conversation = asking(DASHSCOPE);
    client.send_reply(&mut conversation).unwrap();
    conversation.user("Think this time: 101 times 3?").unwrap();
    conversation
        .set_option("enable_thinking", Some(json!(true)))
        .unwrap();
    refused(
        client.send_reply(&mut conversation),
        400,
        "enable_thinking must be set to false for non-streaming calls",
    );
    let mut thinking = String::new();
    let reply = client
        .send_stream_events(&mut conversation, |event| {
            if event.kind == chatwire::DeltaKind::Reasoning {
                thinking.push_str(&event.text);
            }
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(reply.content(), "303");
    assert_eq!(thinking, "101 times 3 is 303.");
    assert_eq!(conversation.messages().last().unwrap().content, "303");
}

#[test]
fn xai_reasoning_models_refuse_stop_and_penalties_and_send_reasoning_content() {
    let server = common::providers::start();
    let client = client_base(&server.url);
    let mut conversation = asking(XAI);
    let reply = client.send_reply(&mut conversation).unwrap();
    assert_eq!(reply.reasoning().unwrap().text, "101 times 3 is 303.");
    conversation.user("Stop at a newline.").unwrap();
    conversation
        .set_option("stop", Some(json!(["\n"])))
        .unwrap();
    refused(client.send_reply(&mut conversation), 400, "stop");
    conversation.set_option("stop", None).unwrap();
    client.send_reply(&mut conversation).unwrap();
    assert_eq!(server.requests()[0].path, common::PATH);
}

#[test]
fn github_models_and_cloudflare_are_reached_at_their_documented_paths() {
    let server = common::providers::start();
    for path in [GITHUB_PATH, GITHUB_ORG_PATH] {
        let url = format!("{}{path}", server.url);
        let client = client(|b| b.endpoint_url(&url));
        let reply = client.send_reply(&mut asking(GITHUB)).unwrap();
        assert_eq!(reply.content(), format!("hello from {GITHUB}"));
    }
    let cloudflare = client_base(&format!("{}/client/v4/accounts/0123abcd/ai/v1", server.url));
    let reply = cloudflare.send_reply(&mut asking(CLOUDFLARE)).unwrap();
    assert_eq!(reply.content(), format!("hello from {CLOUDFLARE}"));
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, [GITHUB_PATH, GITHUB_ORG_PATH, CLOUDFLARE_PATH]);
}

#[test]
fn c_providers_of_2026_set_up_as_the_guide_says() {
    use common::cprog::{compile_sanitized, for_each_build, run};
    let server = common::providers::start();
    for_each_build("providers_recent", |exe| {
        let out = run(exe, &[&server.url, common::KEY]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    let out = run(
        &compile_sanitized("providers_recent"),
        &[&server.url, common::KEY],
    );
    assert!(out.contains(", 0 failed"), "{out}");
}
