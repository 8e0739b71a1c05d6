//! The same conversation over the Responses API (`Api::Responses`), against
//! mock servers answering in the recorded llama.cpp shapes
//! (`tests/data/spec/recorded/llamacpp-responses*`): the request checked
//! against the official `CreateResponse` schema, the reply read into the
//! same `Reply`, the history sent whole on every turn, options mapped or
//! refused before anything is sent, and the error statuses of chat
//! completions.

mod common;

use std::ops::ControlFlow;
use std::sync::OnceLock;
use std::time::Duration;

use chatwire::{Api, Conversation, Error};
use common::paced::{signal, PacedServer, Step};
use common::*;
use mockito::{Matcher, Server};
use serde_json::{json, Value};

const RESPONSES: &str = "/v1/responses";

/// A client for `url` that speaks the Responses API.
fn responses_client(url: &str) -> chatwire::Client {
    builder(url).api(Api::Responses).build().unwrap()
}

fn create_response_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let mut schema: Value =
            serde_json::from_str(&read_data("spec/responses.schema.json")).unwrap();
        schema["$ref"] = json!("#/$defs/CreateResponse");
        jsonschema::validator_for(&schema).expect("schema compiles")
    })
}

/// The body as JSON, after checking it against `CreateResponse`.
fn checked_request(body: &[u8]) -> Value {
    let value: Value = serde_json::from_slice(body).expect("request body is JSON");
    let errors: Vec<String> = create_response_validator()
        .iter_errors(&value)
        .map(|err| format!("{} at {}", err, err.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{value} breaks CreateResponse: {errors:?}"
    );
    value
}

/// A mock answering every POST to /v1/responses with `body`, recording requests.
fn answering(server: &mut Server, body: &str, bodies: &Bodies) -> mockito::Mock {
    server
        .mock("POST", RESPONSES)
        .match_header("authorization", format!("Bearer {KEY}").as_str())
        .match_request(bodies.recorder())
        .with_header("content-type", "application/json")
        .with_header("x-request-id", "req_resp_1")
        .with_body(body)
        .create()
}

#[test]
fn a_send_posts_the_conversation_statelessly_and_reads_the_recorded_reply() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let mock = answering(
        &mut server,
        &read_data("spec/recorded/llamacpp-responses.json"),
        &bodies,
    );
    let client = responses_client(&server.url());
    assert_eq!(client.api(), Api::Responses);
    assert_eq!(client.endpoint(), format!("{}{RESPONSES}", server.url()));
    let mut conversation = Conversation::new("smollm2-135m-instruct");
    conversation.set_system("You are terse.");
    conversation.user("What is the capital of France?").unwrap();
    conversation.set_max_tokens(16).unwrap();
    let reply = client.send_reply(&mut conversation).unwrap();
    mock.assert();
    let sent = checked_request(&bodies.all()[0]);
    assert_eq!(
        sent,
        json!({
            "model": "smollm2-135m-instruct",
            "input": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "What is the capital of France?"}
            ],
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "max_output_tokens": 16
        })
    );
    assert_eq!(reply.content(), "The capital of France is Paris.");
    assert_eq!(reply.finish_reason(), Some("stop"));
    assert_eq!(
        reply.id.as_deref(),
        Some("resp_db2pKlkDoecFMkLiHfDibtlfVlnKuFHy")
    );
    assert_eq!(reply.model.as_deref(), Some("smollm2-135m-instruct"));
    assert_eq!(reply.request_id.as_deref(), Some("req_resp_1"));
    assert_eq!(reply.header("X-Request-Id"), Some("req_resp_1"));
    let usage = reply.usage.expect("usage");
    assert_eq!(
        (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens
        ),
        (33, 8, 41)
    );
    assert_eq!(
        (usage.cached_tokens, usage.reasoning_tokens),
        (Some(0), None)
    );
    // The body as received, and the answer appended to the conversation.
    assert_eq!(
        reply.json(),
        read_data("spec/recorded/llamacpp-responses.json")
    );
    let last = conversation.messages().last().unwrap();
    assert_eq!(last.content, "The capital of France is Paris.");
}

#[test]
fn a_second_turn_carries_the_whole_history_and_the_conversation_goes_over_both_apis() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let _responses = answering(
        &mut server,
        &read_data("spec/recorded/llamacpp-responses.json"),
        &bodies,
    );
    let chat = server
        .mock("POST", PATH)
        .with_header("content-type", "application/json")
        .with_body(completion("Lyon."))
        .expect(1)
        .create();
    let client = responses_client(&server.url());
    let mut conversation = conversation();
    client.send(&mut conversation).unwrap();
    conversation.user("And its second city?").unwrap();
    client.send(&mut conversation).unwrap();
    let second = checked_request(&bodies.all()[1]);
    assert_eq!(
        second["input"],
        json!([
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Name three colours."},
            {"type": "message", "role": "assistant",
             "content": "The capital of France is Paris."},
            {"role": "user", "content": "And its second city?"}
        ])
    );
    // The same conversation, turn by turn, over chat completions.
    conversation.user("Thanks.").unwrap();
    let over_chat = builder(&server.url()).build().unwrap();
    assert_eq!(over_chat.send(&mut conversation).unwrap(), "Lyon.");
    chat.assert();
    assert_eq!(conversation.len(), 7);
}

#[test]
fn an_endpoint_url_is_used_as_given_whatever_the_api() {
    let mut server = Server::new();
    let mock = server
        .mock("POST", "/gateway/responses")
        .match_query(Matcher::UrlEncoded("route".into(), "fast".into()))
        .with_header("content-type", "application/json")
        .with_body(read_data("spec/recorded/llamacpp-responses.json"))
        .expect(1)
        .create();
    let url = format!("{}/gateway/responses?route=fast", server.url());
    let client = builder(&server.url())
        .endpoint_url(&url)
        .api(Api::Responses)
        .build()
        .unwrap();
    assert_eq!(client.endpoint(), url);
    client.send(&mut conversation()).unwrap();
    mock.assert();
}

#[test]
fn options_go_where_the_responses_api_has_them() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let _mock = answering(
        &mut server,
        &read_data("spec/recorded/llamacpp-responses.json"),
        &bodies,
    );
    let mut conversation = conversation();
    conversation.set_max_completion_tokens(64).unwrap();
    conversation.set_temperature(0.5).unwrap();
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    conversation
        .set_response_format(chatwire::ResponseFormat::json_schema(
            "answer",
            schema.clone(),
        ))
        .unwrap();
    conversation
        .set_option("reasoning_effort", Some(json!("low")))
        .unwrap();
    conversation
        .set_option("verbosity", Some(json!("low")))
        .unwrap();
    responses_client(&server.url())
        .send(&mut conversation)
        .unwrap();
    let sent = checked_request(&bodies.all()[0]);
    assert_eq!(sent["max_output_tokens"], 64);
    assert_eq!(sent["temperature"], 0.5);
    assert_eq!(sent["reasoning"], json!({"effort": "low"}));
    assert_eq!(sent["text"]["verbosity"], "low");
    assert_eq!(sent["text"]["format"]["type"], "json_schema");
    assert_eq!(sent["text"]["format"]["name"], "answer");
    assert_eq!(sent["text"]["format"]["schema"], schema);
    for absent in [
        "max_completion_tokens",
        "response_format",
        "reasoning_effort",
        "verbosity",
    ] {
        assert!(sent.get(absent).is_none(), "{absent} in {sent}");
    }
}

#[test]
fn options_the_responses_api_lacks_are_refused_before_anything_is_sent() {
    let mut server = Server::new();
    let mock = server.mock("POST", RESPONSES).expect(0).create();
    let client = responses_client(&server.url());
    let mut several = conversation();
    several.set_option("n", Some(json!(2))).unwrap();
    let mut stopped = conversation();
    stopped.set_stop(["END"]).unwrap();
    for (mut conversation, words) in [(several, "n > 1"), (stopped, "stop")] {
        let before = conversation.clone();
        match client.send(&mut conversation) {
            Err(Error::InvalidArgument(message)) => {
                assert!(message.contains(words), "{message}");
                assert!(message.contains("Responses API"), "{message}");
            }
            other => panic!("{words}: {other:?}"),
        }
        assert_eq!(conversation, before);
    }
    mock.assert();
}

#[test]
fn an_incomplete_response_finishes_for_its_reason() {
    for (reason, finish) in [
        ("max_output_tokens", "length"),
        ("content_filter", "content_filter"),
    ] {
        let mut server = Server::new();
        let body = json!({
            "id": "resp_1", "object": "response", "status": "incomplete",
            "incomplete_details": {"reason": reason},
            "output": [{"type": "message", "role": "assistant", "id": "msg_1",
                        "status": "incomplete",
                        "content": [{"type": "output_text", "text": "Par", "annotations": []}]}],
            "usage": {"input_tokens": 5, "output_tokens": 16,
                      "input_tokens_details": {"cached_tokens": 2},
                      "output_tokens_details": {"reasoning_tokens": 12}}
        });
        let _mock = server
            .mock("POST", RESPONSES)
            .with_header("content-type", "application/json")
            .with_body(body.to_string())
            .create();
        let reply = responses_client(&server.url())
            .send_reply(&mut conversation())
            .unwrap();
        assert_eq!(reply.finish_reason(), Some(finish), "{reason}");
        assert_eq!(reply.content(), "Par");
        let usage = reply.usage.unwrap();
        assert_eq!(usage.total_tokens, 21);
        assert_eq!(
            (usage.cached_tokens, usage.reasoning_tokens),
            (Some(2), Some(12))
        );
    }
}

#[test]
fn a_refusal_is_read_as_over_chat_completions() {
    let mut server = Server::new();
    let body = json!({
        "id": "resp_2", "object": "response", "status": "completed",
        "output": [{"type": "message", "role": "assistant", "id": "msg_2", "status": "completed",
                    "content": [{"type": "refusal", "refusal": "I can't help with that."}]}]
    });
    let _mock = server
        .mock("POST", RESPONSES)
        .with_header("content-type", "application/json")
        .with_body(body.to_string())
        .create();
    let reply = responses_client(&server.url())
        .send_reply(&mut conversation())
        .unwrap();
    assert_eq!(reply.refusal(), Some("I can't help with that."));
    assert_eq!(reply.content(), "I can't help with that.");
}

#[test]
fn error_statuses_are_those_of_chat_completions() {
    let overflow = r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#;
    let filtered = error_body(
        "The response was filtered",
        "invalid_request_error",
        json!("content_filter"),
    );
    let recorded_400 = read_data("spec/recorded/llamacpp-responses-400.json");
    type IsVariant = fn(&Error) -> bool;
    let cases: [(usize, &str, IsVariant); 5] = [
        (400, &recorded_400, |e| matches!(e, Error::Http(_))),
        (400, overflow, |e| matches!(e, Error::ContextLength(_))),
        (400, &filtered, |e| matches!(e, Error::ContentFiltered(_))),
        (401, &read_data("spec/recorded/llamacpp-401.json"), |e| {
            matches!(e, Error::Auth(_))
        }),
        (
            429,
            &error_body("slow down", "requests", json!("rate_limit_exceeded")),
            |e| matches!(e, Error::RateLimited(_)),
        ),
    ];
    for (status, body, check) in cases {
        let mut server = Server::new();
        let mock = server
            .mock("POST", RESPONSES)
            .with_status(status)
            .with_header("content-type", "application/json")
            .with_header("retry-after", "3600")
            .with_body(body)
            .expect(1)
            .create();
        let mut conversation = conversation();
        let before = conversation.clone();
        let client = builder(&server.url())
            .api(Api::Responses)
            .max_retries(2)
            .build()
            .unwrap();
        let err = client.send(&mut conversation).unwrap_err();
        assert!(check(&err), "{status} {body}: {err:?}");
        assert_eq!(err.http_status(), Some(status as u16));
        assert_eq!(conversation, before);
        mock.assert();
    }
    let err = {
        let mut server = Server::new();
        let _mock = server
            .mock("POST", RESPONSES)
            .with_status(400)
            .with_body(read_data("spec/recorded/llamacpp-responses-400.json"))
            .create();
        responses_client(&server.url())
            .send(&mut conversation())
            .unwrap_err()
    };
    let message = &err.api_error().unwrap().message;
    assert_eq!(message, "'input' must be a string or array of objects");
}

#[test]
fn a_failed_response_is_the_servers_error() {
    let mut server = Server::new();
    let body = json!({
        "id": "resp_3", "object": "response", "status": "failed",
        "error": {"code": "server_error", "message": "The model crashed."},
        "output": []
    });
    let _mock = server
        .mock("POST", RESPONSES)
        .with_header("content-type", "application/json")
        .with_body(body.to_string())
        .create();
    let err = responses_client(&server.url())
        .send(&mut conversation())
        .unwrap_err();
    assert!(matches!(err, Error::Server(_)), "{err:?}");
    assert_eq!(err.api_error().unwrap().message, "The model crashed.");
}

/// A mock answering POST /v1/responses with the SSE body `sse`.
fn streaming(server: &mut Server, sse: &str, bodies: &Bodies) -> mockito::Mock {
    server
        .mock("POST", RESPONSES)
        .match_request(bodies.recorder())
        .with_header("content-type", "text/event-stream")
        .with_header("x-request-id", "req_stream_1")
        .with_body(sse)
        .create()
}

/// One Responses API event, as a server writes it.
fn event(data: Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

const RECORDED_TEXT: &str = "The capital of France is Paris.";

#[test]
fn the_recorded_stream_gives_its_deltas_and_the_same_reply_by_every_streamed_send() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let _mock = streaming(
        &mut server,
        &read_data("spec/recorded/llamacpp-responses-stream.sse"),
        &bodies,
    );
    let client = responses_client(&server.url());
    // The reply's JSON is the final event's response object, as a whole
    // reply's is the body.
    let recorded = read_data("spec/recorded/llamacpp-responses-stream.sse");
    let completed = recorded
        .lines()
        .find_map(|line| line.strip_prefix("data: {\"type\":\"response.completed\""))
        .expect("a response.completed event");
    let completed: Value = serde_json::from_str(&format!("{{\"type\":\"\"{completed}")).unwrap();
    let check = |reply: &chatwire::Reply| {
        let json: Value = serde_json::from_str(&reply.json()).unwrap();
        assert_eq!(json, completed["response"]);
        assert_eq!(reply.content(), RECORDED_TEXT);
        assert_eq!(reply.finish_reason(), Some("stop"));
        assert_eq!(
            reply.id.as_deref(),
            Some("resp_SOI0whT8nOrZIwv6acd1KlOH1hPHDTGq")
        );
        assert_eq!(reply.request_id.as_deref(), Some("req_stream_1"));
        let usage = reply.usage.expect("usage");
        assert_eq!((usage.total_tokens, usage.cached_tokens), (41, Some(32)));
    };

    let mut conversation = conversation();
    let mut deltas = Vec::new();
    let reply = client
        .send_stream(&mut conversation, |delta| {
            deltas.push(delta.to_owned());
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(
        deltas,
        ["The", " capital", " of", " France", " is", " Paris", "."]
    );
    check(&reply);
    assert_eq!(
        conversation.messages().last().unwrap().content,
        RECORDED_TEXT
    );
    let sent = checked_request(&bodies.all()[0]);
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["store"], false);
    assert!(sent.get("stream_options").is_none(), "{sent}");

    let mut conversation = conversation_fresh();
    let mut stream = client.stream(&mut conversation).unwrap();
    let pieces: Vec<String> = stream.by_ref().map(Result::unwrap).collect();
    assert_eq!(pieces.concat(), RECORDED_TEXT);
    check(&stream.finish().unwrap());

    // A background send of a whole reply.
    let mut whole = Server::new();
    let _whole = answering(
        &mut whole,
        &read_data("spec/recorded/llamacpp-responses.json"),
        &Bodies::default(),
    );
    let pending = responses_client(&whole.url())
        .send_async(&conversation_fresh())
        .unwrap();
    let reply = pending.wait().unwrap();
    assert_eq!(
        (reply.content(), reply.finish_reason()),
        (RECORDED_TEXT, Some("stop"))
    );

    let (sender, received) = std::sync::mpsc::channel();
    let pending = client
        .stream_async(&conversation_fresh(), move |delta| {
            let _ = sender.send(delta.to_owned());
            ControlFlow::Continue(())
        })
        .unwrap();
    check(&pending.wait().unwrap());
    assert_eq!(received.try_iter().collect::<String>(), RECORDED_TEXT);
}

fn conversation_fresh() -> Conversation {
    conversation()
}

#[test]
fn a_stream_cancelled_mid_way_ends_at_once_and_leaves_the_conversation() {
    let (told, heard) = signal();
    let (_never, held) = signal();
    let first =
        event(json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Par"}));
    let server = PacedServer::start(vec![
        Step::Send(first),
        Step::Tell(told),
        Step::WaitFor(held),
    ]);
    let client = responses_client(&server.url);
    let pending = client
        .stream_async(&conversation(), |_| ControlFlow::Continue(()))
        .unwrap();
    heard
        .recv_timeout(Duration::from_secs(10))
        .expect("the first delta went out");
    cancel_now(pending);
    // Stopped by the callback: cancelled too, the conversation as it was.
    let mut conversation = conversation();
    let before = conversation.clone();
    let mut server = Server::new();
    let _mock = streaming(
        &mut server,
        &read_data("spec/recorded/llamacpp-responses-stream.sse"),
        &Bodies::default(),
    );
    let err = responses_client(&server.url())
        .send_stream(&mut conversation, |_| ControlFlow::Break(()))
        .unwrap_err();
    assert!(matches!(err, Error::Cancelled), "{err:?}");
    assert_eq!(conversation, before);
}

/// A call item with a field chatwire does not know, streamed and whole.
static CALL_OF_ITS_OWN: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    json!({"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_time",
           "arguments": "{}", "status": "completed", "namespace": "clock"})
});

#[test]
fn streamed_reasoning_refusal_and_tool_calls_are_read_as_over_chat_completions() {
    let sse = [
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
        json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": "Think"}),
        json!({"type": "response.reasoning_text.delta", "item_id": "rs_1", "delta": "ing."}),
        json!({"type": "response.output_item.added", "output_index": 1,
               "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                        "name": "get_weather", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"city\":"}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "\"Paris\"}"}),
        json!({"type": "response.output_item.done", "output_index": 1,
               "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                        "name": "get_weather", "arguments": "{\"city\":\"Paris\"}",
                        "status": "completed"}}),
        // A call whose arguments come only with its item's end, with a
        // field of its own.
        json!({"type": "response.output_item.done", "output_index": 2,
               "item": CALL_OF_ITS_OWN.clone()}),
        json!({"type": "response.completed", "response": {"id": "resp_9", "status": "completed",
               "usage": {"input_tokens": 9, "output_tokens": 20,
                         "output_tokens_details": {"reasoning_tokens": 11}}}}),
    ]
    .map(event)
    .concat();
    let mut server = Server::new();
    let _mock = streaming(&mut server, &sse, &Bodies::default());
    let mut conversation = conversation();
    let mut kinds = Vec::new();
    let reply = responses_client(&server.url())
        .send_stream_events(&mut conversation, |delta| {
            kinds.push((delta.kind, delta.text.clone()));
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(reply.reasoning().unwrap().text, "Thinking.");
    assert_eq!(
        kinds[0],
        (chatwire::DeltaKind::Reasoning, "Think".to_owned())
    );
    let calls = reply.tool_calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("call_1", "get_weather")
    );
    assert_eq!(calls[0].arguments, r#"{"city":"Paris"}"#);
    assert_eq!(
        (calls[1].id.as_str(), calls[1].arguments.as_str()),
        ("call_2", "{}")
    );
    assert_eq!(reply.finish_reason(), Some("tool_calls"));
    assert_eq!(reply.usage.unwrap().reasoning_tokens, Some(11));
    // A call's fields of its own are kept, its item id and status are not,
    // as in a whole response; the next request sends them back.
    assert!(calls[0].extra.is_empty(), "{:?}", calls[0].extra);
    assert_eq!(calls[1].extra["namespace"], "clock");
    let whole = json!({"status": "completed", "output": [CALL_OF_ITS_OWN.clone()]});
    let mut whole_server = Server::new();
    let bodies = Bodies::default();
    let _whole = answering(&mut whole_server, &whole.to_string(), &bodies);
    let client = responses_client(&whole_server.url());
    let whole_reply = client.send_reply(&mut conversation_fresh()).unwrap();
    assert_eq!(whole_reply.tool_calls(), &calls[1..]);
    conversation.tool_result("call_1", "Sunny").unwrap();
    conversation.tool_result("call_2", "Noon").unwrap();
    client.send(&mut conversation).unwrap();
    let sent = checked_request(&bodies.all()[1]);
    let input = sent["input"].as_array().unwrap();
    assert!(
        input.contains(
            &json!({"type": "function_call", "call_id": "call_2", "name": "get_time",
                               "arguments": "{}", "namespace": "clock"})
        ),
        "{sent}"
    );

    let refused = [
        json!({"type": "response.refusal.delta", "item_id": "msg_1", "delta": "I can't."}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ]
    .map(event)
    .concat();
    let mut server = Server::new();
    let _mock = streaming(&mut server, &refused, &Bodies::default());
    let reply = responses_client(&server.url())
        .send_stream(&mut conversation_fresh(), |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.refusal(), Some("I can't."));
}

#[test]
fn a_stream_that_fails_or_reports_an_error_is_the_servers_error() {
    let incomplete = [
        json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Par"}),
        json!({"type": "response.incomplete", "response": {"status": "incomplete",
               "incomplete_details": {"reason": "max_output_tokens"}}}),
    ];
    let failed = [
        json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Par"}),
        json!({"type": "response.failed", "response": {"status": "failed",
               "error": {"code": "server_error", "message": "The model crashed."}}}),
    ];
    let error = [json!({"type": "error", "code": "rate_limit_exceeded",
                        "message": "Slow down.", "param": null})];
    let mut server = Server::new();
    let _mock = streaming(
        &mut server,
        &incomplete.map(event).concat(),
        &Bodies::default(),
    );
    let reply = responses_client(&server.url())
        .send_stream(&mut conversation(), |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.finish_reason(), Some("length"));
    for (events, message) in [
        (failed.map(event).concat(), "The model crashed."),
        (error.map(event).concat(), "Slow down."),
    ] {
        let mut server = Server::new();
        let _mock = streaming(&mut server, &events, &Bodies::default());
        let mut conversation = conversation();
        let before = conversation.clone();
        let err = responses_client(&server.url())
            .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
            .unwrap_err();
        assert_eq!(
            err.api_error().map(|api| api.message.as_str()),
            Some(message),
            "{err:?}"
        );
        assert_eq!(conversation, before);
    }
}

#[test]
fn azure_serves_the_responses_api_on_its_v1_route() {
    let mut server = Server::new();
    let mock = server
        .mock("POST", "/openai/v1/responses")
        .match_query(Matcher::Missing)
        .match_header("api-key", "azure-key")
        .with_header("content-type", "application/json")
        .with_body(read_data("spec/recorded/llamacpp-responses.json"))
        .expect(1)
        .create();
    let client = chatwire::Client::builder()
        .azure(server.url(), "gpt-4o")
        .api_version("2024-10-21")
        .api_key("azure-key")
        .api(Api::Responses)
        .max_retries(0)
        .build()
        .unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), RECORDED_TEXT);
    mock.assert();
}
